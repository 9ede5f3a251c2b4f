// The global side of matmul_large_vec4.wgsl and matmul_large_vec4_f16w.wgsl (vec4 loads of
// a, vec4 stores of c with the epilogue), which differ only in how b is stored: the includer defines
// `b_vec4(i) -> vec4<f32>`, b's elements 4i..4i+3 (`alias Word = vec4<f32>;` and BWord).
//#include "matmul_params.inc.wgsl"
//#include "matmul_large_tile.inc.wgsl"
//#include "matmul_store_vec4.inc.wgsl"

// vec4s per thread's share of its global load: 1 or 2 at every tile register.cpp uses
// (tile_staging.h checks them). 0 only in the matmul bench's v38, v40 and v42, whose tiles
// have fewer vec4s than the workgroup has threads (64x64 at BK 8 with 4x4 a thread: 128
// vec4s, 256 threads): then only threads li < A_V4 (B_V4) load and store one. They are
// staged in two named registers, not an array indexed by a loop variable
// (matmul_large_tile.inc.wgsl, "Register arrays").
override LA: u32 = A_V4 / NT;
override LB: u32 = B_V4 / NT;

// Global loads of one K tile, in registers between issue and the shared-memory store.
var<private> ra0: vec4<f32>;
var<private> ra1: vec4<f32>;
var<private> rb0: vec4<f32>;
var<private> rb1: vec4<f32>;

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

// vec4 v (K values k0..k0+3 of row `row`, element e) into shared buffer as_ at abase.
fn store_a(abase: u32, e: u32, v: vec4<f32>) {
  let kq_n = BK / 4u;
  let row = e / kq_n;
  let kk = (e % kq_n) * 4u;
  as_[abase + kk * (BM / 4u) + row / 4u][row % 4u] = v.x;
  as_[abase + (kk + 1u) * (BM / 4u) + row / 4u][row % 4u] = v.y;
  as_[abase + (kk + 2u) * (BM / 4u) + row / 4u][row % 4u] = v.z;
  as_[abase + (kk + 3u) * (BM / 4u) + row / 4u][row % 4u] = v.w;
}

// The same for a K-major b (trans_b = 1) into bs_.
fn store_b_k_major(bbase: u32, e: u32, v: vec4<f32>) {
  let kq_n = BK / 4u;
  let col = e / kq_n;
  let kk = (e % kq_n) * 4u;
  bs_[bbase + kk * (BN / 4u) + col / 4u][col % 4u] = v.x;
  bs_[bbase + (kk + 1u) * (BN / 4u) + col / 4u][col % 4u] = v.y;
  bs_[bbase + (kk + 2u) * (BN / 4u) + col / 4u][col % 4u] = v.z;
  bs_[bbase + (kk + 3u) * (BN / 4u) + col / 4u][col % 4u] = v.w;
}

fn store_tile(li: u32, buf: u32) {
  let abase = buf * A_V4;
  if (LA > 0u || li < A_V4) { store_a(abase, li, ra0); }
  if (LA > 1u) { store_a(abase, li + NT, ra1); }
  if (LB == 0u && li >= B_V4) { return; }
  let bbase = buf * B_V4;
  if (trans_b == 1u) {
    store_b_k_major(bbase, li, rb0);
    if (LB > 1u) { store_b_k_major(bbase, li + NT, rb1); }
  } else {
    bs_[bbase + li] = rb0;
    if (LB > 1u) { bs_[bbase + li + NT] = rb1; }
  }
}
