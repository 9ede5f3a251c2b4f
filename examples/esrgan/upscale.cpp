// wick_upscale: 4x super-resolution of a PNG with the pretrained ESRGAN-slim program in
// this folder (model.pte), run by wick::Program with the WebGPU delegate.
//
//   wick_upscale input.png output.png [--model model.pte] [--backend webgpu|cpu]
//                [--runs N] [--profile] [--reference expected.png]
//
// The model takes RGB as float32 NCHW [1,3,H,W] with the 8-bit values 0..255 as they are,
// and returns [1,3,4H,4W] on the same scale, not clipped; we clip and round to 8 bits.
// model.pte is exported for exactly 64x64 inputs; a model exported with dynamic height
// and width takes any size up to its bounds.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli/commands.h"
#include "image/png_io.h"
#include "runtime/program.h"

#ifndef WICK_ESRGAN_DIR
#define WICK_ESRGAN_DIR "examples/esrgan"
#endif

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Options {
  std::string input, output;
  std::string model = WICK_ESRGAN_DIR "/model.pte";
  std::string backend = "webgpu";
  std::string reference;
  int runs = 1;
  bool profile = false;
  bool help = false;
};

void usage(FILE* to = stderr) {
  std::fprintf(to,
               "usage: wick_upscale INPUT.png OUTPUT.png [--model MODEL.pte] [--backend webgpu|cpu]\n"
               "                    [--runs N] [--profile] [--reference EXPECTED.png]\n"
               "  --model      default %s\n"
               "  --runs       run the model N times (the first includes GPU warm-up)\n"
               "  --reference  compare the result with a PNG; fail if any value differs by more than 1\n",
               WICK_ESRGAN_DIR "/model.pte");
}

bool parse(int argc, char** argv, Options& o) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string& dst) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "wick_upscale: %s needs a value\n", a.c_str());
        return false;
      }
      dst = argv[++i];
      return true;
    };
    std::string tmp;
    if (a == "-h" || a == "--help") {
      o.help = true;
      return false;
    }
    if (a == "--model") { if (!value(o.model)) return false; }
    else if (a == "--backend") { if (!value(o.backend)) return false; }
    else if (a == "--reference") { if (!value(o.reference)) return false; }
    else if (a == "--runs") {
      if (!value(tmp)) return false;
      char* end = nullptr;
      const long n = std::strtol(tmp.c_str(), &end, 10);
      if (tmp.empty() || *end != '\0' || n < 1 || n > 1000000) {
        std::fprintf(stderr, "wick_upscale: --runs takes an integer from 1 to 1000000, got '%s'\n", tmp.c_str());
        return false;
      }
      o.runs = static_cast<int>(n);
    }
    else if (a == "--profile") o.profile = true;
    else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "wick_upscale: unknown option '%s'\n", a.c_str());
      return usage(), false;
    } else positional.push_back(a);
  }
  if (positional.size() != 2) return usage(), false;
  o.input = positional[0];
  o.output = positional[1];
  return true;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "wick_upscale: %s\n", message.c_str());
  return 1;
}

// The program must take one float32 [1,3,H,W] image. Returns an error naming the
// accepted size when the image does not fit.
wick::Status check_input(const wick::MethodMeta& meta, const std::string& model, const wick::image::RgbImage& img) {
  using wick::ErrorCode;
  if (meta.inputs.size() != 1 || meta.inputs[0].tag != wick::ValueTag::kTensor)
    return {ErrorCode::kInvalidArgument, model + ": expected a method with one tensor input"};
  const wick::TensorMeta& t = meta.inputs[0].tensor;
  if (t.dtype != wick::ScalarType::kFloat || t.sizes.size() != 4 || t.sizes[0] != 1 || t.sizes[1] != 3)
    return {ErrorCode::kInvalidArgument,
            model + ": expected an input of float32 [1,3,H,W], got " + wick::shape_to_string(t.sizes)};
  const int64_t h = t.sizes[2], w = t.sizes[3];
  const std::string size = std::to_string(img.width) + "x" + std::to_string(img.height);
  if (t.dynamism == wick::ShapeDynamism::kStatic) {
    if (img.height != h || img.width != w)
      return {ErrorCode::kInvalidArgument,
              "the image is " + size + " (width x height), but " + model + " takes exactly " +
                  std::to_string(w) + "x" + std::to_string(h) + " images (input float32" +
                  wick::shape_to_string(t.sizes) +
                  "); crop or resize it to that size, or use a model exported with dynamic height and width"};
  } else if (t.dynamism == wick::ShapeDynamism::kDynamicBound && (img.height > h || img.width > w)) {
    return {ErrorCode::kInvalidArgument, "the image is " + size + " (width x height), but " + model +
                                             " takes images of at most " + std::to_string(w) + "x" +
                                             std::to_string(h)};
  }
  return {};
}

wick::Tensor to_nchw(const wick::image::RgbImage& img) {
  const int64_t h = img.height, w = img.width;
  wick::Tensor t = wick::Tensor::make_owned(wick::ScalarType::kFloat, {1, 3, h, w});
  float* dst = t.data_as<float>();
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x)
      for (int64_t c = 0; c < 3; ++c)
        dst[(c * h + y) * w + x] = img.pixels[static_cast<size_t>((y * w + x) * 3 + c)];
  return t;
}

// Clips to [0, 255] and rounds half to even (as NumPy does for reference_output.png).
wick::Result<wick::image::RgbImage> from_nchw(const wick::Value& v) {
  if (!v.is_tensor() || v.tensor.dtype != wick::ScalarType::kFloat || v.tensor.dim() != 4 ||
      v.tensor.size(0) != 1 || v.tensor.size(1) != 3 || !v.tensor.is_contiguous())
    return wick::Status(wick::ErrorCode::kInvalidArgument,
                        "expected the output to be a contiguous float32 [1,3,H,W] tensor, got " +
                            (v.is_tensor() ? v.tensor.shape_string() : std::string(wick::value_tag_name(v.tag))));
  const int64_t h = v.tensor.size(2), w = v.tensor.size(3);
  if (h <= 0 || w <= 0 || h > wick::image::kMaxPngSide || w > wick::image::kMaxPngSide)
    return wick::Status(wick::ErrorCode::kInvalidArgument, "output size " + v.tensor.shape_string() + " cannot be a PNG");
  auto img = wick::image::RgbImage::make(static_cast<int>(w), static_cast<int>(h));
  const float* src = v.tensor.data_as<float>();
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x)
      for (int64_t c = 0; c < 3; ++c) {
        float f = src[(c * h + y) * w + x];
        f = f >= 0.f ? std::min(f, 255.f) : 0.f;  // NaN -> 0
        img.pixels[static_cast<size_t>((y * w + x) * 3 + c)] = static_cast<uint8_t>(std::nearbyint(f));
      }
  return img;
}

}  // namespace

// The PNG is written after the (long) run: find a path that cannot be written before it.
wick::Status check_output_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    return {wick::ErrorCode::kInvalidArgument, path + ": is a directory, expected an output .png file"};
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, ec))
    return {wick::ErrorCode::kInvalidArgument, path + ": the directory " + parent.string() + " does not exist"};
  if (::access(parent.c_str(), W_OK) != 0)
    return {wick::ErrorCode::kInvalidArgument, path + ": the directory " + parent.string() + " is not writable"};
  return {};
}

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    if (o.help) usage(stdout);
    return o.help ? 0 : 2;
  }
  wick::Status writable = check_output_path(o.output);
  if (!writable.ok()) return fail(writable.to_string());

  auto t0 = Clock::now();
  auto image = wick::image::read_png(o.input);
  if (!image.ok()) return fail(image.status().to_string());
  std::printf("read      %9.1f ms  %s (%dx%d)\n", ms_since(t0), o.input.c_str(), image->width, image->height);

  if (!wick::cli::select_backend(o.backend, o.profile)) return 1;
  t0 = Clock::now();
  auto program = wick::Program::load_file(o.model);
  if (!program.ok()) return fail(program.status().to_string());
  auto meta = (*program)->method_meta("forward");
  if (!meta.ok()) return fail(meta.status().to_string());
  // The CPU backend runs no delegates: say so before the image work, not as a load error.
  if (o.backend == "cpu" && !meta->delegates.empty())
    return fail(o.model + " runs on the WebGPU delegate (" + std::to_string(meta->delegates.size()) +
                " delegate call(s)), which --backend cpu cannot run; use --backend webgpu");
  wick::Status fits = check_input(*meta, o.model, *image);
  if (!fits.ok()) return fail(fits.to_string());
  std::printf("load      %9.1f ms  %s\n", ms_since(t0), o.model.c_str());

  t0 = Clock::now();
  auto method = (*program)->load_method("forward");
  if (!method.ok()) return fail(method.status().to_string());
  std::printf("init      %9.1f ms  backend %s (delegate setup: pipelines, weights)\n", ms_since(t0),
              o.backend.c_str());

  std::vector<wick::Value> inputs;
  inputs.push_back(wick::Value::make_tensor(to_nchw(*image)));
  wick::Result<std::vector<wick::Value>> outputs = wick::Status(wick::ErrorCode::kInternal, "not run");
  for (int r = 0; r < o.runs; ++r) {
    t0 = Clock::now();
    outputs = (*method)->forward(inputs);
    if (!outputs.ok()) return fail(outputs.status().to_string());
    std::printf("forward   %9.1f ms  run %d of %d\n", ms_since(t0), r + 1, o.runs);
  }
  if (o.profile) wick::cli::print_profile();
  if (outputs->size() != 1) return fail("expected one output, got " + std::to_string(outputs->size()));

  t0 = Clock::now();
  auto result = from_nchw((*outputs)[0]);
  if (!result.ok()) return fail(result.status().to_string());
  wick::Status written = wick::image::write_png(o.output, *result);
  if (!written.ok()) return fail(written.to_string());
  std::printf("write     %9.1f ms  %s (%dx%d, x%d)\n", ms_since(t0), o.output.c_str(), result->width,
              result->height, result->width / image->width);

  if (!o.reference.empty()) {
    auto ref = wick::image::read_png(o.reference);
    if (!ref.ok()) return fail(ref.status().to_string());
    if (ref->width != result->width || ref->height != result->height)
      return fail(o.reference + " is " + std::to_string(ref->width) + "x" + std::to_string(ref->height) +
                  ", the result " + std::to_string(result->width) + "x" + std::to_string(result->height));
    int max_diff = 0;
    size_t differing = 0;
    for (size_t i = 0; i < ref->pixels.size(); ++i) {
      int d = std::abs(int(ref->pixels[i]) - int(result->pixels[i]));
      max_diff = std::max(max_diff, d);
      differing += d != 0;
    }
    std::printf("reference max |diff| %d of 255, %zu of %zu values differ  (%s)\n", max_diff, differing,
                ref->pixels.size(), o.reference.c_str());
    // Rounding to 8 bits may flip a value that sits at .5 within the model's tolerance.
    if (max_diff > 1) return fail("the result differs from " + o.reference + " by up to " + std::to_string(max_diff));
  }
  return 0;
}
