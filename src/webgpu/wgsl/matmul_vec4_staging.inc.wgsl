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
