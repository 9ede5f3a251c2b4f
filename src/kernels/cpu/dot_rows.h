// Dot products of one vector with R rows at once, for the single-row fp32 linear
// (linear_algebra.cpp: classifiers, decode steps) and 1x1 convolutions of single-pixel
// planes (conv_gemm.cpp: squeeze-excite). One row at a time is one chain of dependent
// multiply-adds, paced by their latency (about a quarter of the FMA units' rate); R rows
// with two sums each keep 2R chains in flight and load each slice of x once for all R.
// Include from a WICK_HOT_LOOP function (always inline: the clone's instructions).
#pragma once

#include <cstdint>

#include "kernels/cpu/hot_loop.h"

namespace wick::cpu {

inline float hsum(f32x8 v) { return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7])); }

// out[r] = sum_p x[p] * w[r][p], p < k.
template <int R>
__attribute__((always_inline)) inline void dot_rows(const float* x, const float* const (&w)[R], int64_t k, float (&out)[R]) {
  f32x8 a[R], b[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) a[r] = b[r] = f32x8{};
  int64_t p = 0;
  for (; p + 16 <= k; p += 16) {
    f32x8 x0, x1;
    WICK_F32X8_LOAD(x0, x + p);
    WICK_F32X8_LOAD(x1, x + p + 8);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      f32x8 w0, w1;
      WICK_F32X8_LOAD(w0, w[r] + p);
      WICK_F32X8_LOAD(w1, w[r] + p + 8);
      a[r] += x0 * w0;
      b[r] += x1 * w1;
    }
  }
  if (p + 8 <= k) {
    f32x8 x0;
    WICK_F32X8_LOAD(x0, x + p);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      f32x8 w0;
      WICK_F32X8_LOAD(w0, w[r] + p);
      a[r] += x0 * w0;
    }
    p += 8;
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    float s = hsum(a[r] + b[r]);
    for (int64_t q = p; q < k; ++q) s += x[q] * w[r][q];
    out[r] = s;
  }
}

}  // namespace wick::cpu
