// Randomized test of et_vk.linear_dq8ca_q4gsw (ops/quantized) against torchao's 8da4w
// semantics: each row x[m] quantized as clamp(round(x * (1 / s[m])) + zp[m], -128, 127)
// (torchao quantize_affine), dequantized ((q - zp) * s), then linear with the q4gsw weight
// (ExecuTorch's linear_q4gsw dequantization). Row scales are powers of two so that 1 / s
// is exact on any GPU and no rounding tie flips; values reach past the int8 range so the
// clamp counts. Bias and no bias, M = 1 and M > 1, odd N, a live M below the bound; 1e-4.
#include <gtest/gtest.h>

#include <cmath>

#include "single_op.h"

namespace wick {
namespace {

TEST(WebGpuLinearDq8caQ4gsw, MatchesQuantizeDequantizeLinear) {
  std::mt19937 rng(13);
  struct Cfg {
    std::vector<int64_t> in_max, in_live;
    int64_t n, group_size;
    bool bias;
  };
  for (const Cfg& c : {Cfg{{1, 64}, {1, 64}, 37, 32, true}, Cfg{{4, 96}, {3, 96}, 10, 32, false},
                       Cfg{{2, 1, 48}, {2, 1, 48}, 8, 16, true}}) {
    const int64_t k = c.in_max.back(), n = c.n, groups = (k + c.group_size - 1) / c.group_size;
    const int64_t n_pad = (n + 3) / 4 * 4, m_max = shape_numel(c.in_max) / k;
    std::uniform_int_distribution<int> qd(-8, 7), zpd(-20, 20), ed(3, 6), kd(-150, 150);
    std::uniform_real_distribution<float> fd(-0.4f, 0.4f);
    std::vector<int> q(static_cast<size_t>(n * k));
    for (int& v : q) v = qd(rng);
    Tensor w = test::pack_q4gsw_weight(q, n, k);
    Tensor wscales = test::random_tensor(ScalarType::kFloat, {groups, n_pad}, rng, 0.01, 0.1);
    Tensor bias = test::random_tensor(ScalarType::kFloat, {n}, rng);
    Tensor x = Tensor::make_owned(ScalarType::kFloat, c.in_live);
    const int64_t m = x.numel() / k;
    Tensor s = Tensor::make_owned(ScalarType::kFloat, {m_max});
    Tensor zp = Tensor::make_owned(ScalarType::kChar, {m_max});
    for (int64_t r = 0; r < m_max; ++r) {
      s.data_as<float>()[r] = std::ldexp(1.0f, -ed(rng));
      zp.data_as<int8_t>()[r] = static_cast<int8_t>(zpd(rng));
    }
    for (int64_t r = 0; r < m; ++r)
      for (int64_t e = 0; e < k; ++e)
        x.data_as<float>()[r * k + e] = (static_cast<float>(kd(rng)) + fd(rng)) * s.data_as<float>()[r];

    test::VkGraphBuilder b;
    int in = b.input(ScalarType::kFloat, c.in_max);
    int sin = b.input(ScalarType::kFloat, {m_max});
    int zin = b.input(ScalarType::kChar, {m_max});
    std::vector<int64_t> os = c.in_max;
    os.back() = n;
    int out = b.tensor(ScalarType::kFloat, os);
    Tensor sums = Tensor::make_owned(ScalarType::kInt, {groups, n});
    b.op("et_vk.linear_dq8ca_q4gsw.default", {in, sin, zin, b.constant(w), b.constant(sums), b.constant(wscales),
                                              b.int_value(c.group_size), c.bias ? b.constant(bias) : b.none(), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(x), Value::make_tensor(s), Value::make_tensor(zp)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    const Tensor& got = (*r)[0].tensor;
    std::vector<int64_t> live = c.in_live;
    live.back() = n;
    ASSERT_EQ(got.sizes, live);
    for (int64_t row = 0; row < m; ++row) {
      const float sc = s.data_as<float>()[row], z = zp.data_as<int8_t>()[row];
      for (int64_t col = 0; col < n; ++col) {
        double acc = c.bias ? bias.data_as<float>()[col] : 0.0;
        for (int64_t e = 0; e < k; ++e) {
          const float xq = std::fmin(std::fmax(std::nearbyint(x.data_as<float>()[row * k + e] * (1.0f / sc)) + z, -128.0f), 127.0f);
          acc += double((xq - z) * sc) * q[static_cast<size_t>(col * k + e)] *
                 wscales.data_as<float>()[(e / c.group_size) * n_pad + col];
        }
        ASSERT_NEAR(got.data_as<float>()[row * n + col], acc, 1e-4 + 1e-4 * std::fabs(acc))
            << "K " << k << " N " << n << " at (" << row << ", " << col << ")";
      }
    }
  }
}

TEST(WebGpuLinearDq8caQ4gsw, TooFewRowScalesAreNamed) {
  test::VkGraphBuilder b;
  int in = b.input(ScalarType::kFloat, {4, 32});
  int sin = b.input(ScalarType::kFloat, {2});
  int zin = b.input(ScalarType::kChar, {2});
  int out = b.tensor(ScalarType::kFloat, {4, 8});
  b.op("et_vk.linear_dq8ca_q4gsw.default",
       {in, sin, zin, b.constant(Tensor::make_owned(ScalarType::kByte, {8, 16})),
        b.constant(Tensor::make_owned(ScalarType::kInt, {1, 8})), b.constant(Tensor::make_owned(ScalarType::kFloat, {1, 8})),
        b.int_value(32), b.none(), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {4, 32})),
                  Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {2})),
                  Value::make_tensor(Tensor::make_owned(ScalarType::kChar, {2}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("fewer than"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace wick
