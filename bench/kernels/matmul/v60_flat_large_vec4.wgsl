// v60 (2026-12-08): the shipped matmul_large_vec4 (with its body, matmul_large_vec4_body.inc.wgsl,
// written out here) on the tile as it was before 2026-12-08 (matmul_large_tile_flat.inc.wgsl,
// beside this file): the K step reads as_ / bs_ at a run-time buffer base (cur = t & 1), which
// Dawn's robustness clamps, and tx / ty may take WARP_ROWS's layouts (v52-v55). The A/B
// against v34 / v41 (the shipped tile: no clamp in the K step).
// c[b] = alpha * (a[b] @ op(b[b])) + beta * bias, fp32, for large shapes on GPUs (the
// kernel of bench/kernels/matmul/v8_tiled_vec4_db.wgsl; measurements in its README), tiled as
// matmul_large_tile.inc.wgsl says. trans_b = 1: b is [N, K] (a linear weight), else [K, N].
// Needs K % 4 == 0 and N % 4 == 0 (every load and store is a vec4); M, N and K need not be
// multiples of the tile.
//#include "matmul_params.inc.wgsl"
//#include "matmul_large_tile_flat.inc.wgsl"
//#include "matmul_store_vec4.inc.wgsl"
//#include "matmul_vec4_staging.inc.wgsl"

// vec4 e of a thread's share of the K tile at k0 of a K-major operand, a [M, K] or (is_b, a
// constant at each call) b as [N, K]: row first + e / (BK / 4), clamped to the last so that the
// load stays in bounds, and k0 + 4 (e % (BK / 4)), 0 past K.
fn k_major_at(is_b: bool, base: u32, first: u32, e: u32, k0: u32) -> vec4<f32> {
  let kq_n = BK / 4u;
  let gk = k0 + (e % kq_n) * 4u;
  let row = min(first + e / kq_n, select(p.m, p.n, is_b) - 1u);
  let i = (base + row * p.k + gk) / 4u;
  var v: vec4<f32>;
  if (is_b) { v = b_vec4(i); } else { v = a[i]; }
  return select(vec4<f32>(0.0), v, gk < p.k);
}

// vec4 e of a thread's share of the K tile at k0 of b as [K, N] (trans_b = 0).
fn n_major_at(e: u32, bi: u32, col0: u32, k0: u32) -> vec4<f32> {
  let nq_n = BN / 4u;
  let gk = k0 + e / nq_n;
  let gn = col0 + (e % nq_n) * 4u;
  let v = b_vec4((bi * p.b_bs + min(gk, p.k - 1u) * p.n + min(gn, p.n - 4u)) / 4u);
  return select(vec4<f32>(0.0), v, gk < p.k && gn < p.n);
}

fn load_tile(li: u32, bi: u32, row0: u32, col0: u32, k0: u32) {
  if (LA > 0u || li < A_V4) { ra0 = k_major_at(false, bi * p.a_bs, row0, li, k0); }
  if (LA > 1u) { ra1 = k_major_at(false, bi * p.a_bs, row0, li + NT, k0); }
  if (LB == 0u && li >= B_V4) { return; }
  if (trans_b == 1u) {
    rb0 = k_major_at(true, bi * p.b_bs, col0, li, k0);
    if (LB > 1u) { rb1 = k_major_at(true, bi * p.b_bs, col0, li + NT, k0); }
  } else {
    rb0 = n_major_at(li, bi, col0, k0);
    if (LB > 1u) { rb1 = n_major_at(li + NT, bi, col0, k0); }
  }
}
alias Word = vec4<f32>;
alias BWord = Word;

fn b_vec4(i: u32) -> vec4<f32> { return b[i]; }
