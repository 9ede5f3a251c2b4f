// Randomized tests of aten.grid_sampler_2d (ops/sampling) against a CPU computation of
// PyTorch's grid_sampler_2d (bilinear / nearest, zeros / border, align_corners both), within
// 1e-5: the four weighted taps are summed in a different order than in the shader. Grids reach
// beyond [-1, 1] so that padding is exercised.
#include <gtest/gtest.h>

#include <cmath>

#include "single_op.h"

namespace wick {
namespace {

float ref_unnormalize(float g, int64_t size, bool align, bool border) {
  float v = align ? (g + 1) / 2 * static_cast<float>(size - 1) : ((g + 1) * static_cast<float>(size) - 1) / 2;
  if (border) v = std::fmin(std::fmax(v, 0.0f), static_cast<float>(size - 1));
  return v;
}

std::vector<float> ref_grid_sample(const Tensor& in, const Tensor& grid, int mode, bool border, bool align) {
  const int64_t n = in.sizes[0], c = in.sizes[1], h = in.sizes[2], w = in.sizes[3];
  const int64_t ho = grid.sizes[1], wo = grid.sizes[2];
  std::vector<float> out(static_cast<size_t>(n * c * ho * wo));
  const float* src = in.data_as<float>();
  const float* gr = grid.data_as<float>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < ho; ++y)
        for (int64_t x = 0; x < wo; ++x) {
          const float* gp = gr + ((b * ho + y) * wo + x) * 2;
          const float ix = ref_unnormalize(gp[0], w, align, border), iy = ref_unnormalize(gp[1], h, align, border);
          auto at = [&](int64_t yy, int64_t xx) -> float {
            if (xx < 0 || yy < 0 || xx >= w || yy >= h) return 0;
            return src[((b * c + ch) * h + yy) * w + xx];
          };
          float v;
          if (mode == 1) {
            v = at(static_cast<int64_t>(std::nearbyint(iy)), static_cast<int64_t>(std::nearbyint(ix)));
          } else {
            const int64_t x0 = static_cast<int64_t>(std::floor(ix)), y0 = static_cast<int64_t>(std::floor(iy));
            const float tx = ix - x0, ty = iy - y0;
            v = at(y0, x0) * (1 - tx) * (1 - ty) + at(y0, x0 + 1) * tx * (1 - ty) + at(y0 + 1, x0) * (1 - tx) * ty +
                at(y0 + 1, x0 + 1) * tx * ty;
          }
          out[static_cast<size_t>(((b * c + ch) * ho + y) * wo + x)] = v;
        }
  return out;
}

TEST(WebGpuSamplingOps, GridSampler2dModesPaddingsAlignCorners) {
  std::mt19937 rng(41);
  struct Cfg {
    std::vector<int64_t> in, grid;
  };
  for (const Cfg& c : {Cfg{{1, 3, 6, 7}, {1, 4, 5, 2}}, Cfg{{2, 2, 9, 4}, {2, 3, 8, 2}}, Cfg{{1, 1, 1, 5}, {1, 2, 2, 2}}})
    for (int mode : {0, 1})
      for (int padding : {0, 1})
        for (bool align : {false, true}) {
          test::VkGraphBuilder b;
          int x = b.input(ScalarType::kFloat, c.in);
          int g = b.input(ScalarType::kFloat, c.grid);
          std::vector<int64_t> os = {c.in[0], c.in[1], c.grid[1], c.grid[2]};
          int out = b.tensor(ScalarType::kFloat, os);
          b.op("aten.grid_sampler_2d.default", {x, g, b.int_value(mode), b.int_value(padding), b.bool_value(align), out});
          b.output(out);
          Tensor tx = test::random_tensor(ScalarType::kFloat, c.in, rng);
          Tensor tg = test::random_tensor(ScalarType::kFloat, c.grid, rng, -1.3, 1.3);
          auto r = b.run({Value::make_tensor(tx), Value::make_tensor(tg)});
          ASSERT_TRUE(r.ok()) << r.status().to_string();
          const Tensor& got = (*r)[0].tensor;
          ASSERT_EQ(got.sizes, os);
          const std::vector<float> want = ref_grid_sample(tx, tg, mode, padding == 1, align);
          for (size_t i = 0; i < want.size(); ++i)
            ASSERT_NEAR(got.data_as<float>()[i], want[i], 1e-5) << "mode " << mode << " padding " << padding
                                                                << " align " << align << " at " << i;
        }
}

TEST(WebGpuSamplingOps, GridSampler2dBicubicAndReflectionAreNamed) {
  for (auto [mode, padding] : {std::pair{2, 0}, std::pair{0, 2}}) {
    test::VkGraphBuilder b;
    int x = b.input(ScalarType::kFloat, {1, 1, 4, 4});
    int g = b.input(ScalarType::kFloat, {1, 2, 2, 2});
    int out = b.tensor(ScalarType::kFloat, {1, 1, 2, 2});
    b.op("aten.grid_sampler_2d.default", {x, g, b.int_value(mode), b.int_value(padding), b.bool_value(false), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1, 1, 4, 4})),
                    Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1, 2, 2, 2}))});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(mode == 2 ? "interpolation_mode 2" : "padding_mode 2"), std::string::npos)
        << r.status().message();
  }
}

}  // namespace
}  // namespace wick
