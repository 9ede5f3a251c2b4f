// The register-blocked micro-kernel of sgemm_tile.h. One function marked WICK_HOT_LOOP
// (so the AVX2 + FMA clone gets the whole loop nest) with the block spelled out through an
// always-inline template, which the compiler fully unrolls into registers.
#include "kernels/cpu/sgemm_tile.h"

#include <algorithm>

#include "kernels/cpu/hot_loop.h"

namespace wick::cpu {

namespace {

constexpr int64_t kNV = kSgemmNR / 8;  // f32x8 vectors per row of the block

// One MR x NR block: rows a[0..MR) (already clamped to valid rows), panel bp.
template <int64_t MR>
__attribute__((always_inline)) inline void micro(const float* const* a, const float* bp, int64_t ldb, int64_t kc,
                                                 f32x8 (&acc)[MR][kNV]) {
  for (int64_t k = 0; k < kc; ++k) {
    f32x8 b[kNV];
#pragma GCC unroll 4
    for (int64_t v = 0; v < kNV; ++v) WICK_F32X8_LOAD(b[v], bp + k * ldb + 8 * v);
#pragma GCC unroll 8
    for (int64_t i = 0; i < MR; ++i) {
      const float av = a[i][k];
#pragma GCC unroll 4
      for (int64_t v = 0; v < kNV; ++v) acc[i][v] += av * b[v];
    }
  }
}

}  // namespace

WICK_HOT_LOOP void sgemm_tile(const SgemmTile& t) {
  constexpr int64_t MR = kSgemmMR, NR = kSgemmNR;
  const int64_t panels = (t.n + NR - 1) / NR;
  const int64_t ldb = t.ldb ? t.ldb : NR, panel_step = t.ldb ? NR : t.kc * NR;
  for (int64_t i0 = 0; i0 < t.m; i0 += MR) {
    const int64_t rows = std::min(MR, t.m - i0);
    // A block past the last row repeats that row; its sums are not stored.
    const float* a[MR];
    for (int64_t i = 0; i < MR; ++i) a[i] = t.a + (i0 + std::min(i, rows - 1)) * t.lda;
    for (int64_t q = 0; q < panels; ++q) {
      const int64_t j0 = q * NR, cols = std::min(NR, t.n - j0);
      f32x8 acc[MR][kNV];
      float* c0 = t.c + i0 * t.ldc + j0 * t.cstride;
      const bool direct = t.cstride == 1 && cols == NR;
      for (int64_t i = 0; i < MR; ++i) {
        if (t.accumulate && i < rows) {
          if (direct) {
            for (int64_t v = 0; v < kNV; ++v) WICK_F32X8_LOAD(acc[i][v], c0 + i * t.ldc + 8 * v);
          } else {
            float tmp[NR] = {};
            for (int64_t j = 0; j < cols; ++j) tmp[j] = c0[i * t.ldc + j * t.cstride];
            for (int64_t v = 0; v < kNV; ++v) WICK_F32X8_LOAD(acc[i][v], tmp + 8 * v);
          }
        } else {
          const float b = t.bias && !t.accumulate ? t.bias[i0 + std::min(i, rows - 1)] : 0.0f;
          for (int64_t v = 0; v < kNV; ++v) acc[i][v] = f32x8{} + b;
        }
      }
      micro<MR>(a, t.bp + q * panel_step, ldb, t.kc, acc);
      for (int64_t i = 0; i < rows; ++i) {
        if (direct) {
          for (int64_t v = 0; v < kNV; ++v) WICK_F32X8_STORE(c0 + i * t.ldc + 8 * v, acc[i][v]);
        } else {
          float tmp[NR];
          for (int64_t v = 0; v < kNV; ++v) WICK_F32X8_STORE(tmp + 8 * v, acc[i][v]);
          for (int64_t j = 0; j < cols; ++j) c0[i * t.ldc + j * t.cstride] = tmp[j];
        }
      }
    }
  }
}

}  // namespace wick::cpu
