// fp32 depthwise convolution (conv_geometry.h: one input channel per group, any channel
// multiplier). Each input plane is first copied into zero-padded rows split by stride phase,
// phase r holding padded columns r, r + stride, ...: output column ow of tap kw then reads
// phase (kw * dil) % stride at ow + (kw * dil) / stride, so 16 outputs of a row are two
// contiguous loads per tap with no bounds to check. The taps' weights are broadcast and the
// 16 sums of a block stay in registers over all taps. Planes are spread over the pool.
#include <algorithm>
#include <vector>

#include "kernels/cpu/conv_geometry.h"
#include "kernels/cpu/hot_loop.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu {

namespace {

constexpr int64_t kBlock = 16;  // output columns per register block (two f32x8)

struct Depthwise {
  const float* in;
  const float* w;
  const float* bias;
  float* out;
  ConvGeometry g;
  int64_t mult, row_len;  // channel multiplier; floats per phase row
};

WICK_HOT_LOOP void depthwise_planes(const Depthwise& d, int64_t begin, int64_t end, std::vector<float>& buf) {
  const ConvGeometry& g = d.g;
  const int64_t sw = g.stride_w, L = d.row_len;
  // Zeros once: every plane writes the same interior positions, so the padding stays zero.
  buf.assign(static_cast<size_t>(g.in_h * sw * L), 0.0f);
  // Where tap kw's 16 columns start in a row's phase rows (no division in the loops below).
  int64_t tap_at[64];
  for (int64_t kw = 0; kw < g.k_w; ++kw) tap_at[kw] = ((kw * g.dil_w) % sw) * L + (kw * g.dil_w) / sw;
  for (int64_t plane = begin; plane < end; ++plane) {
    const int64_t n = plane / g.out_c, oc = plane % g.out_c, ic = oc / d.mult;
    // Phase rows of the input plane (built again for each output channel of a multiplier
    // above 1, which real networks rarely use).
    const float* x = d.in + (n * g.in_c + ic) * g.in_h * g.in_w;
    for (int64_t ih = 0; ih < g.in_h; ++ih) {
      const float* xr = x + ih * g.in_w;
      for (int64_t r = 0; r < sw; ++r) {
        // ph[t] = x[t * sw + r - pad] for the t inside the row (zeros around it).
        float* ph = buf.data() + (ih * sw + r) * L;
        const int64_t off = r - g.pad_w;
        const int64_t lo = std::min(L, off >= 0 ? 0 : (-off + sw - 1) / sw);
        const int64_t hi = std::max(lo, std::min(L, g.in_w - off <= 0 ? 0 : (g.in_w - off + sw - 1) / sw));
        if (sw == 1) {
          for (int64_t t = lo; t < hi; ++t) ph[t] = xr[t + off];
        } else {
          int64_t t = lo;
          if (sw == 2) {  // the even elements of 16 loaded floats, 8 at a time
            for (; t + 8 <= hi && 2 * t + off + 16 <= g.in_w; t += 8) {
              f32x8 v0, v1;
              WICK_F32X8_LOAD(v0, xr + 2 * t + off);
              WICK_F32X8_LOAD(v1, xr + 2 * t + off + 8);
              const f32x8 even = __builtin_shufflevector(v0, v1, 0, 2, 4, 6, 8, 10, 12, 14);
              WICK_F32X8_STORE(ph + t, even);
            }
          }
          for (; t < hi; ++t) ph[t] = xr[t * sw + off];
        }
      }
    }
    const float* wk = d.w + oc * g.k_h * g.k_w;
    const float b = d.bias ? d.bias[oc] : 0.0f;
    float* y = d.out + (n * g.out_c + oc) * g.out_h * g.out_w;
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      float* yr = y + oh * g.out_w;
      int64_t ow0 = 0;
      for (; ow0 + 8 < g.out_w; ow0 += kBlock) {
        // Taps alternate between two pairs of sums: four independent multiply-add chains
        // instead of two, which the adds' latency would otherwise pace.
        f32x8 a0 = f32x8{} + b, a1 = a0, c0 = f32x8{}, c1 = f32x8{};
        for (int64_t kh = 0; kh < g.k_h; ++kh) {
          const int64_t ih = oh * g.stride_h - g.pad_h + kh * g.dil_h;
          if (ih < 0 || ih >= g.in_h) continue;
          const float* rows = buf.data() + ih * sw * L + ow0;
          const float* wr = wk + kh * g.k_w;
          int64_t kw = 0;
          for (; kw + 1 < g.k_w; kw += 2) {
            f32x8 x0, x1, x2, x3;
            WICK_F32X8_LOAD(x0, rows + tap_at[kw]);
            WICK_F32X8_LOAD(x1, rows + tap_at[kw] + 8);
            WICK_F32X8_LOAD(x2, rows + tap_at[kw + 1]);
            WICK_F32X8_LOAD(x3, rows + tap_at[kw + 1] + 8);
            a0 += wr[kw] * x0;
            a1 += wr[kw] * x1;
            c0 += wr[kw + 1] * x2;
            c1 += wr[kw + 1] * x3;
          }
          if (kw < g.k_w) {
            f32x8 x0, x1;
            WICK_F32X8_LOAD(x0, rows + tap_at[kw]);
            WICK_F32X8_LOAD(x1, rows + tap_at[kw] + 8);
            a0 += wr[kw] * x0;
            a1 += wr[kw] * x1;
          }
        }
        a0 += c0;
        a1 += c1;
        const int64_t cols = std::min(kBlock, g.out_w - ow0);
        if (cols == kBlock) {
          WICK_F32X8_STORE(yr + ow0, a0);
          WICK_F32X8_STORE(yr + ow0 + 8, a1);
        } else {
          float tmp[kBlock];
          WICK_F32X8_STORE(tmp, a0);
          WICK_F32X8_STORE(tmp + 8, a1);
          for (int64_t j = 0; j < cols; ++j) yr[ow0 + j] = tmp[j];
        }
      }
      // At most 8 columns left (MobileNet's 7-wide planes): one vector.
      if (ow0 < g.out_w) {
        f32x8 a0 = f32x8{} + b, c0 = f32x8{};
        for (int64_t kh = 0; kh < g.k_h; ++kh) {
          const int64_t ih = oh * g.stride_h - g.pad_h + kh * g.dil_h;
          if (ih < 0 || ih >= g.in_h) continue;
          const float* rows = buf.data() + ih * sw * L + ow0;
          const float* wr = wk + kh * g.k_w;
          int64_t kw = 0;
          for (; kw + 1 < g.k_w; kw += 2) {
            f32x8 x0, x1;
            WICK_F32X8_LOAD(x0, rows + tap_at[kw]);
            WICK_F32X8_LOAD(x1, rows + tap_at[kw + 1]);
            a0 += wr[kw] * x0;
            c0 += wr[kw + 1] * x1;
          }
          if (kw < g.k_w) {
            f32x8 x0;
            WICK_F32X8_LOAD(x0, rows + tap_at[kw]);
            a0 += wr[kw] * x0;
          }
        }
        a0 += c0;
        float tmp[8];
        WICK_F32X8_STORE(tmp, a0);
        for (int64_t j = 0; j < g.out_w - ow0; ++j) yr[ow0 + j] = tmp[j];
      }
    }
  }
}

}  // namespace

void conv2d_depthwise(const float* in, const float* w, const float* bias, float* out, const ConvGeometry& g) {
  Depthwise d{in, w, bias, out, g, g.out_c / g.in_c, 0};
  // Loads reach column ow0 + 15 + ((k_w - 1) * dil) / stride of a phase row, ow0 < out_w.
  d.row_len = ((g.out_w + kBlock - 1) / kBlock) * kBlock + ((g.k_w - 1) * g.dil_w) / g.stride_w + 1;
  const int64_t plane_cost = std::max<int64_t>(1, g.out_h * g.out_w * g.k_h * g.k_w);
  parallel_for(g.batch * g.out_c, std::max<int64_t>(1, 65536 / plane_cost), [&](int64_t begin, int64_t end) {
    thread_local std::vector<float> buf;
    depthwise_planes(d, begin, end, buf);
  });
}

}  // namespace wick::cpu
