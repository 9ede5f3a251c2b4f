// The shared-memory side of the vec4-load tiles of matmul_large_tile.inc.wgsl
// (matmul_large_vec4_body.inc.wgsl, conv2d_pw_gemm_vec4.wgsl): a thread's share of a K tile
// held in named registers between its global loads (the includer's `load_tile`, which fills
// ra0, ra1 with vec4 e = li, li + NT of a's K-major tile, and rb0, rb1 with b's) and
// `store_tile`, which stores them to shared buffer `buf`: a transposed into as_'s K-major
// rows, b as it is when it is [K, N] (trans_b = 0) or transposed when [N, K] (trans_b = 1).

// vec4s per thread's share of its global load: 1 or 2 at every tile ops/matmul and ops/conv
// register.cpp use (tile_staging.h checks them). 0 only in the matmul bench's v38, v40 and v42, whose tiles
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
// A second set, for two K tiles' loads in flight (matmul_large_tile.inc.wgsl's DEPTH = 2).
var<private> ra0_2: vec4<f32>;
var<private> ra1_2: vec4<f32>;
var<private> rb0_2: vec4<f32>;
var<private> rb1_2: vec4<f32>;

// The includer's load_tile_into computes a thread's share and stages it in set sset, 0 or 1 (a
// literal at every call: each branch writes only its own registers).
fn stage(sset: u32, a0: vec4<f32>, a1: vec4<f32>, b0: vec4<f32>, b1: vec4<f32>) {
  if (sset == 0u) {
    ra0 = a0; ra1 = a1; rb0 = b0; rb1 = b1;
  } else {
    ra0_2 = a0; ra1_2 = a1; rb0_2 = b0; rb1_2 = b1;
  }
}
fn load_tile(li: u32, bi: u32, row0: u32, col0: u32, k0: u32) { load_tile_into(0u, li, bi, row0, col0, k0); }

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

fn store_regs(li: u32, buf: u32, a0: vec4<f32>, a1: vec4<f32>, b0: vec4<f32>, b1: vec4<f32>) {
  let abase = buf * A_V4;
  if (LA > 0u || li < A_V4) { store_a(abase, li, a0); }
  if (LA > 1u) { store_a(abase, li + NT, a1); }
  if (LB == 0u && li >= B_V4) { return; }
  let bbase = buf * B_V4;
  if (trans_b == 1u) {
    store_b_k_major(bbase, li, b0);
    if (LB > 1u) { store_b_k_major(bbase, li + NT, b1); }
  } else {
    bs_[bbase + li] = b0;
    if (LB > 1u) { bs_[bbase + li + NT] = b1; }
  }
}

fn store_tile(li: u32, buf: u32) { store_regs(li, buf, ra0, ra1, rb0, rb1); }
// Set 0 or 1 (a literal at every call: each branch reads only its own registers, so storing
// one set never waits for the other's loads).
fn store_tile_from(sset: u32, li: u32, buf: u32) {
  if (sset == 0u) {
    store_regs(li, buf, ra0, ra1, rb0, rb1);
  } else {
    store_regs(li, buf, ra0_2, ra1_2, rb0_2, rb1_2);
  }
}
