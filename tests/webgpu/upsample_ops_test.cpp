// Tests of upsample_nearest2d / upsample_bilinear2d (ops/upsample) against CPU references
// written from PyTorch's index rules (upsample.h: area_pixel_compute_scale,
// area_pixel_compute_source_index, nearest_idx), for odd and non-integer ratios.
#include <gtest/gtest.h>

#include <cmath>

#include "single_op.h"

namespace wick {
namespace {

using Dims = std::vector<int64_t>;

float ref_scale(int64_t in, int64_t out, bool align_corners) {
  if (align_corners) return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
  return static_cast<float>(in) / static_cast<float>(out);
}

int64_t nearest_idx(int64_t o, int64_t in, int64_t out) {
  if (in == out) return o;
  if (out == 2 * in) return o >> 1;
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * scale)), in - 1);
}

Tensor ref_nearest(const Tensor& x, int64_t oh, int64_t ow) {
  const int64_t n = x.sizes[0], c = x.sizes[1], ih = x.sizes[2], iw = x.sizes[3];
  Tensor y = Tensor::make_owned(ScalarType::kFloat, {n, c, oh, ow});
  for (int64_t p = 0; p < n * c; ++p)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox)
        y.data_as<float>()[(p * oh + oy) * ow + ox] =
            x.data_as<float>()[(p * ih + nearest_idx(oy, ih, oh)) * iw + nearest_idx(ox, iw, ow)];
  return y;
}

Tensor ref_bilinear(const Tensor& x, int64_t oh, int64_t ow, bool align) {
  const int64_t n = x.sizes[0], c = x.sizes[1], ih = x.sizes[2], iw = x.sizes[3];
  Tensor y = Tensor::make_owned(ScalarType::kFloat, {n, c, oh, ow});
  const float sh = ref_scale(ih, oh, align), sw = ref_scale(iw, ow, align);
  auto src = [&](float scale, int64_t o) {
    return align ? scale * static_cast<float>(o) : std::max(scale * (static_cast<float>(o) + 0.5f) - 0.5f, 0.0f);
  };
  for (int64_t p = 0; p < n * c; ++p)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox) {
        const float ry = src(sh, oy), rx = src(sw, ox);
        const int64_t y0 = static_cast<int64_t>(ry), x0 = static_cast<int64_t>(rx);
        const int64_t y1 = y0 + (y0 < ih - 1 ? 1 : 0), x1 = x0 + (x0 < iw - 1 ? 1 : 0);
        const float ly = std::clamp(ry - static_cast<float>(y0), 0.0f, 1.0f);
        const float lx = std::clamp(rx - static_cast<float>(x0), 0.0f, 1.0f);
        const float* b = x.data_as<float>() + p * ih * iw;
        y.data_as<float>()[(p * oh + oy) * ow + ox] =
            (1 - ly) * ((1 - lx) * b[y0 * iw + x0] + lx * b[y0 * iw + x1]) +
            ly * ((1 - lx) * b[y1 * iw + x0] + lx * b[y1 * iw + x1]);
      }
  return y;
}

struct UpsampleCase {
  Dims in;
  int64_t oh, ow;
};

const std::vector<UpsampleCase>& cases() {
  static const std::vector<UpsampleCase> c = {
      {{1, 3, 4, 5}, 8, 10}, {{2, 2, 3, 3}, 7, 5}, {{1, 1, 1, 1}, 3, 4}, {{1, 4, 9, 7}, 4, 3},
      {{1, 2, 5, 6}, 5, 6},  {{3, 1, 2, 7}, 6, 21}, {{1, 1, 17, 1}, 40, 1},
  };
  return c;
}

TEST(WebGpuUpsampleOp, NearestMatchesPyTorchIndexRule) {
  std::mt19937 rng(21);
  for (const UpsampleCase& c : cases()) {
    Tensor x = test::random_tensor(ScalarType::kFloat, c.in, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, c.in);
    Dims out_shape = {c.in[0], c.in[1], c.oh, c.ow};
    int out = b.tensor(ScalarType::kFloat, out_shape);
    b.op("aten.upsample_nearest2d.vec", {xi, b.int_list({c.oh, c.ow}), b.none(), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(x)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    Tensor want = ref_nearest(x, c.oh, c.ow);
    const Tensor& got = (*r)[0].tensor;
    ASSERT_EQ(got.sizes, out_shape);
    for (int64_t i = 0; i < got.numel(); ++i)
      ASSERT_EQ(got.data_as<float>()[i], want.data_as<float>()[i]) << shape_to_string(c.in) << " at " << i;
  }
}

TEST(WebGpuUpsampleOp, BilinearAlignCornersBothWays) {
  std::mt19937 rng(22);
  for (bool align : {false, true}) {
    for (const UpsampleCase& c : cases()) {
      Tensor x = test::random_tensor(ScalarType::kFloat, c.in, rng);
      test::VkGraphBuilder b;
      int xi = b.input(ScalarType::kFloat, c.in);
      Dims out_shape = {c.in[0], c.in[1], c.oh, c.ow};
      int out = b.tensor(ScalarType::kFloat, out_shape);
      b.op("aten.upsample_bilinear2d.vec", {xi, b.int_list({c.oh, c.ow}), b.bool_value(align), b.none(), out});
      b.output(out);
      auto r = b.run({Value::make_tensor(x)});
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      Tensor want = ref_bilinear(x, c.oh, c.ow, align);
      const Tensor& got = (*r)[0].tensor;
      ASSERT_EQ(got.sizes, out_shape);
      for (int64_t i = 0; i < got.numel(); ++i)
        ASSERT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-5)
            << shape_to_string(c.in) << " align " << align << " at " << i;
    }
  }
}

TEST(WebGpuUpsampleOp, DynamicInputKeepsTheRatioWithoutSizeOrScales) {
  // Neither output_size nor scale_factors: the bound ratio (x2) applies to the live input.
  std::mt19937 rng(23);
  Tensor x = test::random_tensor(ScalarType::kFloat, {1, 2, 3, 5}, rng);
  test::VkGraphBuilder b;
  int xi = b.input(ScalarType::kFloat, {1, 2, 8, 8});
  int out = b.tensor(ScalarType::kFloat, {1, 2, 16, 16});
  b.op("aten.upsample_nearest2d.vec", {xi, b.none(), b.none(), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(x)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  Tensor want = ref_nearest(x, 6, 10);
  const Tensor& got = (*r)[0].tensor;
  ASSERT_EQ(got.sizes, (Dims{1, 2, 6, 10}));
  for (int64_t i = 0; i < got.numel(); ++i) ASSERT_EQ(got.data_as<float>()[i], want.data_as<float>()[i]) << i;
}

TEST(WebGpuUpsampleOp, RejectsNon4DInput) {
  test::VkGraphBuilder b;
  int xi = b.input(ScalarType::kFloat, {2, 4, 4});
  int out = b.tensor(ScalarType::kFloat, {2, 8, 8});
  b.op("aten.upsample_bilinear2d.vec", {xi, b.int_list({8, 8}), b.bool_value(false), b.none(), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {2, 4, 4}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("aten.upsample_bilinear2d.vec"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace wick
