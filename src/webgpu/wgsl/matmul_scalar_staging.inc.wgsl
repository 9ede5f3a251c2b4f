// The global-to-shared staging of matmul_large_tile.inc.wgsl for kernels with scalar global
// loads (matmul_large.wgsl, conv2d_pw_gemm.wgsl): each thread loads its LA floats of a's K
// tile and LB of b's (elements e = li + NT * r) into registers before the tile's FMAs and
// stores them to the other shared buffer after them. The registers are two vec4s per operand
// filled by literal components, not an array indexed by r (matmul_large_tile.inc.wgsl,
// "Register arrays"), so LA and LB are at most 8 (register.cpp's tiles check it).
//
// The includer defines `a_elem(e, bi, row0, k0) -> f32` and `b_elem(e, bi, col0, k0) -> f32`
// (element e of the thread group's K tile at k0, 0 outside the operand) and
// `b_k_major() -> bool` (whether bs_ is filled from a [N, K] b, element e = column e / BK, K
// step e % BK; else from [K, N], K step e / BN, column e % BN). a is always K-major.
override LA: u32 = BM * BK / NT;
override LB: u32 = BN * BK / NT;

var<private> ra_lo: vec4<f32>;
var<private> ra_hi: vec4<f32>;
var<private> rb_lo: vec4<f32>;
var<private> rb_hi: vec4<f32>;

fn staged_elem(is_b: bool, li: u32, bi: u32, first: u32, k0: u32, r: u32) -> f32 {
  let e = li + NT * r;
  if (is_b) { return b_elem(e, bi, first, k0); }
  return a_elem(e, bi, first, k0);
}

// Elements r0 .. r0 + 3 of the thread's share (those below LA or LB).
fn load_group(is_b: bool, li: u32, bi: u32, first: u32, k0: u32, r0: u32) -> vec4<f32> {
  let n = select(LA, LB, is_b);
  var v = vec4<f32>(0.0);
  v.x = staged_elem(is_b, li, bi, first, k0, r0);
  if (r0 + 1u < n) { v.y = staged_elem(is_b, li, bi, first, k0, r0 + 1u); }
  if (r0 + 2u < n) { v.z = staged_elem(is_b, li, bi, first, k0, r0 + 2u); }
  if (r0 + 3u < n) { v.w = staged_elem(is_b, li, bi, first, k0, r0 + 3u); }
  return v;
}

fn load_tile(li: u32, bi: u32, row0: u32, col0: u32, k0: u32) {
  ra_lo = load_group(false, li, bi, row0, k0, 0u);
  if (LA > 4u) { ra_hi = load_group(false, li, bi, row0, k0, 4u); }
  rb_lo = load_group(true, li, bi, col0, k0, 0u);
  if (LB > 4u) { rb_hi = load_group(true, li, bi, col0, k0, 4u); }
}

// Element e of a K tile into shared buffer buf (K-major rows: as_[kk][m], bs_[kk][n]).
fn put_staged(is_b: bool, buf: u32, e: u32, v: f32) {
  if (!is_b) {
    let row = e / BK;
    as_[buf * A_V4 + (e % BK) * (BM / 4u) + row / 4u][row % 4u] = v;
  } else if (b_k_major()) {
    let col = e / BK;
    bs_[buf * B_V4 + (e % BK) * (BN / 4u) + col / 4u][col % 4u] = v;
  } else {
    let col = e % BN;
    bs_[buf * B_V4 + (e / BN) * (BN / 4u) + col / 4u][col % 4u] = v;
  }
}

fn store_group(is_b: bool, li: u32, buf: u32, r0: u32, v: vec4<f32>) {
  let n = select(LA, LB, is_b);
  put_staged(is_b, buf, li + NT * r0, v.x);
  if (r0 + 1u < n) { put_staged(is_b, buf, li + NT * (r0 + 1u), v.y); }
  if (r0 + 2u < n) { put_staged(is_b, buf, li + NT * (r0 + 2u), v.z); }
  if (r0 + 3u < n) { put_staged(is_b, buf, li + NT * (r0 + 3u), v.w); }
}

fn store_tile(li: u32, buf: u32) {
  store_group(false, li, buf, 0u, ra_lo);
  if (LA > 4u) { store_group(false, li, buf, 4u, ra_hi); }
  store_group(true, li, buf, 0u, rb_lo);
  if (LB > 4u) { store_group(true, li, buf, 4u, rb_hi); }
}
