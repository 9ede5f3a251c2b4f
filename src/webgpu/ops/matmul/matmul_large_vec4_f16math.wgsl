// c[b] = alpha * (a @ b^T) + beta * bias for a linear whose weight b [N, K] is stored as f16
// (GraphOptions::f16_weights) on an adapter with shader-f16 (GraphOptions::f16_arith; else
// matmul_large_vec4_f16w.wgsl): bench/kernels/matmul/ v26-v28. The tiling of
// matmul_large_tile.inc.wgsl (BM x BN per workgroup, RM x RN outputs per thread as 4x4
// blocks, K-major shared tiles double-buffered, one barrier per K step) in f16:
//   - a (f32 activations) is rounded to f16 in the tile loader, clamped to f16's finite range
//     (|x| <= 65504), and b read as vec4<f16> (8-byte loads): shared tiles of half the bytes;
//   - products and their sum within one K tile (BK of them) are f16 (vec4<f16> FMAs: NVIDIA's
//     CUDA cores run packed f16 FMAs at twice the f32 rate), added to an f32 accumulator after
//     every K tile, so the rounding grows with BK, not with K: about 5e-4 relative (L2) from
//     the f32 path at BK 8, against 2e-4 for f16 weights with f32 math.
// K % 4 == 0 and N % 4 == 0 (vec4 loads and stores); M, N and K need not fill a tile.
enable f16;
//#include "matmul_params.inc.wgsl"
//#include "matmul_store_vec4.inc.wgsl"
//#include "matmul_store_acc.inc.wgsl"
alias Word = vec4<f32>;
alias BWord = vec4<f16>;

override BM: u32 = 128u;
override BN: u32 = 64u;
override BK: u32 = 8u;
override RM: u32 = 8u;
override RN: u32 = 8u;
override KS: u32 = 1u;  // no split-K here (matmul_store_vec4.inc.wgsl reads it)

override TX: u32 = BN / RN;
override TY: u32 = BM / RM;
override NT: u32 = TX * TY;
override A_V4: u32 = BM * BK / 4u;
override B_V4: u32 = BN * BK / 4u;
// vec4s per thread's share of its global load: 1 or 2 at register.cpp's tiles, staged in
// named registers. Every register array here is indexed by literals only
// (matmul_large_tile.inc.wgsl, "Register arrays").
override LA: u32 = A_V4 / NT;
override LB: u32 = B_V4 / NT;

var<workgroup> as_: array<vec4<f16>, 2u * A_V4>;
var<workgroup> bs_: array<vec4<f16>, 2u * B_V4>;

var<private> ra0: vec4<f16>;
var<private> ra1: vec4<f16>;
var<private> rb0: vec4<f16>;
var<private> rb1: vec4<f16>;

const F16_MAX: f32 = 65504.0;

// vec4 e of the thread's share of a's K tile at k0, rounded to f16 (clamped to its range).
fn a_at(e: u32, bi: u32, row0: u32, k0: u32) -> vec4<f16> {
  let kq_n = BK / 4u;
  let gk = k0 + (e % kq_n) * 4u;
  let row = min(row0 + e / kq_n, p.m - 1u);
  let v = clamp(a[(bi * p.a_bs + row * p.k + gk) / 4u], vec4<f32>(-F16_MAX), vec4<f32>(F16_MAX));
  return select(vec4<f16>(0.0h), vec4<f16>(v), gk < p.k);
}

// vec4 e of the thread's share of b's ([N, K], f16) K tile at k0.
fn b_at(e: u32, bi: u32, col0: u32, k0: u32) -> vec4<f16> {
  let kq_n = BK / 4u;
  let gk = k0 + (e % kq_n) * 4u;
  let col = min(col0 + e / kq_n, p.n - 1u);
  return select(vec4<f16>(0.0h), b[(bi * p.b_bs + col * p.k + gk) / 4u], gk < p.k);
}

fn load_tile(li: u32, bi: u32, row0: u32, col0: u32, k0: u32) {
  ra0 = a_at(li, bi, row0, k0);
  if (LA > 1u) { ra1 = a_at(li + NT, bi, row0, k0); }
  rb0 = b_at(li, bi, col0, k0);
  if (LB > 1u) { rb1 = b_at(li + NT, bi, col0, k0); }
}

// vec4 v (K values of row / column e / (BK / 4)) of element e into a K-major shared tile.
fn store_a(buf: u32, e: u32, v: vec4<f16>) {
  let kq_n = BK / 4u;
  let row = e / kq_n;
  let at = buf * A_V4 + (e % kq_n) * 4u * (BM / 4u) + row / 4u;
  as_[at][row % 4u] = v.x;
  as_[at + BM / 4u][row % 4u] = v.y;
  as_[at + 2u * (BM / 4u)][row % 4u] = v.z;
  as_[at + 3u * (BM / 4u)][row % 4u] = v.w;
}

fn store_b(buf: u32, e: u32, v: vec4<f16>) {
  let kq_n = BK / 4u;
  let col = e / kq_n;
  let at = buf * B_V4 + (e % kq_n) * 4u * (BN / 4u) + col / 4u;
  bs_[at][col % 4u] = v.x;
  bs_[at + BN / 4u][col % 4u] = v.y;
  bs_[at + 2u * (BN / 4u)][col % 4u] = v.z;
  bs_[at + 3u * (BN / 4u)][col % 4u] = v.w;
}

fn store_tile(li: u32, buf: u32) {
  store_a(buf, li, ra0);
  if (LA > 1u) { store_a(buf, li + NT, ra1); }
  store_b(buf, li, rb0);
  if (LB > 1u) { store_b(buf, li + NT, rb1); }
}

@compute @workgroup_size(TX, TY, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let row0 = wid.y * BM;
  let col0 = wid.x * BN;
  let bi = wid.z;
  let tx = lid.x;
  let ty = lid.y;
  let GM = RM / 4u;
  let GN = RN / 4u;
  // acc / part[(g * 4 + i) * 2 + h]: row ty * 4 + i of row block g, column block h; part holds
  // the current K tile's f16 sums, acc the f32 total (both start at zero).
  var acc: array<vec4<f32>, 16>;
  var part: array<vec4<f16>, 16>;

  let nt = (p.k + BK - 1u) / BK;
  load_tile(li, bi, row0, col0, 0u);
  store_tile(li, 0u);
  workgroupBarrier();
  for (var t = 0u; t < nt; t++) {
    let cur = t & 1u;
    if (t + 1u < nt) { load_tile(li, bi, row0, col0, (t + 1u) * BK); }
    let abase = cur * A_V4;
    let bbase = cur * B_V4;
    for (var kk = 0u; kk < BK; kk++) {
      // As matmul_large_tile.inc.wgsl: the second block of each is a re-read where GM or GN = 1.
      let a0 = as_[abase + kk * (BM / 4u) + ty];
      let a1 = as_[abase + kk * (BM / 4u) + (GM - 1u) * (BM / 8u) + ty];
      let b0 = bs_[bbase + kk * (BN / 4u) + tx];
      let b1 = bs_[bbase + kk * (BN / 4u) + (GN - 1u) * (BN / 8u) + tx];
      part[0] = fma(vec4<f16>(a0.x), b0, part[0]);
      part[2] = fma(vec4<f16>(a0.y), b0, part[2]);
      part[4] = fma(vec4<f16>(a0.z), b0, part[4]);
      part[6] = fma(vec4<f16>(a0.w), b0, part[6]);
      if (GN > 1u) {
        part[1] = fma(vec4<f16>(a0.x), b1, part[1]);
        part[3] = fma(vec4<f16>(a0.y), b1, part[3]);
        part[5] = fma(vec4<f16>(a0.z), b1, part[5]);
        part[7] = fma(vec4<f16>(a0.w), b1, part[7]);
      }
      if (GM > 1u) {
        part[8] = fma(vec4<f16>(a1.x), b0, part[8]);
        part[10] = fma(vec4<f16>(a1.y), b0, part[10]);
        part[12] = fma(vec4<f16>(a1.z), b0, part[12]);
        part[14] = fma(vec4<f16>(a1.w), b0, part[14]);
        if (GN > 1u) {
          part[9] = fma(vec4<f16>(a1.x), b1, part[9]);
          part[11] = fma(vec4<f16>(a1.y), b1, part[11]);
          part[13] = fma(vec4<f16>(a1.z), b1, part[13]);
          part[15] = fma(vec4<f16>(a1.w), b1, part[15]);
        }
      }
    }
    // This K tile's f16 sums into the f32 totals (entries a thread does not use stay zero).
    acc[0] = acc[0] + vec4<f32>(part[0]);
    acc[1] = acc[1] + vec4<f32>(part[1]);
    acc[2] = acc[2] + vec4<f32>(part[2]);
    acc[3] = acc[3] + vec4<f32>(part[3]);
    acc[4] = acc[4] + vec4<f32>(part[4]);
    acc[5] = acc[5] + vec4<f32>(part[5]);
    acc[6] = acc[6] + vec4<f32>(part[6]);
    acc[7] = acc[7] + vec4<f32>(part[7]);
    acc[8] = acc[8] + vec4<f32>(part[8]);
    acc[9] = acc[9] + vec4<f32>(part[9]);
    acc[10] = acc[10] + vec4<f32>(part[10]);
    acc[11] = acc[11] + vec4<f32>(part[11]);
    acc[12] = acc[12] + vec4<f32>(part[12]);
    acc[13] = acc[13] + vec4<f32>(part[13]);
    acc[14] = acc[14] + vec4<f32>(part[14]);
    acc[15] = acc[15] + vec4<f32>(part[15]);
    part = array<vec4<f16>, 16>();
    if (t + 1u < nt) { store_tile(li, cur ^ 1u); }
    workgroupBarrier();
  }

  store_acc(bi, row0, col0, ty, tx, acc);
}
