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
//#include "conv2d_pw_gemm_sizes.inc.wgsl"


//#include "matmul_scalar_staging.inc.wgsl"

// A = w [out_c, in_c]: element e is row row0 + e / BK (clamped to the last: in bounds,
// never stored), input channel k0 + e % BK (0 past in_c).
fn a_elem(e: u32, bi: u32, row0: u32, k0: u32) -> f32 {
  let k = p.in_c;
  let gk = k0 + e % BK;
  let row = min(row0 + e / BK, p.out_c - 1u);
  return select(0.0, w[row * k + min(gk, k - 1u)], gk < k);
}

// B = x[bi] [in_c, plane]: element e is channel k0 + e / BN, pixel col0 + e % BN.
fn b_elem(e: u32, bi: u32, col0: u32, k0: u32) -> f32 {
  let k = p.in_c;
  let plane = p.out_h * p.out_w;
  let gk = k0 + e / BN;
  let gn = col0 + e % BN;
  let kc = min(gk, k - 1u);
  var v = x[bi * k * plane + kc * plane + min(gn, plane - 1u)];
  if (p.has_scale != 0u) { v = v * scale[bi * p.scale_bstride + kc]; }
  return select(0.0, v, gk < k && gn < plane);
}

fn b_k_major() -> bool { return false; }

// Pixels gn..gn+3 (those in the plane) of output channel gm of image bi; split over K (KS >
// 1: bi is image * KS + split), the raw sums into that split's partial output at y
// (conv2d_pw_splitk_reduce.wgsl finishes them).
fn store_block(bi: u32, gm: u32, gn: u32, v: vec4<f32>) {
  let plane = p.out_h * p.out_w;
  if (KS > 1u) {
    let at = (bi % KS) * p.total + ((bi / KS) * p.out_c + gm) * plane + gn;
    for (var j = 0u; j < 4u; j++) {
      if (gn + j < plane) { y[at + j] = v[j]; }
    }
    return;
  }
  var bo = 0.0;
  if (p.has_bias != 0u) { bo = bias[gm]; }
  let base = (bi * p.out_c + gm) * plane;
  for (var j = 0u; j < 4u; j++) {
    if (gn + j >= plane) { return; }
    let o = base + gn + j;
    y[o] = finish_res(v[j] + bo, o);
  }
}
