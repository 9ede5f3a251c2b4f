// src/image/png_io: round trips, the bundled ESRGAN photo (examples/esrgan/input.png),
// colour-type conversions, and corrupt or truncated files giving errors, not crashes.
#include "image/png_io.h"

#include <gtest/gtest.h>
#include <png.h>
#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "test_util.h"

namespace wick::image {
namespace {

std::string esrgan_dir() { return wick::test::source_dir() + "/examples/esrgan"; }

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

RgbImage pattern(int w, int h) {
  RgbImage img = RgbImage::make(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) img.at(x, y)[c] = static_cast<uint8_t>(x * 37 + y * 11 + c * 85);
  return img;
}

// A PNG of another colour type, written with libpng's simplified API.
std::vector<uint8_t> encode_with_format(png_uint_32 format, int w, int h, const std::vector<uint8_t>& pixels) {
  png_image pi;
  std::memset(&pi, 0, sizeof pi);
  pi.version = PNG_IMAGE_VERSION;
  pi.width = w;
  pi.height = h;
  pi.format = format;
  std::vector<uint8_t> out(PNG_IMAGE_PNG_SIZE_MAX(pi));
  png_alloc_size_t size = out.size();
  EXPECT_TRUE(png_image_write_to_memory(&pi, out.data(), &size, 0, pixels.data(), 0, nullptr)) << pi.message;
  out.resize(size);
  return out;
}

TEST(PngIo, RoundTripInMemory) {
  RgbImage img = pattern(7, 5);
  auto bytes = encode_png(img);
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  auto back = decode_png(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->width, 7);
  EXPECT_EQ(back->height, 5);
  EXPECT_EQ(back->pixels, img.pixels);
}

TEST(PngIo, RoundTripThroughAFile) {
  RgbImage img = pattern(130, 3);
  std::string path = ::testing::TempDir() + "/wick_png_io_roundtrip.png";
  ASSERT_TRUE(write_png(path, img).ok());
  auto back = read_png(path);
  std::remove(path.c_str());
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->width, 130);
  EXPECT_EQ(back->height, 3);
  EXPECT_EQ(back->pixels, img.pixels);
}

TEST(PngIo, ReadsTheBundledEsrganPhoto) {
  auto in = read_png(esrgan_dir() + "/input.png");
  ASSERT_TRUE(in.ok()) << in.status().to_string();
  EXPECT_EQ(in->width, 64);
  EXPECT_EQ(in->height, 64);
  ASSERT_EQ(in->pixels.size(), 64u * 64u * 3u);
  auto ref = read_png(esrgan_dir() + "/reference_output.png");
  ASSERT_TRUE(ref.ok()) << ref.status().to_string();
  EXPECT_EQ(ref->width, 256);
  EXPECT_EQ(ref->height, 256);
}

// input.png holds the fixture's case 0 input exactly: the same values, HWC vs NCHW.
TEST(PngIo, BundledPhotoMatchesTheFixtureInput) {
  auto in = read_png(esrgan_dir() + "/input.png");
  ASSERT_TRUE(in.ok()) << in.status().to_string();
  std::vector<uint8_t> raw = file_bytes(wick::test::fixtures_dir() + "/pretrained/esrgan_slim_x4/case0_input0.bin");
  if (raw.empty()) GTEST_SKIP() << "fixture pretrained/esrgan_slim_x4 not found";
  ASSERT_EQ(raw.size(), 3u * 64u * 64u * sizeof(float));
  std::vector<float> chw(raw.size() / sizeof(float));
  std::memcpy(chw.data(), raw.data(), raw.size());
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 64; ++y)
      for (int x = 0; x < 64; ++x)
        ASSERT_EQ(float(in->at(x, y)[c]), chw[(c * 64 + y) * 64 + x]) << "c " << c << " y " << y << " x " << x;
}

TEST(PngIo, GrayBecomesRgb) {
  std::vector<uint8_t> gray = {0, 10, 200, 255, 7, 99};
  auto back = decode_png(encode_with_format(PNG_FORMAT_GRAY, 3, 2, gray));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  ASSERT_EQ(back->pixels.size(), 18u);
  for (size_t i = 0; i < gray.size(); ++i)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(back->pixels[i * 3 + c], gray[i]);
}

TEST(PngIo, AlphaIsDroppedAndColoursKept) {
  std::vector<uint8_t> rgba = {1, 2, 3, 0, 250, 128, 7, 255, 40, 50, 60, 128};
  auto back = decode_png(encode_with_format(PNG_FORMAT_RGBA, 3, 1, rgba));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->pixels, (std::vector<uint8_t>{1, 2, 3, 250, 128, 7, 40, 50, 60}));
}

TEST(PngIo, MissingFileIsNotFound) {
  auto r = read_png(esrgan_dir() + "/no_such_file.png");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(r.status().message().find("no_such_file.png"), std::string::npos);
}

// A directory or a non-regular file once gave a bare "read error" (fopen succeeds on a
// directory; fread fails): each is now named.
TEST(PngIo, DirectoryOrDeviceIsNamed) {
  auto dir = read_png(esrgan_dir());
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find(esrgan_dir() + ": is a directory"), std::string::npos)
      << dir.status().to_string();
  auto dev = read_png("/dev/null");
  ASSERT_FALSE(dev.ok());
  EXPECT_NE(dev.status().message().find("/dev/null: not a regular file"), std::string::npos)
      << dev.status().to_string();
}

TEST(PngIo, NotAPngIsAnError) {
  std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '\n'};
  auto r = decode_png(text, "hello.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("hello.txt"), std::string::npos);
  EXPECT_NE(r.status().message().find("not a PNG"), std::string::npos);
  EXPECT_FALSE(decode_png({}, "empty").ok());
}

TEST(PngIo, TruncatedFilesAreErrors) {
  std::vector<uint8_t> bytes = file_bytes(esrgan_dir() + "/input.png");
  ASSERT_GT(bytes.size(), 100u);
  // Cut inside the signature, IHDR, the image data and the final IEND chunk.
  for (size_t n : {size_t{0}, size_t{4}, size_t{8}, size_t{20}, size_t{33}, size_t{60}, bytes.size() / 2,
                   bytes.size() - 13, bytes.size() - 1}) {
    std::span<const uint8_t> cut(bytes.data(), n);
    auto r = decode_png(cut, "cut.png");
    EXPECT_FALSE(r.ok()) << "truncated to " << n << " of " << bytes.size() << " bytes";
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("cut.png"), std::string::npos) << r.status().to_string();
    }
  }
}

TEST(PngIo, CorruptBytesGiveErrorsNotCrashes) {
  std::vector<uint8_t> bytes = file_bytes(esrgan_dir() + "/input.png");
  ASSERT_GT(bytes.size(), 100u);
  // Every chunk is CRC-checked, so a flipped byte past the signature must be an error.
  size_t errors = 0, tried = 0;
  for (size_t pos = 8; pos < bytes.size(); pos += 7) {
    std::vector<uint8_t> bad = bytes;
    bad[pos] ^= 0x5a;
    auto r = decode_png(bad, "flipped.png");
    ++tried;
    errors += !r.ok();
  }
  EXPECT_EQ(errors, tried);
  // A huge width in IHDR (with a fixed-up CRC) is refused before any allocation.
  std::vector<uint8_t> wide = bytes;
  wide[16] = 0x7f;  // width, big-endian, bytes 16..19
  uint32_t crc = png_uint_32(crc32(0, wide.data() + 12, 17));
  for (int i = 0; i < 4; ++i) wide[29 + i] = uint8_t(crc >> (24 - 8 * i));
  auto r = decode_png(wide, "wide.png");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("wide.png"), std::string::npos);
}

TEST(PngIo, EncodeRejectsInconsistentImages) {
  RgbImage img = pattern(4, 4);
  img.pixels.pop_back();
  EXPECT_FALSE(encode_png(img).ok());
  EXPECT_FALSE(encode_png(RgbImage{}).ok());
  EXPECT_FALSE(write_png(esrgan_dir() + "/no_such_dir/out.png", pattern(2, 2)).ok());
}

}  // namespace
}  // namespace wick::image
