// The int8 kernels of kernels/cpu/q8ta.cpp on values worked out by hand from the ops'
// definitions (ExecuTorch's custom_ops_lib.py): dequantize, the float op, relu, quantize
// (round half to even, clamp to int8), and quantize_per_tensor with the dtype argument None
// as ExecuTorch's Vulkan serializer writes it. tests/vkcpu/cpu_q8ta_fixtures_test.cpp runs
// the real-toolchain q8ta programs through the same kernels.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

TEST(CpuQ8ta, LinearQ8taQ8cswDequantizesInputAndWeights) {
  Harness h;
  // x = (q - 2) * 0.5 = {4, -3.5, 0.5, -1}; rows of w scaled by 0.1 and 0.01; bias {1, -1}.
  int32_t x = h.tensor(ScalarType::kChar, {1, 4}, {10, -5, 3, 0});
  int32_t w = h.tensor(ScalarType::kChar, {2, 4}, {1, 2, 3, 4, -1, 0, 1, 127});
  int32_t sums = h.tensor(ScalarType::kInt, {4});
  int32_t ws = h.tensor(ScalarType::kFloat, {4}, {0.1, 0.01, 0, 0});
  int32_t bias = h.tensor(ScalarType::kFloat, {4}, {1, -1, 0, 0});
  int32_t y = h.tensor(ScalarType::kFloat, {1, 2});
  ASSERT_TRUE(h.call("et_vk::linear_q8ta_q8csw.out", {x, h.d(0.5), h.i(2), w, sums, ws, bias, y, y}).ok());
  // -11 * 0.05 + 1 and -261 * 0.005 - 1.
  const std::vector<double> got = h.data(y);
  EXPECT_NEAR(got[0], 0.45, 1e-6);
  EXPECT_NEAR(got[1], -2.305, 1e-6);
}

TEST(CpuQ8ta, ReluRequantizesAndDepthwiseConvSumsTaps) {
  Harness h;
  // relu: {-12.8, 0, 0.5, 12.7} -> {0, 0, 0.5, 12.7} -> / 0.05 - 128.
  int32_t x = h.tensor(ScalarType::kChar, {4}, {-128, 0, 5, 127});
  int32_t y = h.tensor(ScalarType::kChar, {4});
  ASSERT_TRUE(h.call("et_vk::q8ta_relu.out", {x, h.d(0.1), h.i(0), h.d(0.05), h.i(-128), y, y}).ok());
  EXPECT_EQ(h.data(y), (std::vector<double>{-128, -128, -118, 126}));

  // Depthwise 2x2 on one 2x2 channel of 4, stride 1, no padding: one output per channel,
  // weights [KH, KW, OC_pad]: channel 0 has taps {1, 2, 3, 4}, the others zero.
  int32_t in = h.tensor(ScalarType::kChar, {1, 4, 2, 2}, {1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  std::vector<double> wv(16, 0);
  wv[0 * 4] = 1, wv[1 * 4] = 2, wv[2 * 4] = 3, wv[3 * 4] = 4;
  int32_t w = h.tensor(ScalarType::kChar, {2, 2, 4}, wv);
  int32_t ws = h.tensor(ScalarType::kFloat, {4}, {0.25, 1, 1, 1});
  int32_t bias = h.tensor(ScalarType::kFloat, {4}, {0, 0.5, -0.5, 0});
  int32_t out = h.tensor(ScalarType::kChar, {1, 4, 1, 1});
  ASSERT_TRUE(h.call("et_vk::q8ta_conv2d_dw.out",
                     {in, h.d(1.0), h.i(0), w, h.tensor(ScalarType::kInt, {4}), ws, h.d(0.5), h.i(1), bias,
                      h.int_list({2, 2}), h.int_list({1, 1}), h.int_list({0, 0}), h.int_list({1, 1}), h.i(4),
                      h.str("none"), out, out})
                  .ok());
  // (1 + 4 + 9 + 16) * 0.25 = 7.5 -> 15 + 1; bias 0.5 -> 1 + 1; -0.5 -> -1 + 1; 0 -> 0 + 1.
  EXPECT_EQ(h.data(out), (std::vector<double>{16, 2, 0, 1}));
}

TEST(CpuQ8ta, QuantizeTakesTheOutputDtypeWhenDtypeIsNone) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {3}, {1.25, -0.75, 100});
  int32_t q = h.tensor(ScalarType::kChar, {3});
  ASSERT_TRUE(h.call("quantized_decomposed::quantize_per_tensor.out",
                     {x, h.d(0.5), h.i(3), h.i(-128), h.i(127), h.none(), q, q}).ok());
  EXPECT_EQ(h.data(q), (std::vector<double>{5, 1, 127}));
  int32_t y = h.tensor(ScalarType::kFloat, {3});
  ASSERT_TRUE(h.call("quantized_decomposed::dequantize_per_tensor.out",
                     {q, h.d(0.5), h.i(3), h.i(-128), h.i(127), h.none(), h.none(), y, y}).ok());
  EXPECT_EQ(h.data(y), (std::vector<double>{1, -1, 62}));
}

// et_vk::q4gsw_requant.out (kernels/cpu/quantized.cpp), the 4-bit fine-tuning step that sits
// beside the int8 ops in custom_ops_lib.py: round(latent / scale), clamp to [-8, 7], + 8.
TEST(CpuQ8ta, Q4gswRequantPacksCodesWithFrozenScales) {
  Harness h;
  int32_t latent = h.tensor(ScalarType::kFloat, {2, 3}, {0.1, -0.25, 1.0, 0.05, 0.3, -0.2});
  // scales[group][n], groups of 2 along K: row 1's first group has a zero scale.
  int32_t scales = h.tensor(ScalarType::kFloat, {2, 2}, {0.1, 0.0, 0.05, 0.1});
  int32_t out = h.tensor(ScalarType::kByte, {2, 2});
  ASSERT_TRUE(h.call("et_vk::q4gsw_requant.out", {latent, scales, h.i(2), out, out}).ok());
  // Row 0: 1 -> 9, -2.5 -> -2 -> 6 (half to even), 20 -> 7 -> 15; row 1: 8, 8 (zero scale), -2 -> 6.
  EXPECT_EQ(h.data(out), (std::vector<double>{9 | 6 << 4, 15, 8 | 8 << 4, 6}));
  Status s = h.call("et_vk::q4gsw_requant.out", {latent, scales, h.i(1), out, out});
  EXPECT_NE(s.message().find("do not cover"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace wick::cpu::testing
