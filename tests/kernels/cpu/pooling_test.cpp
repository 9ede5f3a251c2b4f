#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

TEST(CpuPoolingKernel, MaxPoolWithIndices) {
  Harness h;
  // 4x4 plane 0..15, kernel 2, stride 2: maxima at the bottom-right of each window.
  int32_t x = h.tensor(ScalarType::kFloat, {1, 1, 4, 4}, iota(16));
  int32_t out = h.tensor(ScalarType::kFloat, {1, 1, 2, 2}), idx = h.tensor(ScalarType::kLong, {1, 1, 2, 2});
  ASSERT_TRUE(h.call("aten::max_pool2d_with_indices.out", {x, h.int_list({2, 2}), h.int_list({}), h.int_list({0}),
                                                           h.int_list({1}), h.b(false), out, idx, h.tensor_list({out, idx})})
                  .ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{5, 7, 13, 15}));
  EXPECT_EQ(h.data(idx), (std::vector<double>{5, 7, 13, 15}));
  // kernel 3, stride 2, padding 1, ceil_mode on a 5x5 plane: 3x3 output.
  int32_t y = h.tensor(ScalarType::kFloat, {2, 5, 5}, random_values(50, -1, 1, 150));
  int32_t o2 = h.tensor(ScalarType::kFloat, {2, 3, 3}), i2 = h.tensor(ScalarType::kLong, {2, 3, 3});
  ASSERT_TRUE(h.call("aten::max_pool2d_with_indices.out", {y, h.int_list({3}), h.int_list({2}), h.int_list({1}),
                                                           h.int_list({1}), h.b(true), o2, i2, h.tensor_list({o2, i2})})
                  .ok());
  auto yv = as_float32(h.data(y)), ov = h.data(o2), iv = h.data(i2);
  for (int p = 0; p < 2; ++p)
    for (int oh = 0; oh < 3; ++oh)
      for (int ow = 0; ow < 3; ++ow) {
        double best = -INFINITY;
        for (int ih = oh * 2 - 1; ih <= oh * 2 + 1; ++ih)
          for (int iw = ow * 2 - 1; iw <= ow * 2 + 1; ++iw)
            if (ih >= 0 && ih < 5 && iw >= 0 && iw < 5) best = std::max(best, yv[static_cast<size_t>(p * 25 + ih * 5 + iw)]);
        const size_t k = static_cast<size_t>(p * 9 + oh * 3 + ow);
        ASSERT_EQ(ov[k], best);
        ASSERT_EQ(yv[static_cast<size_t>(p * 25 + static_cast<int>(iv[k]))], best);
      }
  EXPECT_OP_ERROR(h.call("aten::max_pool2d_with_indices.out", {y, h.int_list({3}), h.int_list({2}), h.int_list({2}),
                                                               h.int_list({1}), h.b(true), o2, i2, h.tensor_list({o2, i2})}),
                  "aten::max_pool2d_with_indices.out");  // padding > kernel/2
}

TEST(CpuPoolingKernel, AvgPoolPaddingModes) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  int32_t out = h.tensor(ScalarType::kFloat, {1, 1, 2, 2});
  // kernel 2, stride 2, padding 1: windows see 1, 2 or 4 real pixels.
  ASSERT_TRUE(h.call("aten::avg_pool2d.out", {x, h.int_list({2, 2}), h.int_list({2, 2}), h.int_list({1, 1}), h.b(false),
                                             h.b(true), h.none(), out, out})
                  .ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0.25, 1.25, 2.75, 7.0}));
  ASSERT_TRUE(h.call("aten::avg_pool2d.out", {x, h.int_list({2, 2}), h.int_list({2, 2}), h.int_list({1, 1}), h.b(false),
                                             h.b(false), h.none(), out, out})
                  .ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{1, 2.5, 5.5, 7}));
  ASSERT_TRUE(h.call("aten::avg_pool2d.out", {x, h.int_list({2, 2}), h.int_list({2, 2}), h.int_list({1, 1}), h.b(false),
                                             h.b(true), h.i(1), out, out})
                  .ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{1, 5, 11, 28}));
}

TEST(CpuPoolingKernel, AdaptiveAvgPool) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {1, 1, 3, 5}, iota(15));
  int32_t out = h.tensor(ScalarType::kFloat, {1, 1, 2, 2});
  ASSERT_TRUE(h.call("aten::_adaptive_avg_pool2d.out", {x, h.int_list({2, 2}), out, out}).ok());
  // rows [0,2) and [1,3); cols [0,3) and [2,5)
  auto mean = [](std::initializer_list<double> v) { return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()); };
  expect_near_all(h.data(out), {mean({0, 1, 2, 5, 6, 7}), mean({2, 3, 4, 7, 8, 9}), mean({5, 6, 7, 10, 11, 12}),
                                mean({7, 8, 9, 12, 13, 14})},
                  1e-6);
  int32_t g = h.tensor(ScalarType::kFloat, {1, 1, 1, 1});
  ASSERT_TRUE(h.call("aten::_adaptive_avg_pool2d.out", {x, h.int_list({1, 1}), g, g}).ok());
  EXPECT_EQ(h.data(g)[0], 7);
}

TEST(CpuUpsampleKernel, Nearest) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {1, 1, 2, 3}, iota(6));
  int32_t out = h.tensor(ScalarType::kFloat, {1, 1, 4, 6});
  Value scales;
  scales.tag = ValueTag::kListDouble;
  scales.doubles = {2.0, 2.0};
  int32_t sc = h.add(scales);
  ASSERT_TRUE(h.call("aten::upsample_nearest2d.vec_out", {x, h.none(), sc, out, out}).ok());
  const std::vector<double> doubled = {0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 3, 3, 4, 4, 5, 5};
  EXPECT_EQ(h.data(out), doubled);
  int32_t out_b = h.tensor(ScalarType::kFloat, {1, 1, 4, 6});
  ASSERT_TRUE(h.call("aten::upsample_nearest2d.vec_out", {x, h.int_list({4, 6}), h.none(), out_b, out_b}).ok());
  EXPECT_EQ(h.data(out_b), doubled);
  int32_t o2 = h.tensor(ScalarType::kFloat, {1, 1, 3, 2});
  ASSERT_TRUE(h.call("aten::upsample_nearest2d.vec_out", {x, h.int_list({3, 2}), h.none(), o2, o2}).ok());
  // rows: floor(i * 2/3) = 0,0,1; cols: floor(j * 3/2) = 0,1
  EXPECT_EQ(h.data(o2), (std::vector<double>{0, 1, 0, 1, 3, 4}));
  EXPECT_OP_ERROR(h.call("aten::upsample_nearest2d.vec_out", {x, h.int_list({3, 2}), sc, o2, o2}),
                  "aten::upsample_nearest2d.vec_out");
}

TEST(CpuUpsampleKernel, Bilinear) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {1, 1, 2, 2}, {0, 1, 2, 3});
  int32_t out = h.tensor(ScalarType::kFloat, {1, 1, 3, 3});
  ASSERT_TRUE(h.call("aten::upsample_bilinear2d.vec_out", {x, h.int_list({3, 3}), h.b(true), h.none(), out, out}).ok());
  expect_near_all(h.data(out), {0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3}, 1e-6);
  int32_t o4 = h.tensor(ScalarType::kFloat, {1, 1, 4, 4});
  ASSERT_TRUE(h.call("aten::upsample_bilinear2d.vec_out", {x, h.int_list({4, 4}), h.b(false), h.none(), o4, o4}).ok());
  // align_corners=False, scale 0.5: source coords 0, 0.25, 0.75, 1 (clamped at the edges).
  const double c[4] = {0, 0.25, 0.75, 1};
  std::vector<double> want;
  for (double r : c)
    for (double q : c) want.push_back(2 * r + q);
  expect_near_all(h.data(o4), want, 1e-6);
}

TEST(CpuBinaryKernel, MaskedFill) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  int32_t m = h.tensor(ScalarType::kBool, {3}, {1, 0, 1});
  int32_t out = h.tensor(ScalarType::kFloat, {2, 3});
  ASSERT_TRUE(h.call("aten::masked_fill.Scalar_out", {x, m, h.d(-INFINITY), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{-INFINITY, 2, -INFINITY, -INFINITY, 5, -INFINITY}));
  int32_t fm = h.tensor(ScalarType::kFloat, {3});
  EXPECT_OP_ERROR(h.call("aten::masked_fill.Scalar_out", {x, fm, h.d(0), out, out}), "aten::masked_fill.Scalar_out");
}

}  // namespace
}  // namespace wick::cpu::testing
