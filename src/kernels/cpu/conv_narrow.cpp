// fp32 convolution with few output channels per group (2-7: ESRGAN's growth layers and its
// 3-channel output layer) and stride 1 along the width. The packed matrix product would
// spend more time packing im2col than multiplying for so few rows, so this one reads the
// input rows in place: for a row of 32 output columns and up to 4 output channels, each
// input channel and tap is 4 vector loads and up to 4 broadcast weights feeding up to 16
// multiply-adds (conv2d_blocked's 4 x 8 block loads 5 values per 4 of them).
#include <algorithm>
#include <cstring>

#include "kernels/cpu/conv_geometry.h"
#include "kernels/cpu/hot_loop.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu {

namespace {

constexpr int64_t kCols = 32;  // output columns per block (4 f32x8)

// Unaligned vector load and store as values: memcpy into an element of an array of vectors
// inside a loop made GCC copy through the stack and keep the sums there too.
inline f32x8 load8(const float* p) {
  f32x8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store8(float* p, f32x8 v) { std::memcpy(p, &v, sizeof v); }

struct Narrow {
  const float* in;
  const float* w;
  const float* bias;
  float* out;
  ConvGeometry g;
  int64_t in_cg, out_cg, oc_blocks;
};

// One block: NOC output channels from oc0 x NV vectors of columns from ow0 of row oh.
template <int NOC, int NV>
__attribute__((always_inline)) inline void block(const Narrow& c, int64_t n, int64_t grp, int64_t oc0, int64_t oh,
                                                 int64_t ow0) {
  const ConvGeometry& g = c.g;
  const int64_t taps = g.k_h * g.k_w, in_plane = g.in_h * g.in_w;
  f32x8 acc[NOC][NV];
  #pragma GCC unroll 4
  for (int j = 0; j < NOC; ++j)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[j][v] = f32x8{} + (c.bias ? c.bias[oc0 + j] : 0.0f);
  const float* xg = c.in + (n * g.in_c + grp * c.in_cg) * in_plane;
  const float* wb = c.w + oc0 * c.in_cg * taps;
  // Input channels in chunks of 8, then taps, then the chunk's channels: planes a power of
  // two apart map to the same cache sets, so the rows of all channels at once would evict
  // each other from L1 between taps.
  for (int64_t ic0 = 0; ic0 < c.in_cg; ic0 += 8)
  for (int64_t kh = 0; kh < g.k_h; ++kh) {
    const int64_t ih = oh * g.stride_h - g.pad_h + kh * g.dil_h;
    if (ih < 0 || ih >= g.in_h) continue;
    for (int64_t kw = 0; kw < g.k_w; ++kw) {
      const int64_t iw0 = ow0 - g.pad_w + kw * g.dil_w;
      const bool inside = iw0 >= 0 && iw0 + NV * 8 <= g.in_w;
      const int64_t tap = kh * g.k_w + kw;
      for (int64_t ic = ic0; ic < std::min(c.in_cg, ic0 + 8); ++ic) {
        const float* xr = xg + ic * in_plane + ih * g.in_w;
        f32x8 xv[NV];
        if (inside) {
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v) xv[v] = load8(xr + iw0 + 8 * v);
        } else {
          // At the row's ends only the vectors that cross them are gathered.
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v) {
            const int64_t a = iw0 + 8 * v;
            if (a >= 0 && a + 8 <= g.in_w) {
              xv[v] = load8(xr + a);
            } else {
              float tmp[8];
              for (int64_t t = 0; t < 8; ++t) tmp[t] = a + t >= 0 && a + t < g.in_w ? xr[a + t] : 0.0f;
              xv[v] = load8(tmp);
            }
          }
        }
#pragma GCC unroll 4
        for (int j = 0; j < NOC; ++j) {
          const float wv = wb[(j * c.in_cg + ic) * taps + tap];
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v) acc[j][v] += wv * xv[v];
        }
      }
    }
  }
  const int64_t cols = std::min<int64_t>(NV * 8, g.out_w - ow0);
  for (int j = 0; j < NOC; ++j) {
    float* yr = c.out + ((n * g.out_c + oc0 + j) * g.out_h + oh) * g.out_w + ow0;
    if (cols == NV * 8) {
      for (int v = 0; v < NV; ++v) store8(yr + 8 * v, acc[j][v]);
    } else {
      float tmp[NV * 8];
      for (int v = 0; v < NV; ++v) store8(tmp + 8 * v, acc[j][v]);
      for (int64_t t = 0; t < cols; ++t) yr[t] = tmp[t];
    }
  }
}

// Rows [begin, end) of (image, group, channel block, output row).
WICK_HOT_LOOP void narrow_rows(const Narrow& c, int64_t begin, int64_t end) {
  const ConvGeometry& g = c.g;
  for (int64_t r = begin; r < end; ++r) {
    const int64_t oh = r % g.out_h, blk = (r / g.out_h) % c.oc_blocks;
    const int64_t grp = (r / (g.out_h * c.oc_blocks)) % g.groups, n = r / (g.out_h * c.oc_blocks * g.groups);
    const int64_t oc0 = grp * c.out_cg + blk * 4, noc = std::min<int64_t>(4, c.out_cg - blk * 4);
    for (int64_t ow0 = 0; ow0 < g.out_w; ow0 += kCols) {
      // 4 channels x 3 vectors or up to 3 x 4: 12 sums, within 16 AVX registers.
      switch (noc) {
        case 1: block<1, 4>(c, n, grp, oc0, oh, ow0); break;
        case 2: block<2, 4>(c, n, grp, oc0, oh, ow0); break;
        case 3: block<3, 4>(c, n, grp, oc0, oh, ow0); break;
        default:
          block<4, 3>(c, n, grp, oc0, oh, ow0);
          if (ow0 + 24 < g.out_w) block<4, 1>(c, n, grp, oc0, oh, ow0 + 24);
          break;
      }
    }
  }
}

}  // namespace

void conv2d_narrow(const float* in, const float* w, const float* bias, float* out, const ConvGeometry& g) {
  Narrow c{in, w, bias, out, g, g.in_c / g.groups, g.out_c / g.groups, 0};
  c.oc_blocks = (c.out_cg + 3) / 4;
  const int64_t rows = g.batch * g.groups * c.oc_blocks * g.out_h;
  const int64_t row_cost = std::max<int64_t>(1, g.out_w * 4 * c.in_cg * g.k_h * g.k_w);
  parallel_for(rows, std::max<int64_t>(1, 65536 / row_cost), [&](int64_t begin, int64_t end) { narrow_rows(c, begin, end); });
}

}  // namespace wick::cpu
