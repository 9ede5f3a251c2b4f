// c[b] = alpha * (a[b] @ op(b[b])) + beta * bias, fp32, for any M, N, K.
// 64x64 output tile per workgroup of 16x16 threads, 4x4 outputs per thread, K in steps of
// 16 through shared memory. trans_b = 1: b is [N, K] (a linear weight), else [K, N].
// Workgroups: x over N tiles, y over M tiles, z over the batch.
//#include "matmul_params.inc.wgsl"
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

override trans_b: u32 = 0u;

const TM: u32 = 64u;
const TN: u32 = 64u;
const TK: u32 = 16u;

// Tiles as [TK][16] vec4s: tile_a[kk * 16 + r] = a rows r, r + 16, r + 32, r + 48 at k0 + kk
// (the rows one thread needs, in one load); tile_b likewise over columns.
var<workgroup> tile_a: array<vec4<f32>, 256>;
var<workgroup> tile_b: array<vec4<f32>, 256>;

// Columns col, col + 16, col + 32, col + 48 of row gm.
fn store_row(gm: u32, col: u32, bi: u32, v: vec4<f32>) {
  if (gm >= p.m) { return; }
  for (var j = 0u; j < 4u; j = j + 1u) {
    let gn = col + 16u * j;
    if (gn >= p.n) { return; }
    var r = p.alpha * v[j];
    if (p.bias_mode != 0u) { r = r + p.beta * bias[gm * p.bias_rs + gn * p.bias_cs]; }
    c[bi * p.c_bs + gm * p.n + gn] = r;
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
    for (var r = 0u; r < 4u; r = r + 1u) {
      let e = li + 256u * r;
      let row = e / TK;
      let kk = e % TK;
      let gm = row0 + row;
      let gk = k0 + kk;
      var v = 0.0;
      if (gm < p.m && gk < p.k) { v = a[a_base + gm * p.k + gk]; }
      tile_a[kk * 16u + row % 16u][row / 16u] = v;
    }
    if (trans_b == 1u) {
      for (var r = 0u; r < 4u; r = r + 1u) {
        let e = li + 256u * r;
        let col = e / TK;
        let kk = e % TK;
        let gn = col0 + col;
        let gk = k0 + kk;
        var v = 0.0;
        if (gn < p.n && gk < p.k) { v = b[b_base + gn * p.k + gk]; }
        tile_b[kk * 16u + col % 16u][col / 16u] = v;
      }
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

  store_row(row0 + ty, col0 + tx, bi, acc0);
  store_row(row0 + ty + 16u, col0 + tx, bi, acc1);
  store_row(row0 + ty + 32u, col0 + tx, bi, acc2);
  store_row(row0 + ty + 48u, col0 + tx, bi, acc3);
}
