// Randomized tests of the other int8 ops of ops/q8ta and of et_vk.q4gsw_requant against their
// definitions in ExecuTorch's custom_ops_lib.py (see q8ta_reference.h for the int8 rule):
// q8ta_linear / _gemv / linear_q8ta_q8csw (dequantize -> linear -> relu -> quantize, or the
// f32 result), q8ta_add with alpha, q8ta_relu, q8ta_pixel_shuffle with and without a
// requantization, q4gsw_requant (codes exact away from rounding ties).
#include <gtest/gtest.h>

#include "q8ta_reference.h"
#include "single_op.h"

namespace wick {
namespace {

Tensor random_int8(std::vector<int64_t> shape, std::mt19937& rng, int lo = -128, int hi = 127) {
  std::uniform_int_distribution<int> d(lo, hi);
  Tensor t = Tensor::make_owned(ScalarType::kChar, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<int8_t>()[i] = static_cast<int8_t>(d(rng));
  return t;
}

TEST(WebGpuQ8taLinear, MatchesDequantizeLinearQuantize) {
  std::mt19937 rng(91);
  struct Cfg {
    const char* op;
    std::vector<int64_t> in;
    int64_t n;
    bool relu, bias;
  };
  for (const Cfg& c : {Cfg{"et_vk.q8ta_linear.default", {3, 20}, 10, true, true},
                       Cfg{"et_vk.q8ta_linear.default", {2, 3, 36}, 7, false, false},
                       Cfg{"et_vk.q8ta_linear_gemv.default", {1, 44}, 13, false, true},
                       Cfg{"et_vk.linear_q8ta_q8csw.default", {5, 12}, 7, false, true},
                       Cfg{"et_vk.linear_q8ta_q8csw.default", {1, 64}, 9, false, false}}) {
    SCOPED_TRACE(c.op);
    const bool int8_out = std::string(c.op).find("q8csw") == std::string::npos;
    const int64_t k = c.in.back(), n = c.n, npad = (n + 3) / 4 * 4;
    Tensor x = random_int8(c.in, rng);
    Tensor w = random_int8({n, k}, rng, -127, 127);
    Tensor ws = test::random_tensor(ScalarType::kFloat, {npad}, rng, 0.002, 0.02);
    Tensor bias = test::random_tensor(ScalarType::kFloat, {npad}, rng, -1, 1);
    const double in_s = 0.04, out_s = 0.09;
    const int in_zp = -3, out_zp = 5;
    std::vector<int64_t> os = c.in;
    os.back() = n;
    test::VkGraphBuilder b;
    int in = b.input(ScalarType::kChar, c.in);
    int out = b.tensor(int8_out ? ScalarType::kChar : ScalarType::kFloat, os);
    std::vector<int> args = {in, b.double_value(in_s), b.int_value(in_zp), b.constant(w),
                             b.constant(Tensor::make_owned(ScalarType::kInt, {npad})), b.constant(ws)};
    if (int8_out) {
      args.insert(args.end(), {b.double_value(out_s), b.int_value(out_zp), c.bias ? b.constant(bias) : b.none(),
                               b.string_value(c.relu ? "relu" : "none"), out});
    } else {
      args.insert(args.end(), {c.bias ? b.constant(bias) : b.none(), out});
    }
    b.op(c.op, args);
    b.output(out);
    auto r = b.run({Value::make_tensor(x)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    const Tensor& got = (*r)[0].tensor;
    ASSERT_EQ(got.sizes, os);
    const int64_t m = x.numel() / k;
    for (int64_t row = 0; row < m; ++row)
      for (int64_t col = 0; col < n; ++col) {
        double acc = c.bias ? bias.data_as<float>()[col] : 0.0;
        for (int64_t e = 0; e < k; ++e)
          acc += test::q8_dequantize(x.data_as<int8_t>()[row * k + e], in_s, in_zp) *
                 (static_cast<float>(w.data_as<int8_t>()[col * k + e]) * ws.data_as<float>()[col]);
        if (c.relu) acc = std::fmax(acc, 0.0);
        const int64_t at = row * n + col;
        if (int8_out) {
          test::expect_q8(got.data_as<int8_t>()[at], acc, out_s, out_zp, "at " + std::to_string(at));
        } else {
          EXPECT_NEAR(got.data_as<float>()[at], acc, 1e-5 + 1e-5 * std::fabs(acc)) << "at " << at;
        }
      }
  }
}

TEST(WebGpuQ8taElementwise, AddWithAlphaAndRelu) {
  std::mt19937 rng(92);
  const std::vector<int64_t> shape = {3, 7, 49};  // 1029 values: a partial last workgroup
  Tensor a = random_int8(shape, rng), bt = random_int8(shape, rng);
  for (bool add : {true, false}) {
    SCOPED_TRACE(add ? "q8ta_add" : "q8ta_relu");
    const double sa = 0.04, sb = 0.07, so = 0.09, alpha = add ? 0.5 : 1.0;
    const int za = -2, zb = 5, zo = 1;
    test::VkGraphBuilder b;
    int ia = b.input(ScalarType::kChar, shape);
    int ib = add ? b.input(ScalarType::kChar, shape) : -1;
    int out = b.tensor(ScalarType::kChar, shape);
    if (add) {
      b.op("et_vk.q8ta_add.default", {ia, ib, b.double_value(sa), b.int_value(za), b.double_value(sb), b.int_value(zb),
                                      b.double_value(so), b.int_value(zo), b.double_value(alpha), out});
    } else {
      b.op("et_vk.q8ta_relu.default", {ia, b.double_value(sa), b.int_value(za), b.double_value(so), b.int_value(zo), out});
    }
    b.output(out);
    std::vector<Value> ins = {Value::make_tensor(a)};
    if (add) ins.push_back(Value::make_tensor(bt));
    auto r = b.run(ins);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    const Tensor& got = (*r)[0].tensor;
    ASSERT_EQ(got.sizes, shape);
    for (int64_t i = 0; i < a.numel(); ++i) {
      const double da = test::q8_dequantize(a.data_as<int8_t>()[i], sa, za);
      // f32 arithmetic, as PyTorch adds the two dequantized f32 tensors.
      const double v = add ? static_cast<double>(static_cast<float>(da) +
                                                 static_cast<float>(alpha) * static_cast<float>(test::q8_dequantize(bt.data_as<int8_t>()[i], sb, zb)))
                           : std::fmax(da, 0.0);
      test::expect_q8(got.data_as<int8_t>()[i], v, so, zo, "at " + std::to_string(i));
    }
  }
}

TEST(WebGpuQ8taElementwise, AddRejectsDifferentShapes) {
  test::VkGraphBuilder b;
  int ia = b.input(ScalarType::kChar, {2, 8});
  int ib = b.input(ScalarType::kChar, {1, 8});
  int out = b.tensor(ScalarType::kChar, {2, 8});
  b.op("et_vk.q8ta_add.default", {ia, ib, b.double_value(0.1), b.int_value(0), b.double_value(0.1), b.int_value(0),
                                  b.double_value(0.1), b.int_value(0), b.double_value(1.0), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kChar, {2, 8})),
                  Value::make_tensor(Tensor::make_owned(ScalarType::kChar, {1, 8}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no broadcasting"), std::string::npos) << r.status().message();
}

TEST(WebGpuQ8taPixelShuffle, MovesChannelsToSpaceAndRequantizes) {
  std::mt19937 rng(93);
  const int64_t n = 2, c = 3, r = 2, h = 3, w = 5;
  Tensor x = random_int8({n, c * r * r, h, w}, rng);
  for (bool requant : {true, false}) {
    SCOPED_TRACE(requant ? "requantized" : "copied");
    const double si = 0.05, so = requant ? 0.06 : 0.05;
    const int zi = 4, zo = requant ? -3 : 4;
    test::VkGraphBuilder b;
    int in = b.input(ScalarType::kChar, x.sizes);
    int out = b.tensor(ScalarType::kChar, {n, c, h * r, w * r});
    b.op("et_vk.q8ta_pixel_shuffle.default",
         {in, b.double_value(si), b.int_value(zi), b.double_value(1.0 / so), b.int_value(zo), b.int_value(r), out});
    b.output(out);
    auto res = b.run({Value::make_tensor(x)});
    ASSERT_TRUE(res.ok()) << res.status().to_string();
    const Tensor& got = (*res)[0].tensor;
    ASSERT_EQ(got.sizes, (std::vector<int64_t>{n, c, h * r, w * r}));
    for (int64_t b0 = 0; b0 < n; ++b0)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t y = 0; y < h * r; ++y)
          for (int64_t xo = 0; xo < w * r; ++xo) {
            const int q = x.data_as<int8_t>()[((b0 * c * r * r + ch * r * r + (y % r) * r + xo % r) * h + y / r) * w + xo / r];
            const int64_t at = ((b0 * c + ch) * h * r + y) * w * r + xo;
            test::expect_q8(got.data_as<int8_t>()[at], test::q8_dequantize(q, si, zi), so, zo, "at " + std::to_string(at));
          }
  }
}

TEST(WebGpuQ4gswRequant, PacksRoundedClampedCodes) {
  std::mt19937 rng(94);
  const int64_t n = 7, k = 13, gs = 4, groups = 4, npad = 8;
  Tensor latent = test::random_tensor(ScalarType::kFloat, {n, k}, rng, -0.3, 0.3);
  Tensor scales = test::random_tensor(ScalarType::kFloat, {groups, npad}, rng, 0.01, 0.05);
  scales.data_as<float>()[1 * npad + 2] = 0;  // a zero scale: code 8 (zero) for that group
  test::VkGraphBuilder b;
  int li = b.input(ScalarType::kFloat, {n, k});
  int si = b.input(ScalarType::kFloat, {groups, npad});
  int out = b.tensor(ScalarType::kByte, {n, (k + 1) / 2});
  b.op("et_vk.q4gsw_requant.default", {li, si, b.int_value(gs), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(latent), Value::make_tensor(scales)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const Tensor& got = (*r)[0].tensor;
  ASSERT_EQ(got.sizes, (std::vector<int64_t>{n, (k + 1) / 2}));
  int clamped = 0;
  for (int64_t row = 0; row < n; ++row)
    for (int64_t e = 0; e < k; ++e) {
      const float s = scales.data_as<float>()[(e / gs) * npad + row];
      const float t = s != 0 ? latent.data_as<float>()[row * k + e] / s : 0.0f;
      const int want = static_cast<int>(std::fmin(std::fmax(std::nearbyint(t), -8.0f), 7.0f)) + 8;
      clamped += std::fabs(t) > 8.5f;
      const int byte = got.data_as<uint8_t>()[row * ((k + 1) / 2) + e / 2];
      const int code = (e & 1) ? byte >> 4 : byte & 15;
      if (std::fabs(std::fabs(t - std::floor(t)) - 0.5f) > 1e-4f) {
        EXPECT_EQ(code, want) << "(" << row << ", " << e << ") latent / scale " << t;
      }
      if (e == k - 1) {
        EXPECT_EQ(byte >> 4, 0) << "the odd K's last byte has an empty high nibble, row " << row;
      }
    }
  EXPECT_GT(clamped, 0) << "the data should reach the clamp";
}

}  // namespace
}  // namespace wick
