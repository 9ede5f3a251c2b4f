// Implicit-GEMM convolution for groups == 1 (1-D runs as height 1), the shared-memory tiled
// kernel of bench/kernels/conv (v5/v6): M = output pixels (batch folded in), N = output
// channels, K = in_c * KH * KW in the weight's own order (c, ky, kx), in the 64-pixel x
// BN-channel tile of conv2d_igemm_tile.inc.wgsl. The A tile is the im2col of the input
// gathered on the fly (padding/stride/dilation checks), the B tile comes from weights
// repacked at graph build (ops/conv/register.cpp) as wT[Kpad][Npad].
// CIN_INNER (where in_c >= 16): K in the order (ky, kx, c) instead, so a K step lies within
// one tap (in_c % 16 == 0) or at most two, whose input positions and bounds checks are
// worked out once per step (at_step) instead of per element; the weights are repacked in
// that order (bench/kernels/conv/README.md, v15-v16 and v23-v26).
// Split-K (ks > 1, for layers with too few tiles to fill the GPU): workgroup z sums its
// share of the K steps and writes the raw partial sums to y[z * total + i] (y is then a
// scratch buffer); conv2d_splitk_reduce.wgsl adds them up with bias, clamp and epilogue.
// With ks == 1 this shader applies those itself. Same Params, bindings 0 and 2-4
// (conv2d_params.inc.wgsl) and semantics as conv2d_block.
//#include "conv2d_igemm_tile.inc.wgsl"

override ks: u32 = 1;   // K splits (workgroups along z)
// K's order: 0 (c, ky, kx); else (ky, kx, c) with a K step in one tap (1: in_c % 16 == 0) or
// across at most two (2: in_c >= 16).
override CIN_INNER: u32 = 0u;

// The loader row: one output pixel (fixed over K), its window's top-left input position;
// under CIN_INNER also the current K step's taps (at_step).
struct ALoader { ok: bool, iy0: i32, ix0: i32, xb: u32, hw: u32, k_total: u32,
                 k0: u32, c0: u32, ok0: bool, base0: u32, ok1: bool, base1: u32 }

// Tap t (ky, kx) of the loader row's window: whether it lies in the input, and its offset
// there (channel 0).
struct Tap { ok: bool, base: u32 }

fn tap_at(a: ALoader, t: u32) -> Tap {
  let ky = t / KW;
  let kx = t - ky * KW;
  let iy = a.iy0 + i32(ky * DH);
  let ix = a.ix0 + i32(kx * DW);
  let ok = a.ok && t < KH * KW && iy >= 0 && iy < i32(p.in_h) && ix >= 0 && ix < i32(p.in_w);
  return Tap(ok, a.xb + select(0u, u32(iy) * p.in_w + u32(ix), ok));
}

// CIN_INNER: the K step starting at k0 covers channels c0 .. of one tap (and under 2 at
// most the first channels of the next); the taps' positions, once per step.
fn at_step(a: ALoader, k0: u32) -> ALoader {
  var s = a;
  if (CIN_INNER != 0u) {
    let tap = k0 / p.in_c;
    let t0 = tap_at(a, tap);
    s.k0 = k0;
    s.c0 = k0 - tap * p.in_c;
    s.ok0 = t0.ok;
    s.base0 = t0.base;
    if (CIN_INNER == 2u) {
      let t1 = tap_at(a, tap + 1u);
      s.ok1 = t1.ok;
      s.base1 = t1.base;
    }
  }
  return s;
}

// im2col element k: (c, ky, kx), or under CIN_INNER (ky, kx, c) of the step at_step gave;
// the input under that tap of channel c, 0 in the padding.
fn a_value(a: ALoader, k: u32) -> f32 {
  if (CIN_INNER == 1u) {  // the step's channels c0 .. c0 + 15 all below in_c
    if (a.ok0) { return x[a.base0 + (a.c0 + k - a.k0) * a.hw]; }
    return 0.0;
  }
  if (CIN_INNER == 2u) {
    let c = a.c0 + (k - a.k0);
    let next = c >= p.in_c;
    if (select(a.ok0, a.ok1, next)) { return x[select(a.base0, a.base1, next) + (c - select(0u, p.in_c, next)) * a.hw]; }
    return 0.0;
  }
  let kk_n = KH * KW;
  let c = k / kk_n;
  let rem = k - c * kk_n;
  let ky = rem / KW;
  let kx = rem - ky * KW;
  let iy = a.iy0 + i32(ky * DH);
  let ix = a.ix0 + i32(kx * DW);
  if (a.ok && k < a.k_total && iy >= 0 && iy < i32(p.in_h) && ix >= 0 && ix < i32(p.in_w)) {
    return x[a.xb + c * a.hw + u32(iy) * p.in_w + u32(ix)];
  }
  return 0.0;
}

// part: where this split's partial sums start (ks > 1).
struct TileOut { plane: u32, part: u32 }

// Output pixel m (batch folded in) of channel n.
fn store_result(o: TileOut, m: u32, n: u32, v: f32) {
  let oi = ((m / o.plane) * p.out_c + n) * o.plane + m % o.plane;
  if (ks == 1u) {
    y[oi] = finish(v + bias_or_zero(n));
  } else {
    y[o.part + oi] = v;
  }
}

// TX x TY invocations, li = lid.x + TX lid.y: the K step's reads of ta and tb at lid.x and
// lid.y (li % TX and li / TX), indices Tint's range analysis bounds, so Dawn's
// robustness adds no clamp to them (conv2d_igemm_tile.inc.wgsl, tile_fma_rows).
@compute @workgroup_size(TX, TY)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let plane = p.out_h * p.out_w;
  let m_total = p.n * plane;
  let k_total = p.in_c * KH * KW;
  let npad4 = ((p.out_c + BN - 1u) / BN) * (BN / 4u);
  let m0 = wid.x * BM;
  let n0 = wid.y * BN;

  let gm = m0 + li % BM;
  let pix = gm % plane;
  let hw = p.in_h * p.in_w;
  let a = ALoader(gm < m_total, i32((pix / p.out_w) * SH) - i32(p.pad_h), i32((pix % p.out_w) * SW) - i32(p.pad_w),
                  (gm / plane) * p.in_c * hw, hw, k_total, 0u, 0u, false, 0u, false, 0u);

  var acc: array<vec4<f32>, 8>;  // 4 unless RM is 8 (the rest folds away)
  let steps = (k_total + BK - 1u) / BK;
  let t0 = (wid.z * steps) / ks;
  let t1 = ((wid.z + 1u) * steps) / ks;
  for (var t = t0; t < t1; t = t + 1u) {
    tile_fill(at_step(a, t * BK), li, t * BK, t * BK, npad4, n0);
    for (var kk = 0u; kk < BK; kk = kk + 1u) {
      let bv = tb[kk * TY + lid.y];
      tile_fma_rows(&acc, ta[kk * 16u + lid.x], bv);
      if (RM > 4u) { tile_fma_rows_hi(&acc, ta[kk * 16u + lid.x + 8u], bv); }
    }
    workgroupBarrier();
  }
  tile_store(TileOut(plane, wid.z * p.total), acc, li, m0, n0, m_total, p.out_c);
}
