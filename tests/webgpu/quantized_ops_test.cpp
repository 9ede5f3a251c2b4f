// Randomized tests of et_vk.linear_q4gsw (ops/quantized) against a CPU dequantize-and-
// multiply reference: the GEMV routes (M == 1: q4gsw_gemv_rows and the general q4gsw_gemv),
// the tiled route (M > 1), odd N, K that is not a multiple of 8, bias, and a live M below
// the serialized bound.
#include <gtest/gtest.h>

#include <cmath>

#include "single_op.h"

namespace wick {
namespace {

struct Q4Case {
  std::vector<int64_t> in_max, in_live;  // [..., K]
  int64_t n, group_size;
  bool bias;
};

TEST(WebGpuQuantizedOp, LinearQ4gswMatchesDequantizedReference) {
  std::mt19937 rng(21);
  const std::vector<Q4Case> cases = {
      {{1, 1, 64}, {1, 1, 64}, 37, 32, false},    // GEMV, aligned words, odd N
      {{1, 5, 64}, {1, 5, 64}, 37, 32, true},     // tiled, odd N, bias
      {{1, 8, 128}, {1, 1, 128}, 70, 32, false},  // live M = 1 below the bound -> GEMV
      {{1, 8, 128}, {1, 8, 128}, 70, 64, true},
      {{3, 36}, {3, 36}, 9, 12, false},           // K % 8 != 0, group 12: byte path
      {{1, 36}, {1, 36}, 9, 12, true},            // same, GEMV
      {{40, 96}, {33, 96}, 65, 32, false},        // several row and column tiles
      {{1, 2048}, {1, 2048}, 130, 32, false},     // long K
      {{70, 200}, {70, 200}, 130, 40, true},      // 2x3 tiles of 64x64, partial K step, bias
      {{65, 64}, {65, 64}, 64, 64, false},        // one row past a tile, N exactly one tile
      // q4gsw_gemv_rows (M == 1, K % 32 == 0, group % 32 == 0): N not a multiple of its 4
      // rows, chunk counts below / above its 64 threads, groups of 64 and 128, N = 1.
      {{1, 2080}, {1, 2080}, 131, 64, true},
      {{1, 96}, {1, 96}, 1, 32, false},
      {{1, 1, 256}, {1, 1, 256}, 4099, 128, true},
      {{1, 4, 4096}, {1, 1, 4096}, 6, 64, false},
      {{1, 48}, {1, 48}, 10, 16, false},          // K % 32 != 0: falls back to q4gsw_gemv
  };
  for (const Q4Case& c : cases) {
    const int64_t k = c.in_max.back(), n = c.n, groups = (k + c.group_size - 1) / c.group_size;
    const int64_t n_pad = (n + 3) / 4 * 4;
    std::uniform_int_distribution<int> qd(-8, 7);
    std::vector<int> q(static_cast<size_t>(n * k));
    for (int& v : q) v = qd(rng);
    Tensor w = test::pack_q4gsw_weight(q, n, k);
    Tensor scales = test::random_tensor(ScalarType::kFloat, {groups, n_pad}, rng, 0.01, 0.1);
    Tensor bias = test::random_tensor(ScalarType::kFloat, {n}, rng);
    Tensor x = test::random_tensor(ScalarType::kFloat, c.in_live, rng);

    test::VkGraphBuilder b;
    int in = b.input(ScalarType::kFloat, c.in_max);
    std::vector<int64_t> out_shape = c.in_max;
    out_shape.back() = n;
    int out = b.tensor(ScalarType::kFloat, out_shape);
    b.op("et_vk.linear_q4gsw.default", {in, b.constant(w), b.constant(scales), b.int_value(c.group_size),
                                        c.bias ? b.constant(bias) : b.none(), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(x)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    const Tensor& got = (*r)[0].tensor;
    std::vector<int64_t> live = c.in_live;
    live.back() = n;
    ASSERT_EQ(got.sizes, live);
    const int64_t m = x.numel() / k;
    for (int64_t row = 0; row < m; ++row)
      for (int64_t col = 0; col < n; ++col) {
        double acc = c.bias ? bias.data_as<float>()[col] : 0.0;
        for (int64_t e = 0; e < k; ++e)
          acc += double(x.data_as<float>()[row * k + e]) * q[static_cast<size_t>(col * k + e)] *
                 scales.data_as<float>()[(e / c.group_size) * n_pad + col];
        ASSERT_NEAR(got.data_as<float>()[row * n + col], acc, 1e-4 + 1e-4 * std::fabs(acc))
            << "K " << k << " N " << n << " M " << m << " at (" << row << ", " << col << ")";
      }
  }
}

TEST(WebGpuQuantizedOp, LinearQ4gswRejectsMismatchedWeight) {
  test::VkGraphBuilder b;
  int in = b.input(ScalarType::kFloat, {1, 64});
  int out = b.tensor(ScalarType::kFloat, {1, 8});
  Tensor w = Tensor::make_owned(ScalarType::kByte, {8, 16});  // covers K = 32 only
  Tensor s = Tensor::make_owned(ScalarType::kFloat, {2, 8});
  b.op("et_vk.linear_q4gsw.default", {in, b.constant(w), b.constant(s), b.int_value(32), b.none(), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1, 64}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("does not cover"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace wick
