// c[b] = alpha * (a[b] @ op(b[b])) + beta * bias, fp32, for any M, N, K.
// 64x64 output tile per workgroup of 16x16 threads, 4x4 outputs per thread, K in steps of
// 16 through shared memory. trans_b = 1: b is [N, K] (a linear weight), else [K, N].
// Workgroups: x over N tiles, y over M tiles, z over the batch.
//#include "matmul_store.inc.wgsl"
alias Word = f32;
alias BWord = Word;

override trans_b: u32 = 0u;

const TM: u32 = 64u;
const TN: u32 = 64u;
const TK: u32 = 16u;

// Tiles as [TK][16] vec4s: tile_a[kk * 16 + r] = a rows r, r + 16, r + 32, r + 48 at k0 + kk
// (the rows one thread needs, in one load); tile_b likewise over columns.
var<workgroup> tile_a: array<vec4<f32>, 256>;
var<workgroup> tile_b: array<vec4<f32>, 256>;

// Element (row, k) of a K-major operand, 0 past its edge: a [M, K], or (is_b) b as [N, K].
fn k_major_at(is_b: bool, base: u32, row: u32, k: u32) -> f32 {
  if (row >= select(p.m, p.n, is_b) || k >= p.k) { return 0.0; }
  if (is_b) { return b[base + row * p.k + k]; }
  return a[base + row * p.k + k];
}

// Rows first.. first + 63 at k0.. k0 + TK - 1 of a K-major operand into its tile, 4 elements
// per thread (is_b: called with a constant, so the branches fold away).
fn stage_k_major(is_b: bool, tile: ptr<workgroup, array<vec4<f32>, 256>>, li: u32, base: u32, first: u32,
                 k0: u32) {
  for (var r = 0u; r < 4u; r = r + 1u) {
    let e = li + 256u * r;
    let row = e / TK;
    let kk = e % TK;
    (*tile)[kk * 16u + row % 16u][row / 16u] = k_major_at(is_b, base, first + row, k0 + kk);
  }
}

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let row0 = wid.y * TM;
  let col0 = wid.x * TN;
  let bi = wid.z;
  let a_base = bi * p.a_bs;
  let b_base = bi * p.b_bs;
  let tx = lid.x;
  let ty = lid.y;
  // acc_i holds row ty + 16 i, columns tx + 16 j in component j.
  var acc0 = vec4<f32>(0.0);
  var acc1 = vec4<f32>(0.0);
  var acc2 = vec4<f32>(0.0);
  var acc3 = vec4<f32>(0.0);

  let ntiles = (p.k + TK - 1u) / TK;
  for (var t = 0u; t < ntiles; t = t + 1u) {
    let k0 = t * TK;
    stage_k_major(false, &tile_a, li, a_base, row0, k0);
    if (trans_b == 1u) {
      stage_k_major(true, &tile_b, li, b_base, col0, k0);
    } else {
      for (var r = 0u; r < 4u; r = r + 1u) {
        let e = li + 256u * r;
        let kk = e / TN;
        let col = e % TN;
        let gn = col0 + col;
        let gk = k0 + kk;
        var v = 0.0;
        if (gn < p.n && gk < p.k) { v = b[b_base + gk * p.n + gn]; }
        tile_b[kk * 16u + col % 16u][col / 16u] = v;
      }
    }
    workgroupBarrier();
    for (var kk = 0u; kk < TK; kk = kk + 1u) {
      let av = tile_a[kk * 16u + ty];
      let bv = tile_b[kk * 16u + tx];
      acc0 = fma(vec4<f32>(av.x), bv, acc0);
      acc1 = fma(vec4<f32>(av.y), bv, acc1);
      acc2 = fma(vec4<f32>(av.z), bv, acc2);
      acc3 = fma(vec4<f32>(av.w), bv, acc3);
    }
    workgroupBarrier();
  }

  // acc_i holds columns col0 + tx + 16 j of row row0 + ty + 16 i.
  store4(bi, row0 + ty, col0 + tx, 16u, acc0);
  store4(bi, row0 + ty + 16u, col0 + tx, 16u, acc1);
  store4(bi, row0 + ty + 32u, col0 + tx, 16u, acc2);
  store4(bi, row0 + ty + 48u, col0 + tx, 16u, acc3);
}
