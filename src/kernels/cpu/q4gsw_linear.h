// The q4gsw matrix product shared by et_vk::linear_q4gsw and et_vk::linear_dq8ca_q4gsw
// (quantized.cpp): y[m, n] = sum_k x[m, k] * (q[n, k] - 8) * scales[k / gs][n] (+ bias[n]),
// weights in shared/spec/ops.md §5.1's layout.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "core/tensor.h"

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

// The checks and output both ops need: x [..., K], weights uint8 [N, (K + 1) / 2], scales
// [groups, padded N] covering K in groups of gs and N, an optional float32 bias of N values;
// sizes out to [..., N] (float32). Returns the product with its sizes and the weight, scale,
// bias and output pointers; x is left for the caller (the activations it computes).
Result<Q4Linear> prepare_q4gsw_linear(const char* op, const Tensor& x, const Tensor& w, const Tensor& scales,
                                      const Tensor* bias, int64_t gs, Tensor& out);

}  // namespace wick::cpu
