// fp32 depthwise convolution (conv_geometry.h: one input channel per group, any channel
// multiplier). Each input plane is first copied into zero-padded rows split by stride phase,
// phase r holding padded columns r, r + stride, ...: output column ow of tap kw then reads
// phase (kw * dil) % stride at ow + (kw * dil) / stride, so 8 outputs of a row are one
// contiguous load per tap. The buffer also holds the zero rows of the vertical padding, so
// no tap checks a bound. A register block is R output rows x V vectors of 8 columns (8 sums:
// 4 rows x 16 columns, or 8 rows x 8 columns on planes 8 or fewer wide, MobileNet's 7 x 7),
// accumulated over all taps with the tap's weight broadcast once: 8 independent
// multiply-add chains, which the adds' latency would otherwise pace (one row at a time left
// 2-4); half that in Wasm. Planes are spread over the pool.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu/conv_geometry.h"
#include "kernels/cpu/hot_loop.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu {

namespace {

constexpr int64_t kBlock = 16;  // output columns per wide register block (two f32x8)
// f32x8 sums per register block: 8 natively (16 AVX registers), 4 in Wasm (two f32x4 each:
// V8 has 16 SIMD registers on x86-64 too).
#if defined(__wasm__)
constexpr int64_t kBlockSums = 4;
#else
constexpr int64_t kBlockSums = 8;
#endif

struct Depthwise {
  const float* in;
  const float* w;
  const float* bias;
  float* out;
  ConvGeometry g;
  int64_t mult, row_len;  // channel multiplier; floats per phase row
  int64_t rows;           // padded input rows in the buffer (vertical padding included)
};

// Output rows [oh0, oh0 + R) x columns [ow0, ow0 + 8 V) of one plane (columns past out_w
// are computed from the buffer's zeros and not stored). x: the buffer at padded row 0,
// column ow0; rs: floats per padded row (all phases).
template <int64_t R, int64_t V>
__attribute__((always_inline)) inline void dw_block(const ConvGeometry& g, const float* x, int64_t rs,
                                                    const int64_t* tap_at, const float* wk, float b, int64_t oh0,
                                                    int64_t ow0, float* y) {
  f32x8 acc[R][V];
#pragma GCC unroll 8
  for (int64_t r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int64_t v = 0; v < V; ++v) acc[r][v] = f32x8{} + b;
  const int64_t row_step = g.stride_h * rs;  // from one output row's inputs to the next's
  const float* base = x + oh0 * row_step;
  for (int64_t kh = 0; kh < g.k_h; ++kh) {
    const float* rows = base + kh * g.dil_h * rs;
    const float* wr = wk + kh * g.k_w;
    for (int64_t kw = 0; kw < g.k_w; ++kw) {
      const f32x8 wv = f32x8{} + wr[kw];
      const float* p = rows + tap_at[kw];
#pragma GCC unroll 8
      for (int64_t r = 0; r < R; ++r)
#pragma GCC unroll 2
        for (int64_t v = 0; v < V; ++v) {
          f32x8 xv;
          WICK_F32X8_LOAD(xv, p + r * row_step + 8 * v);
          acc[r][v] += wv * xv;
        }
    }
  }
  const int64_t cols = std::min(8 * V, g.out_w - ow0);
#pragma GCC unroll 8
  for (int64_t r = 0; r < R; ++r) {
    float* yr = y + (oh0 + r) * g.out_w + ow0;
    if (cols == 8 * V) {
#pragma GCC unroll 2
      for (int64_t v = 0; v < V; ++v) WICK_F32X8_STORE(yr + 8 * v, acc[r][v]);
    } else {
      float tmp[8 * V];
#pragma GCC unroll 2
      for (int64_t v = 0; v < V; ++v) WICK_F32X8_STORE(tmp + 8 * v, acc[r][v]);
      for (int64_t j = 0; j < cols; ++j) yr[j] = tmp[j];
    }
  }
}

// Every output row of one column block, R rows at a time (R = kBlockSums / V), the last
// 1..R-1 rows through the smaller blocks.
template <int64_t V>
__attribute__((always_inline)) inline void dw_columns(const ConvGeometry& g, const float* x, int64_t rs,
                                                      const int64_t* tap_at, const float* wk, float b, int64_t ow0,
                                                      float* y) {
  constexpr int64_t R = kBlockSums / V;
  int64_t oh = 0;
  for (; oh + R <= g.out_h; oh += R) dw_block<R, V>(g, x, rs, tap_at, wk, b, oh, ow0, y);
  switch (g.out_h - oh) {
    case 7: if constexpr (R > 7) dw_block<7, V>(g, x, rs, tap_at, wk, b, oh, ow0, y); break;
    case 6: if constexpr (R > 6) dw_block<6, V>(g, x, rs, tap_at, wk, b, oh, ow0, y); break;
    case 5: if constexpr (R > 5) dw_block<5, V>(g, x, rs, tap_at, wk, b, oh, ow0, y); break;
    case 4: if constexpr (R > 4) dw_block<4, V>(g, x, rs, tap_at, wk, b, oh, ow0, y); break;
    case 3: if constexpr (R > 3) dw_block<3, V>(g, x, rs, tap_at, wk, b, oh, ow0, y); break;
    case 2: if constexpr (R > 2) dw_block<2, V>(g, x, rs, tap_at, wk, b, oh, ow0, y); break;
    case 1: if constexpr (R > 1) dw_block<1, V>(g, x, rs, tap_at, wk, b, oh, ow0, y); break;
    default: break;
  }
}

WICK_HOT_LOOP void depthwise_planes(const Depthwise& d, int64_t begin, int64_t end, std::vector<float>& buf) {
  const ConvGeometry& g = d.g;
  const int64_t sw = g.stride_w, L = d.row_len, rs = sw * L;
  // Zeros once: every plane writes the same interior positions, so the padding stays zero.
  buf.assign(static_cast<size_t>(d.rows * rs), 0.0f);
  // Where tap kw's columns start in a row's phase rows (no division in the loops below).
  int64_t tap_at[64];
  for (int64_t kw = 0; kw < g.k_w; ++kw) tap_at[kw] = ((kw * g.dil_w) % sw) * L + (kw * g.dil_w) / sw;
  // Input rows that land in the buffer (padded row ih + pad_h < rows).
  const int64_t in_rows = std::min(g.in_h, d.rows - g.pad_h);
  // Phase r's row holds x[t * sw + r - pad] at t in [lo[r], hi[r]) (zeros around): the same
  // for every row and plane, so the divisions stay out of the copy loops (on MobileNet's
  // 7 x 7 planes they cost more than the taps).
  // Capped below the 8 floats of slack, which only the stride-2 copy's last vector touches.
  const int64_t data_len = L - 8;
  int64_t lo[64], hi[64];
  for (int64_t r = 0; r < sw; ++r) {
    const int64_t off = r - g.pad_w;
    lo[r] = std::min(data_len, off >= 0 ? 0 : (-off + sw - 1) / sw);
    hi[r] = std::max(lo[r], std::min(data_len, g.in_w - off <= 0 ? 0 : (g.in_w - off + sw - 1) / sw));
  }
  for (int64_t plane = begin; plane < end; ++plane) {
    const int64_t n = plane / g.out_c, oc = plane % g.out_c, ic = oc / d.mult;
    // Phase rows of the input plane (built again for each output channel of a multiplier
    // above 1, which real networks rarely use).
    const float* x = d.in + (n * g.in_c + ic) * g.in_h * g.in_w;
    const float* plane_end = x + g.in_h * g.in_w;
    for (int64_t ih = 0; ih < in_rows; ++ih) {
      const float* xr = x + ih * g.in_w;
      float* row = buf.data() + (ih + g.pad_h) * rs;  // phase r at row + r * L
      if (sw == 1) {
        if (hi[0] > lo[0]) std::memcpy(row + lo[0], xr + lo[0] - g.pad_w, static_cast<size_t>(hi[0] - lo[0]) * sizeof(float));
        continue;
      }
      int64_t t0 = 0;  // positions below t0 go through the per-element loop below
      if (sw == 2) {
        // Both phases from one pass: 16 floats loaded at x[2t - pad] hold phase 0's
        // positions t..t+7 in their even lanes and phase 1's in their odd ones. The last
        // 8 too while the loads stay inside the plane: lanes past a phase's end (read from
        // the next row) are stored, then zeroed again (phase rows have 8 floats of slack).
        float* ph0 = row;
        float* ph1 = row + L;
        const int64_t end = std::max(hi[0], hi[1]);
        int64_t t = lo[0];  // the first t whose x[2t - pad] exists (lo[1] <= lo[0])
        t0 = t;
        for (; t < end && xr + 2 * t - g.pad_w + 16 <= plane_end; t += 8) {
          f32x8 v0, v1;
          WICK_F32X8_LOAD(v0, xr + 2 * t - g.pad_w);
          WICK_F32X8_LOAD(v1, xr + 2 * t - g.pad_w + 8);
          const f32x8 even = __builtin_shufflevector(v0, v1, 0, 2, 4, 6, 8, 10, 12, 14);
          const f32x8 odd = __builtin_shufflevector(v0, v1, 1, 3, 5, 7, 9, 11, 13, 15);
          WICK_F32X8_STORE(ph0 + t, even);
          WICK_F32X8_STORE(ph1 + t, odd);
        }
        for (int64_t j = hi[0]; j < t; ++j) ph0[j] = 0.0f;
        for (int64_t j = hi[1]; j < t; ++j) ph1[j] = 0.0f;
        // what the vectors did not cover: phase 1's head below lo[0], both phases' tails
        for (int64_t r = 0; r < 2; ++r) {
          float* ph = row + r * L;
          const int64_t off = r - g.pad_w;
          for (int64_t u = lo[r]; u < std::min(t0, hi[r]); ++u) ph[u] = xr[2 * u + off];
          for (int64_t u = std::max(t, lo[r]); u < hi[r]; ++u) ph[u] = xr[2 * u + off];
        }
        continue;
      }
      for (int64_t r = 0; r < sw; ++r) {
        // ph[t] = x[t * sw + r - pad] for the t inside the row (zeros around it).
        float* ph = row + r * L;
        const int64_t off = r - g.pad_w;
        for (int64_t t = std::max(t0, lo[r]); t < hi[r]; ++t) ph[t] = xr[t * sw + off];
      }
    }
    const float* wk = d.w + oc * g.k_h * g.k_w;
    const float b = d.bias ? d.bias[oc] : 0.0f;
    float* y = d.out + (n * g.out_c + oc) * g.out_h * g.out_w;
    int64_t ow0 = 0;
    for (; ow0 + 8 < g.out_w; ow0 += kBlock) dw_columns<2>(g, buf.data() + ow0, rs, tap_at, wk, b, ow0, y);
    // At most 8 columns left (MobileNet's 7-wide planes): one vector.
    if (ow0 < g.out_w) dw_columns<1>(g, buf.data() + ow0, rs, tap_at, wk, b, ow0, y);
  }
}

}  // namespace

void conv2d_depthwise(const float* in, const float* w, const float* bias, float* out, const ConvGeometry& g) {
  Depthwise d{in, w, bias, out, g, g.out_c / g.in_c, 0, 0};
  // Loads reach column ow0 + 15 + ((k_w - 1) * dil) / stride of a phase row, ow0 < out_w.
  // Plus 8 floats of slack for the stride-2 copy's last vector.
  d.row_len = ((g.out_w + kBlock - 1) / kBlock) * kBlock + ((g.k_w - 1) * g.dil_w) / g.stride_w + 1 + 8;
  // Padded rows that output rows read: up to (out_h - 1) * stride + (k_h - 1) * dil.
  d.rows = (g.out_h - 1) * g.stride_h + (g.k_h - 1) * g.dil_h + 1;
  const int64_t plane_cost = std::max<int64_t>(1, g.out_h * g.out_w * g.k_h * g.k_w);
  parallel_for(g.batch * g.out_c, std::max<int64_t>(1, 65536 / plane_cost), [&](int64_t begin, int64_t end) {
    thread_local std::vector<float> buf;
    depthwise_planes(d, begin, end, buf);
  });
}

}  // namespace wick::cpu
