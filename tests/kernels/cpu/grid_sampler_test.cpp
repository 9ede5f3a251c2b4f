#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

// Reference sampler in double. Reflection folds by repeated mirroring instead of
// fmod, bilinear uses tent weights max(0, 1 - |d|) over a 2x2 window.
double fold(double x, double lo, double hi) {
  if (hi == lo) return 0;
  while (x < lo || x > hi) x = x < lo ? 2 * lo - x : 2 * hi - x;
  return x;
}
double pad_coord(double x, int64_t size, int padding, bool align) {
  if (padding == 1) return std::clamp(x, 0.0, static_cast<double>(size - 1));
  if (padding == 2) {
    x = align ? fold(x, 0, static_cast<double>(size - 1)) : fold(x, -0.5, static_cast<double>(size) - 0.5);
    return std::clamp(x, 0.0, static_cast<double>(size - 1));
  }
  return x;
}
double unnorm(double g, int64_t size, bool align) {
  return align ? (g + 1) / 2 * static_cast<double>(size - 1) : ((g + 1) * static_cast<double>(size) - 1) / 2;
}
double cubic_w(double d) {  // Keys kernel with a = -0.75
  const double a = -0.75;
  d = std::fabs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

std::vector<double> sample_ref(const std::vector<double>& in, int64_t N, int64_t C, int64_t H, int64_t W,
                               const std::vector<double>& grid, int64_t OH, int64_t OW, int mode, int padding, bool align) {
  std::vector<double> out(static_cast<size_t>(N * C * OH * OW));
  auto px = [&](int64_t n, int64_t c, int64_t y, int64_t x) -> double {
    if (y < 0 || y >= H || x < 0 || x >= W) return 0;
    return in[static_cast<size_t>(((n * C + c) * H + y) * W + x)];
  };
  for (int64_t n = 0; n < N; ++n)
    for (int64_t p = 0; p < OH * OW; ++p) {
      const double gx = grid[static_cast<size_t>((n * OH * OW + p) * 2)], gy = grid[static_cast<size_t>((n * OH * OW + p) * 2 + 1)];
      for (int64_t c = 0; c < C; ++c) {
        double v = 0;
        if (mode == 2) {
          const double ix = unnorm(gx, W, align), iy = unnorm(gy, H, align);
          const double fx = std::floor(ix), fy = std::floor(iy);
          for (int j = -1; j <= 2; ++j)
            for (int i = -1; i <= 2; ++i) {
              const double tx = pad_coord(fx + i, W, padding, align), ty = pad_coord(fy + j, H, padding, align);
              v += cubic_w(ix - (fx + i)) * cubic_w(iy - (fy + j)) *
                   px(n, c, static_cast<int64_t>(ty), static_cast<int64_t>(tx));
            }
        } else {
          const double ix = pad_coord(unnorm(gx, W, align), W, padding, align);
          const double iy = pad_coord(unnorm(gy, H, align), H, padding, align);
          if (mode == 1) {
            v = px(n, c, static_cast<int64_t>(std::nearbyint(iy)), static_cast<int64_t>(std::nearbyint(ix)));
          } else {
            for (int64_t y = static_cast<int64_t>(std::floor(iy)); y <= static_cast<int64_t>(std::floor(iy)) + 1; ++y)
              for (int64_t x = static_cast<int64_t>(std::floor(ix)); x <= static_cast<int64_t>(std::floor(ix)) + 1; ++x)
                v += std::max(0.0, 1 - std::fabs(ix - static_cast<double>(x))) *
                     std::max(0.0, 1 - std::fabs(iy - static_cast<double>(y))) * px(n, c, y, x);
          }
        }
        out[static_cast<size_t>(((n * C + c) * OH) * OW + p)] = v;
      }
    }
  return out;
}

Status run(Harness& h, int32_t in, int32_t grid, int mode, int padding, bool align, int32_t out) {
  return h.call("aten::grid_sampler_2d.out", {in, grid, h.i(mode), h.i(padding), h.b(align), out, out});
}

TEST(CpuGridSamplerKernel, HandComputedCorners) {
  Harness h;
  int32_t in = h.tensor(ScalarType::kFloat, {1, 1, 2, 2}, {1, 2, 3, 4});
  int32_t grid = h.tensor(ScalarType::kFloat, {1, 1, 2, 2}, {0, 0, -1, -1});
  int32_t out = h.tensor(ScalarType::kFloat, {1, 1, 1, 2});
  ASSERT_TRUE(run(h, in, grid, 0, 0, false, out).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{2.5, 0.25}));  // centre; corner edge sees 1/4 of a pixel
  ASSERT_TRUE(run(h, in, grid, 0, 0, true, out).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{2.5, 1}));  // corner pixel centre
  ASSERT_TRUE(run(h, in, grid, 0, 1, false, out).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{2.5, 1}));
  ASSERT_TRUE(run(h, in, grid, 0, 2, false, out).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{2.5, 1}));
  int32_t g2 = h.tensor(ScalarType::kFloat, {1, 1, 1, 2}, {0.1, -0.1});
  int32_t o2 = h.tensor(ScalarType::kFloat, {1, 1, 1, 1});
  ASSERT_TRUE(run(h, in, g2, 1, 0, false, o2).ok());
  EXPECT_EQ(h.data(o2)[0], 2);
}

TEST(CpuGridSamplerKernel, AllModesMatchReference) {
  const int64_t N = 2, C = 3, H = 5, W = 7, OH = 4, OW = 6;
  for (int mode = 0; mode < 3; ++mode)
    for (int padding = 0; padding < 3; ++padding)
      for (bool align : {false, true}) {
        Harness h;
        auto x = random_values(N * C * H * W, -1, 1, 100);
        auto g = random_values(N * OH * OW * 2, -1.6, 1.6, 101);  // some samples fall outside
        int32_t in = h.tensor(ScalarType::kDouble, {N, C, H, W}, x);
        int32_t grid = h.tensor(ScalarType::kDouble, {N, OH, OW, 2}, g);
        int32_t out = h.tensor(ScalarType::kDouble, {N, C, OH, OW});
        ASSERT_TRUE(run(h, in, grid, mode, padding, align, out).ok());
        SCOPED_TRACE("mode " + std::to_string(mode) + " padding " + std::to_string(padding) + " align " + std::to_string(align));
        expect_near_all(h.data(out), sample_ref(x, N, C, H, W, g, OH, OW, mode, padding, align), 1e-9);
      }
}

TEST(CpuGridSamplerKernel, DfineShapeFloat32) {
  Harness h;  // demos/dfine_tiny: input [2,16,16,16], grid [2,100,3,2], zeros, align_corners False
  auto x = as_float32(random_values(2 * 16 * 16 * 16, -1, 1, 102));
  auto g = as_float32(random_values(2 * 100 * 3 * 2, -1.1, 1.1, 103));
  int32_t in = h.tensor(ScalarType::kFloat, {2, 16, 16, 16}, x);
  int32_t grid = h.tensor(ScalarType::kFloat, {2, 100, 3, 2}, g);
  int32_t out = h.tensor(ScalarType::kFloat, {2, 16, 100, 3});
  ASSERT_TRUE(run(h, in, grid, 0, 0, false, out).ok());
  expect_near_all(h.data(out), sample_ref(x, 2, 16, 16, 16, g, 100, 3, 0, 0, false), 1e-5);
}

TEST(CpuGridSamplerKernel, NonFiniteGridGivesZeros) {
  Harness h;
  int32_t in = h.tensor(ScalarType::kFloat, {1, 1, 2, 2}, {1, 2, 3, 4});
  int32_t grid = h.tensor(ScalarType::kFloat, {1, 1, 2, 2}, {std::nan(""), 0, INFINITY, 1e30});
  int32_t out = h.tensor(ScalarType::kFloat, {1, 1, 1, 2});
  for (int mode = 0; mode < 2; ++mode)
    for (int padding = 0; padding < 3; ++padding) ASSERT_TRUE(run(h, in, grid, mode, padding, false, out).ok());
  ASSERT_TRUE(run(h, in, grid, 0, 0, false, out).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0, 0}));
}

TEST(CpuGridSamplerKernel, Errors) {
  Harness h;
  const char* op = "aten::grid_sampler_2d.out";
  int32_t in = h.tensor(ScalarType::kFloat, {1, 1, 2, 2});
  int32_t grid = h.tensor(ScalarType::kFloat, {1, 1, 2, 2});
  int32_t out = h.tensor(ScalarType::kFloat, {1, 1, 1, 2});
  EXPECT_OP_ERROR(run(h, in, grid, 3, 0, false, out), op);
  EXPECT_OP_ERROR(run(h, in, grid, 0, 3, false, out), op);
  EXPECT_OP_ERROR(run(h, in, h.tensor(ScalarType::kFloat, {1, 1, 2, 3}), 0, 0, false, out), op);
  EXPECT_OP_ERROR(run(h, in, h.tensor(ScalarType::kFloat, {2, 1, 2, 2}), 0, 0, false, out), op);
  EXPECT_OP_ERROR(run(h, in, h.tensor(ScalarType::kDouble, {1, 1, 2, 2}), 0, 0, false, out), op);
  EXPECT_OP_ERROR(run(h, h.tensor(ScalarType::kFloat, {1, 2, 2}), grid, 0, 0, false, out), op);
  EXPECT_OP_ERROR(run(h, h.tensor(ScalarType::kFloat, {1, 1, 0, 2}), grid, 0, 0, false, out), op);
}

}  // namespace
}  // namespace wick::cpu::testing
