// The q4gsw matrix product shared by et_vk::linear_q4gsw and et_vk::linear_dq8ca_q4gsw
// (quantized.cpp): y[m, n] = sum_k x[m, k] * (q[n, k] - 8) * scales[k / gs][n] (+ bias[n]),
// weights in shared/spec/ops.md §5.1's layout. Callers check the shapes.
#pragma once

#include <cstdint>

namespace wick::cpu {

struct Q4Linear {
  const float* x;       // [m, k]
  const uint8_t* w;     // [n, kp], kp = (k + 1) / 2, even k in the low nibble, +8 offset
  const float* scales;  // [groups, padded_n]
  const float* bias;    // [n] or nullptr
  float* y;             // [m, n]
  int64_t m, k, n, kp, gs, padded_n;
};

// Splits the output features over the thread pool.
void q4gsw_linear(const Q4Linear& q);

}  // namespace wick::cpu
