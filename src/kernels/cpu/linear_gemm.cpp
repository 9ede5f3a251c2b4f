// fp32 linear layer y[m, o] = x[m, :] . w[o, :] with several input rows, on the packed-panel
// core of sgemm_tile.h: the weight rows are the A rows (read in place: no transposed copy),
// and tiles of 64 input rows x 256 features, transposed into NR-wide panels, are the B
// columns, so one packed tile serves every block of 6 output features. Tiles and chunks of
// output features are spread over the thread pool. linear_algebra.cpp keeps the dot-product
// form for single rows (decode steps, classifiers), where the weights are read once anyway.
#include <algorithm>
#include <vector>

#include "kernels/cpu/linear_gemm.h"
#include "kernels/cpu/sgemm_tile.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu {

namespace {

constexpr int64_t kTile = 4 * kSgemmNR;  // input rows per packed tile
constexpr int64_t kKc = 256;             // input features per packed tile

}  // namespace

void linear_f32_gemm(const float* x, const float* w, float* y, int64_t m, int64_t k, int64_t n) {
  const int64_t tiles = (m + kTile - 1) / kTile;
  const int64_t blocks = (n + kSgemmMR - 1) / kSgemmMR;
  const int64_t threads = num_threads();
  const int64_t chunks = tiles >= 2 * threads ? 1 : std::min(blocks, (2 * threads + tiles - 1) / tiles);
  const int64_t chunk = ((blocks + chunks - 1) / chunks) * kSgemmMR;
  const int64_t item_cost = std::max<int64_t>(1, chunk * k * kTile);
  parallel_for(tiles * chunks, std::max<int64_t>(1, 262144 / item_cost), [&](int64_t begin, int64_t end) {
    thread_local std::vector<float> bp;
    bp.resize(static_cast<size_t>(kKc * kTile));
    for (int64_t item = begin; item < end; ++item) {
      const int64_t tile = item / chunks, o0 = (item % chunks) * chunk;
      const int64_t r0 = tile * kTile, rows = std::min(kTile, m - r0), no = std::min(chunk, n - o0);
      if (no <= 0) continue;
      for (int64_t k0 = 0; k0 < k; k0 += kKc) {
        const int64_t kc = std::min(kKc, k - k0);
        // Panel q, element (kk, j) = x[r0 + q * NR + j, k0 + kk]; zeros past the last row.
        for (int64_t q = 0; q * kSgemmNR < rows; ++q) {
          float* dst = bp.data() + q * kc * kSgemmNR;
          const int64_t cols = std::min(kSgemmNR, rows - q * kSgemmNR);
          for (int64_t j = 0; j < kSgemmNR; ++j) {
            if (j < cols) {
              const float* src = x + (r0 + q * kSgemmNR + j) * k + k0;
              for (int64_t kk = 0; kk < kc; ++kk) dst[kk * kSgemmNR + j] = src[kk];
            } else {
              for (int64_t kk = 0; kk < kc; ++kk) dst[kk * kSgemmNR + j] = 0.0f;
            }
          }
        }
        SgemmTile t{};
        t.a = w + o0 * k + k0;
        t.lda = k;
        t.m = no;
        t.bp = bp.data();
        t.kc = kc;
        t.n = rows;
        t.c = y + r0 * n + o0;  // C[feature, row] at y[row * n + feature]
        t.ldc = 1;
        t.cstride = n;
        t.bias = nullptr;
        t.accumulate = k0 > 0;
        sgemm_tile(t);
      }
    }
  });
}

}  // namespace wick::cpu
