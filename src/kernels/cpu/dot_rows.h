// The dot product of two fp32 rows for the single-row linear (linear_algebra.cpp:
// classifiers, decode steps) and 1x1 convolutions of single-pixel planes (conv_gemm.cpp:
// squeeze-excite). One sum is one chain of dependent multiply-adds, paced by their latency
// (a quarter of the FMA units' rate); four sums over 32 floats keep four chains in flight.
// Rows are still read one after the other: several weight rows at once (one stream
// each) ran slower on MobileNet's classifier, whose 6 MB of weights come from memory.
// Include from a WICK_HOT_LOOP function (always inline: the clone's instructions).
#pragma once

#include <cstdint>

#include "kernels/cpu/hot_loop.h"

namespace wick::cpu {

__attribute__((always_inline)) inline float dot_f32(const float* x, const float* w, int64_t k) {
  f32x8 a0{}, a1{}, a2{}, a3{};
  int64_t p = 0;
  for (; p + 32 <= k; p += 32) {
    f32x8 x0, x1, x2, x3, w0, w1, w2, w3;
    WICK_F32X8_LOAD(x0, x + p);
    WICK_F32X8_LOAD(x1, x + p + 8);
    WICK_F32X8_LOAD(x2, x + p + 16);
    WICK_F32X8_LOAD(x3, x + p + 24);
    WICK_F32X8_LOAD(w0, w + p);
    WICK_F32X8_LOAD(w1, w + p + 8);
    WICK_F32X8_LOAD(w2, w + p + 16);
    WICK_F32X8_LOAD(w3, w + p + 24);
    a0 += x0 * w0;
    a1 += x1 * w1;
    a2 += x2 * w2;
    a3 += x3 * w3;
  }
  for (; p + 8 <= k; p += 8) {
    f32x8 x0, w0;
    WICK_F32X8_LOAD(x0, x + p);
    WICK_F32X8_LOAD(w0, w + p);
    a0 += x0 * w0;
  }
  const f32x8 a = (a0 + a1) + (a2 + a3);
  float s = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
  for (; p < k; ++p) s += x[p] * w[p];
  return s;
}

}  // namespace wick::cpu
