// Randomized test of et_vk.linear_qcs4w (ops/quantized) against the semantics of the graph
// ExecuTorch's fuse_quantized_ops.py replaces: linear(x, dequantize_per_channel(q, scales))
// with q in [-8, 7], packed (q + 8) with even k in the high nibble (pack_4bit_weight_tensor,
// odd K padded with a zero). Odd K, odd N, M > 1 and a live M below the bound; 1e-4 relative.
#include <gtest/gtest.h>

#include <cmath>

#include "single_op.h"

namespace wick {
namespace {

TEST(WebGpuLinearQcs4w, MatchesDequantizedLinear) {
  std::mt19937 rng(5);
  struct Cfg {
    std::vector<int64_t> in_max, in_live;
    int64_t n;
  };
  for (const Cfg& c : {Cfg{{1, 64}, {1, 64}, 37}, Cfg{{3, 5, 33}, {3, 5, 33}, 9}, Cfg{{8, 48}, {2, 48}, 16}}) {
    const int64_t k = c.in_max.back(), n = c.n, kp = (k + 1) / 2;
    std::uniform_int_distribution<int> qd(-8, 7);
    std::vector<int> q(static_cast<size_t>(n * k));
    for (int& v : q) v = qd(rng);
    Tensor w = Tensor::make_owned(ScalarType::kByte, {n, kp});
    for (int64_t r = 0; r < n; ++r)
      for (int64_t j = 0; j < kp; ++j) {
        const int even = q[static_cast<size_t>(r * k + 2 * j)];
        const int odd = 2 * j + 1 < k ? q[static_cast<size_t>(r * k + 2 * j + 1)] : 0;
        w.data_as<uint8_t>()[r * kp + j] = static_cast<uint8_t>(((even + 8) << 4) | (odd + 8));
      }
    Tensor scales = test::random_tensor(ScalarType::kFloat, {n}, rng, 0.01, 0.1);
    Tensor x = test::random_tensor(ScalarType::kFloat, c.in_live, rng);
    test::VkGraphBuilder b;
    int in = b.input(ScalarType::kFloat, c.in_max);
    std::vector<int64_t> os = c.in_max;
    os.back() = n;
    int out = b.tensor(ScalarType::kFloat, os);
    b.op("et_vk.linear_qcs4w.default", {in, b.constant(w), b.constant(scales), out});
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
        double acc = 0;
        for (int64_t e = 0; e < k; ++e)
          acc += double(x.data_as<float>()[row * k + e]) * q[static_cast<size_t>(col * k + e)] * scales.data_as<float>()[col];
        ASSERT_NEAR(got.data_as<float>()[row * n + col], acc, 1e-4 + 1e-4 * std::fabs(acc)) << "(" << row << ", " << col << ")";
      }
  }
}

TEST(WebGpuLinearQcs4w, WeightOfWrongWidthIsNamed) {
  test::VkGraphBuilder b;
  int in = b.input(ScalarType::kFloat, {1, 64});
  int out = b.tensor(ScalarType::kFloat, {1, 8});
  b.op("et_vk.linear_qcs4w.default", {in, b.constant(Tensor::make_owned(ScalarType::kByte, {8, 16})),
                                      b.constant(Tensor::make_owned(ScalarType::kFloat, {8})), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1, 64}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("does not hold"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace wick
