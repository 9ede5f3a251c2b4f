// 8-bit RGB images in and out of PNG files, through libpng. Errors are values: a
// corrupt, truncated or unsupported file gives a Status naming the file and the reason.
//
//   auto img = wick::image::read_png("photo.png");   // any 8/16-bit gray, RGB, RGBA, palette
//   WICK_RETURN_IF_ERROR(wick::image::write_png("out.png", *img));
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"

namespace wick::image {

// Pixels are row-major HWC: pixels[(y * width + x) * 3 + c], c = R, G, B.
struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;

  static RgbImage make(int width, int height) {
    return RgbImage{width, height, std::vector<uint8_t>(static_cast<size_t>(width) * height * 3)};
  }
  uint8_t* at(int x, int y) { return &pixels[(static_cast<size_t>(y) * width + x) * 3]; }
  const uint8_t* at(int x, int y) const { return &pixels[(static_cast<size_t>(y) * width + x) * 3]; }
};

// Largest width or height read_png accepts; bigger files are refused before any pixel
// memory is allocated.
inline constexpr int kMaxPngSide = 16384;

// Decodes a PNG to 8-bit RGB. Gray is replicated to RGB, palettes are expanded, 16-bit
// samples are reduced to their high byte, and an alpha channel is dropped (the colour
// values are kept as stored, not composited). No gamma or colour-space conversion.
Result<RgbImage> decode_png(std::span<const uint8_t> bytes, const std::string& name = "<memory>");
Result<RgbImage> read_png(const std::string& path);

// Encodes 8-bit RGB, non-interlaced.
Result<std::vector<uint8_t>> encode_png(const RgbImage& image);
Status write_png(const std::string& path, const RgbImage& image);

}  // namespace wick::image
