// Transposed convolution with kernel == stride, no padding, dilation 1, groups 1 and no
// output_padding (SAM 2's and DPT's upsamplers), bench/kernels/conv_transposed v2: one GEMM
// [input pixels (batch folded in), in_c] x [in_c, out_c * KH * KW] whose every result lands
// on exactly one output element (input pixel (iy, ix), column (oc, ky, kx) -> output
// (oc, iy * KH + ky, ix * KW + kx)): no sums across taps. B is the weight itself
// ([in_c][out_c][KH][KW] is [K][N] row-major), zero-padded at graph build
// (ops/conv/register.cpp) to wT[Kpad][Npad] so one unchecked vec4 load per invocation fills
// the B tile. The tile is conv2d_igemm_tile.inc.wgsl's (64 pixels x BN columns, K in steps
// of 16 through shared memory); the store scatters each result to its output element with
// bias, clamp and the fused epilogue (consecutive invocations hold consecutive pixels, so a
// warp's stores to one output row are KW-wide runs side by side). Same Params and bindings as conv2d_igemm (the window as pipeline constants).
//#include "conv2d_igemm_tile.inc.wgsl"

// The loader row: one input pixel, xb its channel 0.
struct ALoader { ok: bool, xb: u32, plane: u32 }

// Input channel k of the pixel.
fn a_value(a: ALoader, k: u32) -> f32 {
  if (a.ok && k < p.in_c) { return x[a.xb + k * a.plane]; }
  return 0.0;
}

struct TileOut { plane: u32, oplane: u32 }

// Input pixel m (batch folded in), column n = (oc, ky, kx): output (oc, iy * KH + ky, ix * KW + kx).
fn store_result(o: TileOut, m: u32, n: u32, v: f32) {
  let oc = n / (KH * KW);
  let tap = n - oc * (KH * KW);
  let ky = tap / KW;
  let kx = tap - ky * KW;
  let b = m / o.plane;
  let pix = m - b * o.plane;
  let iy = pix / p.in_w;
  let ix = pix - iy * p.in_w;
  y[(b * p.out_c + oc) * o.oplane + (iy * KH + ky) * p.out_w + ix * KW + kx] = finish(v + bias_or_zero(oc));
}

// TX x TY invocations (li = lid.x + TX lid.y): the K step's shared reads at lid.x / lid.y,
// which Tint bounds, so robustness adds no clamp to them (conv2d_igemm_tile.inc.wgsl).
@compute @workgroup_size(TX, TY)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let plane = p.in_h * p.in_w;
  let m_total = p.n * plane;
  let n_total = p.out_c * KH * KW;
  let npad4 = ((n_total + BN - 1u) / BN) * (BN / 4u);
  let m0 = wid.x * BM;
  let n0 = wid.y * BN;

  let gm = m0 + li % BM;
  let a = ALoader(gm < m_total, (gm / plane) * p.in_c * plane + gm % plane, plane);

  var acc: array<vec4<f32>, 8>;  // 4 unless RM is 8 (the rest folds away)
  let steps = (p.in_c + BK - 1u) / BK;
  for (var t = 0u; t < steps; t = t + 1u) {
    tile_fill(a, li, t * BK, t * BK, npad4, n0);
    for (var kk = 0u; kk < BK; kk = kk + 1u) {
      let bv = tb[kk * TY + lid.y];
      tile_fma_rows(&acc, ta[kk * 16u + lid.x], bv);
      if (RM > 4u) { tile_fma_rows_hi(&acc, ta[kk * 16u + lid.x + 8u], bv); }
    }
    workgroupBarrier();
  }
  tile_store(TileOut(plane, p.out_h * p.out_w), acc, li, m0, n0, m_total, n_total);
}
