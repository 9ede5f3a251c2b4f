// fp32 y[m, n] = x[m, k] . w[n, k]^T for several input rows on the packed-panel SGEMM core
// (linear_gemm.cpp). No bias: the caller adds it.
#pragma once

#include <cstdint>

namespace wick::cpu {

void linear_f32_gemm(const float* x, const float* w, float* y, int64_t m, int64_t k, int64_t n);

}  // namespace wick::cpu
