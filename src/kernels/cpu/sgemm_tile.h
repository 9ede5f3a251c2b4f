// The fp32 matrix-product core of the convolution (conv_gemm.cpp) and the linear layer
// (linear_gemm.cpp): C[i, j] = init + sum_k A[i, k] * B[k, j] over one tile, with B packed
// in panels of kSgemmNR columns (panel q holds B[k, q * NR + j] at bp[q * kc * NR + k * NR + j],
// or in place with a row stride: ldb)
// and A read in place, row i at a + i * lda. The register block is kSgemmMR rows x NR
// columns: natively (the x86-64-v3 clone, 16 AVX registers) 6 x 16, i.e. 12 accumulators,
// 2 loads of B and one broadcast of A per k; in Wasm (two f32x4 per f32x8) 4 x 8.
#pragma once

#include <cstdint>

namespace wick::cpu {

#if defined(__wasm__)
constexpr int64_t kSgemmMR = 4, kSgemmNR = 8;
#else
constexpr int64_t kSgemmMR = 6, kSgemmNR = 16;
#endif

struct SgemmTile {
  const float* a;  // A[i, k] at a[i * lda + k], rows [0, m)
  int64_t lda;
  int64_t m;
  const float* bp;  // packed B: ceil(n / NR) panels of kc x NR floats (zeros past column n)
  int64_t kc;
  // B read in place instead (a 1x1 convolution's input planes): row k of panel q at
  // bp + q * NR + k * ldb, every panel whole (n a multiple of NR). 0: packed as above.
  int64_t ldb;
  int64_t n;  // valid columns
  float* c;   // C[i, j] at c[i * ldc + j * cstride]
  int64_t ldc;
  int64_t cstride;
  // C starts from bias[i] (or 0 when bias is null), or from its own values when accumulate.
  const float* bias;
  bool accumulate;
};

// Every MR x NR block of the tile.
void sgemm_tile(const SgemmTile& t);

}  // namespace wick::cpu
