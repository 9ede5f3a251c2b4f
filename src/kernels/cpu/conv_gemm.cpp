// fp32 convolution as packed-panel matrix products (conv_geometry.h). Per (image, group,
// tile of output pixels) the im2col columns of the tile are packed, KC rows at a time, into
// NR-wide panels (zeros where the kernel overhangs the padding or the tile ends), and
// sgemm_tile multiplies the group's weight rows [oc, (ic, kh, kw)], read in place, with them
// straight into the output planes. A tile of KC x 64 floats (64 KiB natively) stays in L2
// while every block of output channels runs over it, and one panel (16 KiB) in L1 while a
// block's 6 x 16 sums are accumulated. Tiles, and blocks of output channels when there are
// fewer tiles than threads (MobileNet's 7 x 7 planes), are spread over the thread pool.
#include <algorithm>
#include <vector>

#include "kernels/cpu/conv_geometry.h"
#include "kernels/cpu/dot_rows.h"
#include "kernels/cpu/hot_loop.h"
#include "kernels/cpu/sgemm_tile.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu {

namespace {

constexpr int64_t kPanelsPerTile = 4;
constexpr int64_t kTile = kPanelsPerTile * kSgemmNR;  // output pixels per tile
constexpr int64_t kKc = 256;                          // im2col rows per packed tile

struct ConvGemm {
  const float* in;
  const float* w;
  const float* bias;
  float* out;
  ConvGeometry g;
  int64_t in_cg, out_cg, taps, k, pixels, tiles, oc_chunk, oc_chunks;
  bool pointwise;  // 1x1, stride 1, no padding: im2col rows are the input planes themselves
};

// Packs im2col rows [k0, k0 + kc) for output pixels [p0, p0 + n) of image plane group x
// into panels of NR columns (row kk of panel q at bp + (q * kc + kk) * NR).
WICK_HOT_LOOP void pack_tile(const ConvGemm& c, const float* x, int64_t k0, int64_t kc, int64_t p0, int64_t n, const int64_t* ih0,
               const int64_t* iw0, float* bp) {
  const ConvGeometry& g = c.g;
  const int64_t in_plane = g.in_h * g.in_w, NR = kSgemmNR, sw = g.stride_w;
  const int64_t panels = (n + NR - 1) / NR;
  for (int64_t kk = 0; kk < kc; ++kk) {
    const int64_t kidx = k0 + kk;
    // Row kidx = (input channel, tap): its plane and the tap's offsets, once per row.
    const int64_t ic = c.pointwise ? kidx : kidx / c.taps, tap = c.pointwise ? 0 : kidx % c.taps;
    const int64_t dh = (tap / g.k_w) * g.dil_h, dw = (tap % g.k_w) * g.dil_w;
    const float* plane = x + ic * in_plane;
    const float* plane_end = plane + in_plane;
    for (int64_t q = 0; q < panels; ++q) {
      const int64_t j0 = q * NR, cols = std::min(NR, n - j0);
      float* dst = bp + (q * kc + kk) * NR;
      // Zeros first (whole vectors: the padding's, and past the tile's last column), then
      // the valid values over them.
      const f32x8 zero{};
      for (int64_t v = 0; v < NR; v += 8) WICK_F32X8_STORE(dst + v, zero);
      if (c.pointwise) {
        std::copy(plane + p0 + j0, plane + p0 + j0 + cols, dst);
      } else if (ih0[j0] == ih0[j0 + cols - 1]) {
        // The panel lies in one output row: one (strided) input row run, zeros where the
        // kernel overhangs the padding.
        const int64_t ih = ih0[j0] + dh, iw = iw0[j0] + dw;
        int64_t lo = cols, hi = cols;
        if (ih >= 0 && ih < g.in_h) {
          if (sw == 1) {
            lo = std::clamp<int64_t>(-iw, 0, cols);
            hi = std::clamp<int64_t>(g.in_w - iw, lo, cols);
          } else {
            // Divisions only at the edges (one per row and panel cost as much as the copy).
            lo = std::min(cols, iw >= 0 ? 0 : (-iw + sw - 1) / sw);
            hi = iw + (cols - 1) * sw < g.in_w ? cols
                                                : std::max(lo, std::min(cols, g.in_w - iw <= 0 ? 0 : (g.in_w - iw + sw - 1) / sw));
          }
        }
        if (hi > lo) {
          const float* src = plane + ih * g.in_w + iw + lo * sw;
          if (sw == 1) {
            std::copy(src, src + (hi - lo), dst + lo);
          } else {
            int64_t j = 0;
            if (sw == 2) {
              // The even elements of 16 loaded floats, 8 at a time, the last 8 too while
              // the loads stay in the plane and the stores in the panel's row: lanes past
              // the run (read from the next input row) are zeroed again.
              for (; j < hi - lo && lo + j + 8 <= NR && src + 2 * j + 16 <= plane_end; j += 8) {
                f32x8 v0, v1;
                WICK_F32X8_LOAD(v0, src + 2 * j);
                WICK_F32X8_LOAD(v1, src + 2 * j + 8);
                const f32x8 even = __builtin_shufflevector(v0, v1, 0, 2, 4, 6, 8, 10, 12, 14);
                WICK_F32X8_STORE(dst + lo + j, even);
              }
              for (int64_t z = hi; z < lo + j; ++z) dst[z] = 0.0f;
            }
            for (; j < hi - lo; ++j) dst[lo + j] = src[j * sw];
          }
        }
      } else {
        for (int64_t j = 0; j < cols; ++j) {
          const int64_t ih = ih0[j0 + j] + dh, iw = iw0[j0 + j] + dw;
          dst[j] = ih >= 0 && ih < g.in_h && iw >= 0 && iw < g.in_w ? plane[ih * g.in_w + iw] : 0.0f;
        }
      }
    }
  }
}

// Work item = (image, group, pixel tile, chunk of output channels).
void run_item(const ConvGemm& c, int64_t item, std::vector<float>& bp) {
  const ConvGeometry& g = c.g;
  const int64_t chunk = item % c.oc_chunks, tile = (item / c.oc_chunks) % c.tiles;
  const int64_t grp = (item / (c.oc_chunks * c.tiles)) % g.groups, n = item / (c.oc_chunks * c.tiles * g.groups);
  const int64_t p0 = tile * kTile, np = std::min(kTile, c.pixels - p0);
  const int64_t oc0 = grp * c.out_cg + chunk * c.oc_chunk, noc = std::min(c.oc_chunk, (grp + 1) * c.out_cg - oc0);
  if (noc <= 0) return;
  int64_t ih0[kTile], iw0[kTile];
  for (int64_t j = 0; j < np; ++j) {
    const int64_t p = p0 + j;
    ih0[j] = (p / g.out_w) * g.stride_h - g.pad_h;
    iw0[j] = (p % g.out_w) * g.stride_w - g.pad_w;
  }
  const float* x = c.in + (n * g.in_c + grp * c.in_cg) * g.in_h * g.in_w;
  float* y = c.out + (n * g.out_c + oc0) * c.pixels + p0;
  bp.resize(static_cast<size_t>(kKc * kTile));
  // A 1x1 layer's im2col rows are its input planes: whole panels read them in place (no
  // copy: packing cost about as much as the product for MobileNet's 16-48-channel
  // projections), only a last partial panel is packed (its zeros past the tile). Not when
  // the planes are a multiple of 1 KiB apart (ESRGAN's 64 x 64): a panel's rows then fall
  // into a few L1 sets and evict each other (its Wasm run took twice as long that way).
  const bool aliasing = c.pixels % 256 == 0;
  const int64_t in_place = c.pointwise && !aliasing ? (np / kSgemmNR) * kSgemmNR : 0;
  for (int64_t k0 = 0; k0 < c.k; k0 += kKc) {
    const int64_t kc = std::min(kKc, c.k - k0);
    SgemmTile t{};
    t.a = c.w + oc0 * c.k + k0;
    t.lda = c.k;
    t.m = noc;
    t.kc = kc;
    t.ldc = c.pixels;
    t.cstride = 1;
    t.bias = c.bias ? c.bias + oc0 : nullptr;
    t.accumulate = k0 > 0;
    if (in_place > 0) {
      t.bp = x + k0 * c.pixels + p0;
      t.ldb = c.pixels;
      t.n = in_place;
      t.c = y;
      sgemm_tile(t);
    }
    if (np > in_place) {
      pack_tile(c, x, k0, kc, p0 + in_place, np - in_place, ih0 + in_place, iw0 + in_place, bp.data());
      t.bp = bp.data();
      t.ldb = 0;
      t.n = np - in_place;
      t.c = y + in_place;
      sgemm_tile(t);
    }
  }
}

// A 1x1 convolution of single-pixel planes (MobileNet's squeeze-excite layers) is a
// matrix-vector product: a 16-column panel would hold one useful column, so each output
// channel is a dot product of its weight row with the input channels instead.
WICK_HOT_LOOP void pointwise_gemv(const ConvGemm& c, int64_t begin, int64_t end) {
  const ConvGeometry& g = c.g;
  for (int64_t i = begin; i < end; ++i) {
    const int64_t oc = i % g.out_c, n = i / g.out_c, grp = oc / c.out_cg;
    const float* x = c.in + n * g.in_c + grp * c.in_cg;
    c.out[i] = dot_f32(x, c.w + oc * c.k, c.k) + (c.bias ? c.bias[oc] : 0.0f);
  }
}

}  // namespace

void conv2d_gemm(const float* in, const float* w, const float* bias, float* out, const ConvGeometry& g) {
  ConvGemm c{in, w, bias, out, g, 0, 0, 0, 0, 0, 0, 0, 1, false};
  c.in_cg = g.in_c / g.groups;
  c.out_cg = g.out_c / g.groups;
  c.taps = g.k_h * g.k_w;
  c.k = c.in_cg * c.taps;
  c.pixels = g.out_h * g.out_w;
  c.tiles = (c.pixels + kTile - 1) / kTile;
  c.pointwise = c.taps == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_h == 0 && g.pad_w == 0;
  if (c.pointwise && c.pixels == 1) {
    parallel_for(g.batch * g.out_c, std::max<int64_t>(1, 65536 / std::max<int64_t>(c.k, 1)),
                 [&](int64_t begin, int64_t end) { pointwise_gemv(c, begin, end); });
    return;
  }
  // Enough items for every thread (a few each, for balance), channel chunks whole MR blocks.
  const int64_t threads = num_threads();
  const int64_t items = g.batch * g.groups * c.tiles;
  const int64_t blocks = (c.out_cg + kSgemmMR - 1) / kSgemmMR;
  c.oc_chunks = items >= 2 * threads ? 1 : std::min(blocks, (2 * threads + items - 1) / items);
  c.oc_chunk = ((blocks + c.oc_chunks - 1) / c.oc_chunks) * kSgemmMR;
  const int64_t item_cost = std::max<int64_t>(1, c.oc_chunk * c.k * kTile);
  parallel_for(items * c.oc_chunks, std::max<int64_t>(1, 262144 / item_cost), [&](int64_t begin, int64_t end) {
    thread_local std::vector<float> bp;
    for (int64_t i = begin; i < end; ++i) run_item(c, i, bp);
  });
}

}  // namespace wick::cpu
