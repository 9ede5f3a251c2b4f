// Pointwise 2-D convolution (1x1, stride 1, no padding, groups == 1) as a GEMM per image:
// y[b] [out_c, plane] = w [out_c, in_c] @ x[b] [in_c, plane], with the double-buffered,
// register-blocked tiling of the large matmuls (matmul_large_tile.inc.wgsl: M = output
// channels, N = pixels, K = input channels; workgroup z = image). Scalar global loads, so
// any channel count and plane size: consecutive threads read consecutive pixels of an input
// channel (coalesced) and store consecutive pixels of an output channel. The per-input-
// channel scale of x (a fused x * s[N|1, C, 1, 1]) is applied as the B tile is loaded;
// bias, clamp and the fused epilogue (residual add included) as the output is stored.
// Same Params and semantics as conv2d_pw.wgsl, which stays for small outputs (fewer tiles
// than this kernel needs to fill a GPU; bench/kernels/conv/README.md, pointwise section).
//#include "conv2d_pw_epilogue.inc.wgsl"
//#include "matmul_large_tile.inc.wgsl"

fn tile_m() -> u32 { return p.out_c; }
fn tile_n() -> u32 { return p.out_h * p.out_w; }
fn tile_k() -> u32 { return p.in_c; }

// Floats per thread's share of its global load.
override LA: u32 = BM * BK / NT;
override LB: u32 = BN * BK / NT;

var<private> ra: array<f32, 16>;
var<private> rb: array<f32, 16>;

fn load_tile(li: u32, bi: u32, row0: u32, col0: u32, k0: u32) {
  let k = p.in_c;
  // A = w [out_c, in_c]: element e is row row0 + e / BK (clamped to the last: in bounds,
  // never stored), input channel k0 + e % BK (0 past in_c).
  for (var r = 0u; r < LA; r++) {
    let e = li + NT * r;
    let gk = k0 + e % BK;
    let row = min(row0 + e / BK, p.out_c - 1u);
    let v = w[row * k + min(gk, k - 1u)];
    ra[r] = select(0.0, v, gk < k);
  }
  // B = x[bi] [in_c, plane]: element e is channel k0 + e / BN, pixel col0 + e % BN.
  let plane = p.out_h * p.out_w;
  let xb = bi * k * plane;
  let sb = bi * p.scale_bstride;
  for (var r = 0u; r < LB; r++) {
    let e = li + NT * r;
    let gk = k0 + e / BN;
    let gn = col0 + e % BN;
    let kc = min(gk, k - 1u);
    var v = x[xb + kc * plane + min(gn, plane - 1u)];
    if (p.has_scale != 0u) { v = v * scale[sb + kc]; }
    rb[r] = select(0.0, v, gk < k && gn < plane);
  }
}

fn store_tile(li: u32, buf: u32) {
  let abase = buf * A_V4;
  for (var r = 0u; r < LA; r++) {
    let e = li + NT * r;
    let row = e / BK;
    as_[abase + (e % BK) * (BM / 4u) + row / 4u][row % 4u] = ra[r];
  }
  let bbase = buf * B_V4;
  for (var r = 0u; r < LB; r++) {
    let e = li + NT * r;
    let col = e % BN;
    bs_[bbase + (e / BN) * (BN / 4u) + col / 4u][col % 4u] = rb[r];
  }
}

// Pixels gn..gn+3 of output channel gm of image bi (gm < out_c and gn < plane checked by
// the caller; the last pixels here are checked).
fn store_block(bi: u32, gm: u32, gn: u32, v: vec4<f32>) {
  let plane = p.out_h * p.out_w;
  var bo = 0.0;
  if (p.has_bias != 0u) { bo = bias[gm]; }
  let base = (bi * p.out_c + gm) * plane;
  for (var j = 0u; j < 4u; j++) {
    if (gn + j >= plane) { return; }
    let o = base + gn + j;
    y[o] = finish_res(v[j] + bo, o);
  }
}
