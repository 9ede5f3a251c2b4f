#include "image/png_io.h"

#include <png.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include "format/pte_file.h"  // read_file_bytes

namespace wick::image {

namespace {

// Bounds the pixel buffer of one decoded image (64 Mpx = 192 MiB of RGB).
constexpr uint64_t kMaxPngPixels = uint64_t{1} << 26;

// Everything the decoder touches after setjmp lives here, behind a pointer, so nothing
// the error path reads is an indeterminate local after longjmp.
struct ReadContext {
  std::span<const uint8_t> bytes;
  size_t pos = 0;
  char error[256] = {};  // fixed size: libpng's error callback must not allocate or throw
  png_structp png = nullptr;
  png_infop info = nullptr;
  RgbImage image;
  std::vector<png_bytep> rows;
};

void set_error(ReadContext* ctx, const char* message) {
  if (ctx->error[0] == '\0') std::snprintf(ctx->error, sizeof ctx->error, "%s", message);
}

// libpng calls this on a fatal error and must not return to it; C++ exceptions must not
// cross libpng's C frames, so leave through longjmp to the setjmp in decode().
[[noreturn]] void on_error(png_structp png, png_const_charp message) {
  set_error(static_cast<ReadContext*>(png_get_error_ptr(png)), message ? message : "libpng error");
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}  // ancillary-chunk trouble; the pixels are fine

void read_bytes(png_structp png, png_bytep out, size_t n) {
  auto* ctx = static_cast<ReadContext*>(png_get_io_ptr(png));
  if (n > ctx->bytes.size() - ctx->pos) png_error(png, "file is truncated");
  std::memcpy(out, ctx->bytes.data() + ctx->pos, n);
  ctx->pos += n;
}

bool decode(ReadContext* ctx) {
  if (setjmp(png_jmpbuf(ctx->png))) return false;
  png_set_read_fn(ctx->png, ctx, read_bytes);
  png_set_user_limits(ctx->png, kMaxPngSide, kMaxPngSide);
  png_read_info(ctx->png, ctx->info);

  png_uint_32 width = 0, height = 0;
  int depth = 0, color = 0;
  png_get_IHDR(ctx->png, ctx->info, &width, &height, &depth, &color, nullptr, nullptr, nullptr);
  if (uint64_t{width} * height > kMaxPngPixels) png_error(ctx->png, "image has too many pixels");

  // Normalise every colour type to 8-bit RGB with the stored sample values.
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(ctx->png);
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(ctx->png);
  if (depth == 16) png_set_strip_16(ctx->png);
  if (color & PNG_COLOR_MASK_ALPHA) png_set_strip_alpha(ctx->png);
  if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(ctx->png);
  png_set_interlace_handling(ctx->png);
  png_read_update_info(ctx->png, ctx->info);
  if (png_get_bit_depth(ctx->png, ctx->info) != 8 || png_get_channels(ctx->png, ctx->info) != 3 ||
      png_get_rowbytes(ctx->png, ctx->info) != size_t{width} * 3)
    png_error(ctx->png, "unsupported PNG layout after conversion to 8-bit RGB");

  ctx->image = RgbImage::make(static_cast<int>(width), static_cast<int>(height));
  ctx->rows.resize(height);
  for (png_uint_32 y = 0; y < height; ++y) ctx->rows[y] = ctx->image.at(0, static_cast<int>(y));
  png_read_image(ctx->png, ctx->rows.data());
  png_read_end(ctx->png, nullptr);  // checks the rest of the file up to IEND
  return true;
}

}  // namespace

Result<RgbImage> decode_png(std::span<const uint8_t> bytes, const std::string& name) {
  auto fail = [&](const std::string& why) {
    return Status(ErrorCode::kInvalidArgument, name + ": " + why);
  };
  if (bytes.size() < 8 || png_sig_cmp(bytes.data(), 0, 8) != 0) return fail("not a PNG file (bad signature)");

  ReadContext ctx;
  ctx.bytes = bytes;
  ctx.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
  if (!ctx.png) return Status(ErrorCode::kOutOfResources, name + ": cannot create a PNG reader");
  ctx.info = png_create_info_struct(ctx.png);
  if (!ctx.info) {
    png_destroy_read_struct(&ctx.png, nullptr, nullptr);
    return Status(ErrorCode::kOutOfResources, name + ": cannot create a PNG reader");
  }
  bool ok = decode(&ctx);
  png_destroy_read_struct(&ctx.png, &ctx.info, nullptr);
  if (!ok) return fail(std::string("corrupt or unsupported PNG: ") + ctx.error);
  return std::move(ctx.image);
}

Result<RgbImage> read_png(const std::string& path) {
  // read_file_bytes asks the file system first, so a directory, a device or a FIFO is named
  // as such (fopen + fread on a directory only said "read error").
  WICK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, read_file_bytes(path));
  return decode_png(bytes, path);
}

Result<std::vector<uint8_t>> encode_png(const RgbImage& image) {
  if (image.width <= 0 || image.height <= 0 || image.width > kMaxPngSide || image.height > kMaxPngSide)
    return Status(ErrorCode::kInvalidArgument, "encode_png: bad size " + std::to_string(image.width) + "x" +
                                                   std::to_string(image.height));
  if (image.pixels.size() != static_cast<size_t>(image.width) * image.height * 3)
    return Status(ErrorCode::kInvalidArgument, "encode_png: pixel buffer holds " +
                                                   std::to_string(image.pixels.size()) + " bytes, expected " +
                                                   std::to_string(size_t(image.width) * image.height * 3));
  png_image pi;
  std::memset(&pi, 0, sizeof pi);
  pi.version = PNG_IMAGE_VERSION;
  pi.width = static_cast<png_uint_32>(image.width);
  pi.height = static_cast<png_uint_32>(image.height);
  pi.format = PNG_FORMAT_RGB;
  std::vector<uint8_t> out(PNG_IMAGE_PNG_SIZE_MAX(pi));
  png_alloc_size_t size = out.size();
  if (!png_image_write_to_memory(&pi, out.data(), &size, 0, image.pixels.data(), 0, nullptr)) {
    std::string why = pi.message;
    png_image_free(&pi);
    return Status(ErrorCode::kInternal, "encode_png: " + why);
  }
  out.resize(size);
  return out;
}

Status write_png(const std::string& path, const RgbImage& image) {
  WICK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, encode_png(image));
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return Status(ErrorCode::kInvalidArgument, path + ": cannot open for writing: " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) return Status(ErrorCode::kInvalidArgument, path + ": write failed");
  return {};
}

}  // namespace wick::image
