// References for the int8 (q8ta) op tests, written from the ops' definitions in ExecuTorch's
// backends/vulkan/custom_ops_lib.py: dequantize_per_tensor -> the float op -> (relu) ->
// quantize_per_tensor. The float op is computed in double; the quantization uses the f32
// 1 / scale that PyTorch multiplies by. A GPU summing in another order (or in i32, then
// scaling) may land on the other side of a rounding boundary only when the scaled value is
// within a hair of one: `expect_q8` allows one step there and nowhere else.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

namespace wick::test {

inline double q8_dequantize(int q, double scale, int zp) {
  return static_cast<double>(static_cast<float>(q - zp) * static_cast<float>(scale));
}

// The quantized value of `v` and how close v * inv_scale lies to a rounding boundary.
inline int q8_quantize(double v, double scale, int zp, double* boundary_gap = nullptr) {
  const double t = v * static_cast<float>(1.0 / scale);
  if (boundary_gap) *boundary_gap = std::fabs(std::fabs(t - std::floor(t)) - 0.5);
  const double r = std::nearbyint(t) + zp;
  return static_cast<int>(std::fmin(std::fmax(r, -128.0), 127.0));
}

inline void expect_q8(int got, double v, double scale, int zp, const std::string& where) {
  double gap;
  const int want = q8_quantize(v, scale, zp, &gap);
  if (gap < 1e-3) {
    EXPECT_LE(std::abs(got - want), 1) << where << " (at a rounding boundary) value " << v;
  } else {
    EXPECT_EQ(got, want) << where << " value " << v;
  }
}

}  // namespace wick::test
