// v38 (2026-12-08): the shipped conv2d_pw_gemm_vec4 with the tile as it was before 2026-12-08
// (matmul_large_tile_flat.inc.wgsl, a link to ../matmul's): the K step reads its shared tiles at a run-time
// buffer base, which Dawn's robustness clamps. The A/B against v21 / v22 (the shipped tile).
// conv2d_pw_gemm.wgsl with vec4 global loads, for pointwise convs whose input channels and
// plane are multiples of 4 (register.cpp checks both): the large matmuls' tiling
// (matmul_large_tile.inc.wgsl: M = output channels, N = pixels, K = input channels; workgroup
// z = image), fed as matmul_large_vec4.wgsl feeds it, a quarter of the load instructions of
// the scalar kernel (bench/kernels/matmul v8 against v13: 1.2x at real sizes;
// bench/kernels/conv conv_pw v19-v22). Same Params, bindings and semantics as
// conv2d_pw_gemm.wgsl: the per-input-channel scale of x applied as the B tile is loaded, bias,
// clamp and the fused epilogue (residual add included) as the output is stored.
//#include "conv2d_pw_epilogue.inc.wgsl"
//#include "matmul_large_tile_flat.inc.wgsl"
//#include "conv2d_pw_gemm_sizes.inc.wgsl"
//#include "matmul_vec4_staging.inc.wgsl"

// x and w as vec4s. The includes' scalar declarations of bindings 0 and 1 (x, w) are not
// used by this entry point, so they do not collide with these.
@group(0) @binding(0) var<storage, read> x4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w4: array<vec4<f32>>;
// A tail split's partial sums (TAIL_S > 1, matmul_large_tile.inc.wgsl): [image * TAIL_S +
// piece][out_c][the pixels from column TAIL_X0 on]. Without a tail split register.cpp binds
// a placeholder of one vec4 here (never written).
@group(0) @binding(7) var<storage, read_write> tail_part: array<vec4<f32>>;

// A = w [out_c, in_c]: vec4 e of the thread's share is row row0 + e / (BK / 4) (clamped to
// the last: in bounds, never stored), input channels k0 + 4 (e % (BK / 4)) .. + 3 (0 past in_c).
fn a_at(e: u32, row0: u32, k0: u32) -> vec4<f32> {
  let kq = BK / 4u;
  let gk = k0 + (e % kq) * 4u;
  let row = min(row0 + e / kq, p.out_c - 1u);
  let v = w4[(row * p.in_c + min(gk, p.in_c - 4u)) / 4u];
  return select(vec4<f32>(0.0), v, gk < p.in_c);
}

// B = x[bi] [in_c, plane]: vec4 e is channel k0 + e / (BN / 4), pixels col0 + 4 (e % (BN / 4))
// .. + 3 (0 past in_c or the plane), times the channel's input scale if there is one.
fn b_at(e: u32, bi: u32, col0: u32, k0: u32) -> vec4<f32> {
  let nq = BN / 4u;
  let plane = p.out_h * p.out_w;
  let gk = k0 + e / nq;
  let gn = col0 + (e % nq) * 4u;
  let kc = min(gk, p.in_c - 1u);
  var v = x4[(bi * p.in_c * plane + kc * plane + min(gn, plane - 4u)) / 4u];
  if (p.has_scale != 0u) { v = v * scale[bi * p.scale_bstride + kc]; }
  return select(vec4<f32>(0.0), v, gk < p.in_c && gn < plane);
}

// Its share of the K tile into the staging registers (matmul_vec4_staging.inc.wgsl, whose
// store_tile puts them in shared memory; b is [K, N] here: trans_b stays 0).
fn load_tile(li: u32, bi: u32, row0: u32, col0: u32, k0: u32) {
  ra0 = a_at(li, row0, k0);
  if (LA > 1u) { ra1 = a_at(li + NT, row0, k0); }
  rb0 = b_at(li, bi, col0, k0);
  if (LB > 1u) { rb1 = b_at(li + NT, bi, col0, k0); }
}

// Pixels gn..gn+3 (gn % 4 == 0 and the plane a multiple of 4: all four are in it) of output
// channel gm of image bi; split over K (KS > 1: bi is image * KS + split), the raw sums into
// that split's partial output at y (conv2d_pw_splitk_reduce.wgsl finishes them).
fn store_block(bi: u32, gm: u32, gn: u32, v: vec4<f32>) {
  let plane = p.out_h * p.out_w;
  if (TAIL_S > 1u && bi >= kTailPiece) {
    // A tail piece: bi's low bits are image * TAIL_S + piece; the pixels from TAIL_X0's
    // column on (a multiple of 4, as the plane is) are its partials' rows.
    let x0 = TAIL_X0 * BN;
    tail_part[(((bi & ~kTailPiece) * p.out_c + gm) * (plane - x0) + gn - x0) / 4u] = v;
    return;
  }
  if (KS > 1u) {
    let at = (bi % KS) * p.total + ((bi / KS) * p.out_c + gm) * plane + gn;
    y[at] = v.x;
    y[at + 1u] = v.y;
    y[at + 2u] = v.z;
    y[at + 3u] = v.w;
    return;
  }
  var bo = 0.0;
  if (p.has_bias != 0u) { bo = bias[gm]; }
  let o = (bi * p.out_c + gm) * plane + gn;
  y[o] = finish_res(v.x + bo, o);
  y[o + 1u] = finish_res(v.y + bo, o + 1u);
  y[o + 2u] = finish_res(v.z + bo, o + 2u);
  y[o + 3u] = finish_res(v.w + bo, o + 3u);
}
