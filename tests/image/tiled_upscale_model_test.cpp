// Overlapped tiling (src/image/tiling.h) with the real ESRGAN-slim, in floats: the fixed
// 64x64 program (pretrained/esrgan_slim_x4), run tile by tile on a 128x128 photo
// with the default overlap (24) and margin (10), must give the whole-image result. The
// whole-image result is the PyTorch reference of the dynamic-shape fixture
// (pretrained/esrgan_slim_x4_dynamic, case 1: face128, one 128x128 run, fp32 eager), which
// the dynamic program matches in delegate_fixtures_test; comparing with the reference
// rather than running the dynamic program again saves its 128x128 run.
//
// On the CPU executor of VK00 graphs (src/vkcpu): tiling is host code, and the delegate's
// own numbers are checked per fixture on every executor (delegate_fixtures_test on
// WebGPU, cpu_delegate_fixtures_test here). On SwiftShader the 9 tile forwards cost ~80 s
// of CI time; here about a second.
// 128x128 is the largest image both programs take whole (the dynamic one is bounded at
// 128); with 64x64 tiles it has inner tile edges in both directions (3 x 3 tiles).
//
// Tolerance: the fixture's own (atol 1e-2 + rtol 1e-3 on the 0..255 scale). It holds only
// because margin 10 >= the network's receptive-field radius: in input pixels, 8 3x3
// convolutions and one 5x5 before the 4x upsample (radius 1+1+1+1+1+2+1+1 = 9 on the
// longest path) plus the 3x3 convolution after it (one more input pixel): 10. Each tile's
// kept output then sees no tile-edge zero padding, and the blend averages equal values.
// With margin 4 the seams show (checked below), so the tolerance is not loose.
#include <gtest/gtest.h>

#include <cmath>

#include "image/tiling.h"
#include "runtime/program.h"
#include "test_util.h"
#include "backends/choice.h"

namespace wick {
namespace {

using image::TileInput;

Result<std::vector<float>> run_tile(Method& method, const TileInput& t) {
  Tensor x = Tensor::make_owned(ScalarType::kFloat, {1, 3, t.h, t.w});
  std::copy(t.chw.begin(), t.chw.end(), x.data_as<float>());
  WICK_ASSIGN_OR_RETURN(std::vector<Value> out, method.forward({Value::make_tensor(std::move(x))}));
  const float* p = out[0].tensor.data_as<float>();
  return std::vector<float>(p, p + out[0].tensor.numel());
}

TEST(TiledUpscale, FixedTilesMatchTheWholeImageReference) {
  auto choice = use_backend(DelegateTarget::kCpu);
  ASSERT_TRUE(choice.ok()) << choice.status().to_string();
  test::Fixture whole;
  ASSERT_TRUE(test::load_fixture("pretrained/esrgan_slim_x4_dynamic", &whole));
  const Tensor& in = whole.cases[1].inputs[0].tensor;   // [1,3,128,128], integers 0..255
  const Tensor& want = whole.cases[1].outputs[0].tensor;  // [1,3,512,512]
  ASSERT_EQ(in.sizes, (std::vector<int64_t>{1, 3, 128, 128}));
  image::RgbImage img = image::RgbImage::make(128, 128);
  for (int y = 0; y < 128; ++y)
    for (int x = 0; x < 128; ++x)
      for (int c = 0; c < 3; ++c) img.at(x, y)[c] = static_cast<uint8_t>(in.data_as<float>()[(c * 128 + y) * 128 + x]);

  auto program = Program::load_file(test::fixtures_dir() + "/pretrained/esrgan_slim_x4/model.pte");
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto method = (*program)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();

  // The tiles are where the overlap puts them, whatever the margin: each runs once (9
  // forwards), and the second blend reuses their outputs.
  std::vector<std::vector<float>> tile_out(9);
  auto check = [&](int margin, bool expect_match) {
    auto plan = image::plan_tiles(128, 128, 64, 64, 24, margin);
    ASSERT_TRUE(plan.ok());
    ASSERT_EQ(plan->count(), 9u);
    auto out = image::upscale_tiled(img, *plan, 4, [&](const TileInput& t) -> Result<std::vector<float>> {
      if (tile_out[t.index].empty()) {
        WICK_ASSIGN_OR_RETURN(tile_out[t.index], run_tile(**method, t));
      }
      return tile_out[t.index];
    });
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    ASSERT_EQ(out->chw.size(), static_cast<size_t>(want.numel()));
    double worst = 0;  // excess over the tolerance
    size_t bad = 0;
    for (size_t i = 0; i < out->chw.size(); ++i) {
      const double ref = want.data_as<float>()[i], d = std::abs(out->chw[i] - ref);
      const double allowed = whole.atol + whole.rtol * std::abs(ref);
      worst = std::max(worst, d - allowed);
      bad += d > allowed;
    }
    if (expect_match)
      EXPECT_EQ(bad, 0u) << "margin " << margin << ": worst excess over the tolerance " << worst;
    else
      EXPECT_GT(bad, 100u) << "margin " << margin << " should leave seams";
  };
  check(10, true);   // the default for 64x64 tiles
  check(4, false);   // inside the receptive field: not the whole-image result
}

}  // namespace
}  // namespace wick
