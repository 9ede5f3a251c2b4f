// c[b] = alpha * (a[b] @ op(b[b])) + beta * bias, fp32, for large shapes on GPUs whose K
// or N is not a multiple of 4 (e.g. attention over 1,370 tokens): matmul_large_vec4.wgsl's
// tiling, double buffering and register blocking (matmul_large_tile.inc.wgsl) with scalar
// global loads and stores (bench/kernels/matmul/v13_tiled_scalar_db.wgsl). Consecutive
// threads read consecutive floats of a row (coalesced). trans_b = 1: b is [N, K], else [K, N].
//#include "matmul_params.inc.wgsl"
//#include "matmul_large_tile.inc.wgsl"
//#include "matmul_store.inc.wgsl"
alias Word = f32;
alias BWord = Word;

//#include "matmul_scalar_staging.inc.wgsl"

// Element e of a thread's share of the K tile at k0 of a K-major operand, a [M, K] or (is_b,
// a constant at each call) b as [N, K]: row first + e / BK, clamped to the last so that the
// load stays in bounds, and k0 + e % BK, 0 past K.
fn k_major_at(is_b: bool, base: u32, first: u32, e: u32, k0: u32) -> f32 {
  let gk = k0 + e % BK;
  let row = min(first + e / BK, select(p.m, p.n, is_b) - 1u);
  let i = base + row * p.k + min(gk, p.k - 1u);
  var v: f32;
  if (is_b) { v = b[i]; } else { v = a[i]; }
  return select(0.0, v, gk < p.k);
}

fn a_elem(e: u32, bi: u32, row0: u32, k0: u32) -> f32 { return k_major_at(false, bi * p.a_bs, row0, e, k0); }

fn b_elem(e: u32, bi: u32, col0: u32, k0: u32) -> f32 {
  if (trans_b == 1u) { return k_major_at(true, bi * p.b_bs, col0, e, k0); }
  let gk = k0 + e / BN;
  let gn = col0 + e % BN;
  let v = b[bi * p.b_bs + min(gk, p.k - 1u) * p.n + min(gn, p.n - 1u)];
  return select(0.0, v, gk < p.k && gn < p.n);
}

fn b_k_major() -> bool { return trans_b == 1u; }

fn store_block(bi: u32, gm: u32, gn: u32, v: vec4<f32>) { store4(bi, gm, gn, 1u, v); }
