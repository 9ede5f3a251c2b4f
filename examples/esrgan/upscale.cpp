// wick_upscale: 4x super-resolution of a PNG with the pretrained ESRGAN-slim program in
// this folder (model.pte), run by wick::Program with the WebGPU delegate.
//
//   wick_upscale input.png output.png [--model model.pte] [--backend auto|webgpu|cpu]
//                [--runs N] [--profile] [--reference expected.png]
//                [--tile-overlap N] [--tile-margin N]
//
// The model takes RGB as float32 NCHW [1,3,H,W] with the 8-bit values 0..255 as they are,
// and returns [1,3,sH,sW] on the same scale, not clipped; we clip and round to 8 bits.
// model.pte is exported for exactly 64x64 inputs: any other size is cut into overlapping
// 64x64 tiles whose results are blended (src/image/tiling.h), so photos of any size
// upscale without seams. A model exported with dynamic height and width takes the whole
// image when it fits its bounds, and tiles of its largest size otherwise.
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
#include "image/tiling.h"
#include "kernels/cpu/kernel.h"
#include "runtime/kernel_registry.h"
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
  int overlap = -1, margin = -1;  // tiling; -1: plan_tiles' defaults
  bool profile = false;
  bool help = false;
};

void usage(FILE* to = stderr) {
  std::fprintf(to,
               "usage: wick_upscale INPUT.png OUTPUT.png [--model MODEL.pte] [--backend auto|webgpu|cpu]\n"
               "                    [--runs N] [--profile] [--reference EXPECTED.png]\n"
               "                    [--tile-overlap N] [--tile-margin N]\n"
               "  --model         default %s\n"
               "  --runs          upscale N times (the first includes GPU warm-up)\n"
               "  --reference     compare the result with a PNG; fail if any value differs by more than 1\n"
               "  --tile-overlap  input pixels shared by neighbouring tiles when the image does not fit\n"
               "                  the model's input (default 3/8 of the tile side: 24 for 64x64)\n"
               "  --tile-margin   input pixels next to a shared tile edge whose output is discarded\n"
               "                  (default overlap/2 - 2: 10, the bundled model's receptive field)\n",
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
    else if (a == "--tile-overlap" || a == "--tile-margin") {
      if (!value(tmp)) return false;
      char* end = nullptr;
      const long n = std::strtol(tmp.c_str(), &end, 10);
      if (tmp.empty() || *end != '\0' || n < 0 || n > 4096) {
        std::fprintf(stderr, "wick_upscale: %s takes an integer from 0 to 4096, got '%s'\n", a.c_str(), tmp.c_str());
        return false;
      }
      (a == "--tile-overlap" ? o.overlap : o.margin) = static_cast<int>(n);
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

// The program must take one float32 [1,3,H,W] image. Returns the tile size it runs: the
// whole image when the input is dynamic and the image fits, else the fixed size or bound.
wick::Result<std::pair<int, int>> model_tile(const wick::MethodMeta& meta, const std::string& model,
                                             const wick::image::RgbImage& img) {
  using wick::ErrorCode;
  if (meta.inputs.size() != 1 || meta.inputs[0].tag != wick::ValueTag::kTensor)
    return wick::Status(ErrorCode::kInvalidArgument, model + ": expected a method with one tensor input");
  const wick::TensorMeta& t = meta.inputs[0].tensor;
  if (t.dtype != wick::ScalarType::kFloat || t.sizes.size() != 4 || t.sizes[0] != 1 || t.sizes[1] != 3)
    return wick::Status(ErrorCode::kInvalidArgument,
                        model + ": expected an input of float32 [1,3,H,W], got " + wick::shape_to_string(t.sizes));
  const int64_t h = t.sizes[2], w = t.sizes[3];
  if (h < 1 || w < 1 || h > wick::image::kMaxPngSide || w > wick::image::kMaxPngSide)
    return wick::Status(ErrorCode::kInvalidArgument, model + ": input size " + wick::shape_to_string(t.sizes) +
                                                         " is no image size");
  if (t.dynamism == wick::ShapeDynamism::kDynamicUnbound ||
      (t.dynamism == wick::ShapeDynamism::kDynamicBound && img.height <= h && img.width <= w))
    return std::pair<int, int>{img.width, img.height};
  return std::pair<int, int>{static_cast<int>(w), static_cast<int>(h)};
}

// The scale factor from the declared output [1,3,sH,sW] and input [1,3,H,W].
wick::Result<int> model_scale(const wick::MethodMeta& meta, const std::string& model) {
  if (meta.outputs.size() != 1 || meta.outputs[0].tag != wick::ValueTag::kTensor ||
      meta.outputs[0].tensor.sizes.size() != 4)
    return wick::Status(wick::ErrorCode::kInvalidArgument, model + ": expected one [1,3,sH,sW] tensor output");
  const auto& in = meta.inputs[0].tensor.sizes;
  const auto& out = meta.outputs[0].tensor.sizes;
  if (out[1] != 3 || out[2] % in[2] != 0 || out[3] % in[3] != 0 || out[2] / in[2] != out[3] / in[3] ||
      out[2] / in[2] < 1 || out[2] / in[2] > 16)
    return wick::Status(wick::ErrorCode::kInvalidArgument, model + ": output " + wick::shape_to_string(out) +
                                                               " is not the input " + wick::shape_to_string(in) +
                                                               " scaled by one integer factor");
  return static_cast<int>(out[2] / in[2]);
}

// One tile through the model: CHW in, CHW out (checked to be [1,3,sh,sw], contiguous).
wick::Result<std::vector<float>> run_tile(wick::Method& method, const wick::image::TileInput& t, int scale) {
  wick::Tensor x = wick::Tensor::make_owned(wick::ScalarType::kFloat, {1, 3, t.h, t.w});
  std::copy(t.chw.begin(), t.chw.end(), x.data_as<float>());
  std::vector<wick::Value> inputs;
  inputs.push_back(wick::Value::make_tensor(std::move(x)));
  WICK_ASSIGN_OR_RETURN(std::vector<wick::Value> outputs, method.forward(inputs));
  if (outputs.size() != 1) return wick::Status(wick::ErrorCode::kInvalidArgument, "expected one output, got " + std::to_string(outputs.size()));
  const wick::Value& v = outputs[0];
  const std::vector<int64_t> want{1, 3, int64_t{t.h} * scale, int64_t{t.w} * scale};
  if (!v.is_tensor() || v.tensor.dtype != wick::ScalarType::kFloat || v.tensor.sizes != want || !v.tensor.is_contiguous())
    return wick::Status(wick::ErrorCode::kInvalidArgument,
                        "expected the output to be a contiguous float32 " + wick::shape_to_string(want) + " tensor, got " +
                            (v.is_tensor() ? v.tensor.shape_string() : std::string(wick::value_tag_name(v.tag))));
  const float* p = v.tensor.data_as<float>();
  return std::vector<float>(p, p + v.tensor.numel());
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
  if (wick::Status s = wick::cpu::register_cpu_kernels(wick::kernel_registry()); !s.ok()) return fail(s.to_string());
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
  auto tile = model_tile(*meta, o.model, *image);
  if (!tile.ok()) return fail(tile.status().to_string());
  auto scale = model_scale(*meta, o.model);
  if (!scale.ok()) return fail(scale.status().to_string());
  auto plan = wick::image::plan_tiles(image->width, image->height, tile->first, tile->second, o.overlap, o.margin);
  if (!plan.ok()) return fail(plan.status().to_string());
  std::printf("load      %9.1f ms  %s\n", ms_since(t0), o.model.c_str());

  t0 = Clock::now();
  auto method = (*program)->load_method("forward");
  if (!method.ok()) return fail(method.status().to_string());
  std::printf("init      %9.1f ms  backend %s (delegate setup: pipelines, weights)\n", ms_since(t0),
              o.backend.c_str());

  if (plan->count() > 1)
    std::printf("tiles     %zu of %dx%d (%zu x %zu), overlap %d, margin %d\n", plan->count(), plan->tile_w,
                plan->tile_h, plan->xs.size(), plan->ys.size(), plan->overlap, plan->margin);
  else if (plan->tile_w != image->width || plan->tile_h != image->height)
    std::printf("tiles     1 of %dx%d, the image padded by repeating its edge pixels\n", plan->tile_w, plan->tile_h);
  wick::Result<wick::image::FloatImage> upscaled = wick::Status(wick::ErrorCode::kInternal, "not run");
  for (int r = 0; r < o.runs; ++r) {
    t0 = Clock::now();
    upscaled = wick::image::upscale_tiled(*image, *plan, *scale, [&](const wick::image::TileInput& t) {
      return run_tile(**method, t, *scale);
    });
    if (!upscaled.ok()) return fail(upscaled.status().to_string());
    std::printf("forward   %9.1f ms  run %d of %d\n", ms_since(t0), r + 1, o.runs);
  }
  if (o.profile) wick::cli::print_profile();  // the last tile's dispatches

  t0 = Clock::now();
  const wick::image::RgbImage result = wick::image::to_rgb8(*upscaled);
  wick::Status written = wick::image::write_png(o.output, result);
  if (!written.ok()) return fail(written.to_string());
  std::printf("write     %9.1f ms  %s (%dx%d, x%d)\n", ms_since(t0), o.output.c_str(), result.width,
              result.height, *scale);

  if (!o.reference.empty()) {
    auto ref = wick::image::read_png(o.reference);
    if (!ref.ok()) return fail(ref.status().to_string());
    if (ref->width != result.width || ref->height != result.height)
      return fail(o.reference + " is " + std::to_string(ref->width) + "x" + std::to_string(ref->height) +
                  ", the result " + std::to_string(result.width) + "x" + std::to_string(result.height));
    int max_diff = 0;
    size_t differing = 0;
    for (size_t i = 0; i < ref->pixels.size(); ++i) {
      int d = std::abs(int(ref->pixels[i]) - int(result.pixels[i]));
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
