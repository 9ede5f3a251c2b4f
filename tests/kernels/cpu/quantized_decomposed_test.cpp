// quantized_decomposed::{quantize,dequantize}_per_tensor.out against values worked out by
// hand from PyTorch's definitions (round half to even, clamp, (q - zp) * scale).
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

constexpr int kInt8 = 1, kUInt8 = 0;

TEST(CpuQuantizedDecomposed, QuantizeRoundsHalfToEvenAndClamps) {
  Harness h;
  // x / 0.5: 1.25 -> 2.5 -> 2, 1.75 -> 3.5 -> 4, -0.75 -> -1.5 -> -2, 100 -> clamp, -100 -> clamp.
  int32_t x = h.tensor(ScalarType::kFloat, {5}, {1.25, 1.75, -0.75, 100, -100});
  int32_t q = h.tensor(ScalarType::kChar, {5});
  ASSERT_TRUE(h.call("quantized_decomposed::quantize_per_tensor.out",
                     {x, h.d(0.5), h.i(3), h.i(-128), h.i(127), h.i(kInt8), q, q}).ok());
  EXPECT_EQ(h.data(q), (std::vector<double>{5, 7, 1, 127, -128}));
  int32_t u = h.tensor(ScalarType::kByte, {5});
  ASSERT_TRUE(h.call("quantized_decomposed::quantize_per_tensor.out",
                     {x, h.d(0.5), h.i(128), h.i(0), h.i(255), h.i(kUInt8), u, u}).ok());
  EXPECT_EQ(h.data(u), (std::vector<double>{130, 132, 126, 255, 0}));
}

TEST(CpuQuantizedDecomposed, DequantizeAndBadArgs) {
  Harness h;
  int32_t q = h.tensor(ScalarType::kChar, {4}, {-128, -3, 0, 127});
  int32_t y = h.tensor(ScalarType::kFloat, {4});
  ASSERT_TRUE(h.call("quantized_decomposed::dequantize_per_tensor.out",
                     {q, h.d(0.25), h.i(-3), h.i(-128), h.i(127), h.i(kInt8), h.none(), y, y}).ok());
  EXPECT_EQ(h.data(y), (std::vector<double>{-31.25, 0, 0.75, 32.5}));
  // dtype says uint8 but the input is int8; a range beyond int8; a zero scale.
  Status s = h.call("quantized_decomposed::dequantize_per_tensor.out",
                    {q, h.d(0.25), h.i(0), h.i(0), h.i(255), h.i(kUInt8), h.none(), y, y});
  EXPECT_NE(s.message().find("input is int8"), std::string::npos) << s.message();
  int32_t x = h.tensor(ScalarType::kFloat, {4});
  s = h.call("quantized_decomposed::quantize_per_tensor.out", {x, h.d(0.25), h.i(0), h.i(-128), h.i(300), h.i(kInt8), q, q});
  EXPECT_NE(s.message().find("quant range"), std::string::npos) << s.message();
  s = h.call("quantized_decomposed::quantize_per_tensor.out", {x, h.d(0), h.i(0), h.i(-128), h.i(127), h.i(kInt8), q, q});
  EXPECT_NE(s.message().find("scale"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace wick::cpu::testing
