// linear_q4gsw for M > 1 rows (prefill): y[m,n] = sum_k x[m,k] * (q[n,k] - 8) * scale(n,k) + bias[n].
// A 64x64 output tile per workgroup of 16x16 threads, each thread 4 rows x 4 columns held in
// registers, K in steps of 32. Both tiles are staged in workgroup memory k-major as vec4s
// (a_sh: 4 consecutive rows, b_sh: 4 consecutive columns), so the inner loop is two vec4
// loads and 16 FMAs per k. Register blocking is what makes it compute- rather than
// load-bound: the older 32x32 tile with 2x2 outputs per thread did 4 FMAs per 4 scalar
// workgroup loads and ran at ~8 TFLOP/s on the H200 at prefill 512.
// Loads: with `aligned` (k_packed % 4 == 0, K % 8 == 0, group_size % 8 == 0, host-checked)
// each thread reads x as vec4 and one u32 weight word (8 nibbles, one scale); otherwise every
// element is read on its own (byte path). Formats as in q4gsw_gemv.wgsl.
//#include "q4gsw_params.inc.wgsl"
//#include "q4_bytes.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<u32>;

const BM: u32 = 64u;
const BN: u32 = 64u;
const BK: u32 = 32u;
var<workgroup> a_sh: array<vec4<f32>, 512>;  // [BK][BM / 4]: a_sh[k * 16 + r / 4][r % 4] = x[row0 + r, k0 + k]
var<workgroup> b_sh: array<vec4<f32>, 512>;  // [BK][BN / 4]: b_sh[k * 16 + c / 4][c % 4] = W[col0 + c, k0 + k]

// W[n, k] on the byte path (even k in the low nibble).
fn dequant(n: u32, k: u32) -> f32 {
  return nibble(n * p.k_packed + k / 2u, (k & 1u) == 1u) * scales[(k / p.group_size) * p.n_pad + n];
}

fn x_at(m: u32, k: u32) -> f32 {
  if (m < p.m && k < p.k) { return x[m * p.k + k]; }
  return 0.0;
}

// Stages x[row0.., k0..] and W[col0.., k0..] into a_sh / b_sh.
fn load_tiles(tid: u32, row0: u32, col0: u32, k0: u32) {
  if (p.aligned != 0u) {
    // A: 64 rows x 8 vec4 = 512 vec4, 2 per thread. K % 8 == 0, so a vec4 never straddles K.
    for (var e = tid; e < 512u; e = e + 256u) {
      let r = e / 8u;
      let kq = (e % 8u) * 4u;
      let gm = row0 + r;
      let gk = k0 + kq;
      var v = vec4<f32>(0.0);
      if (gm < p.m && gk < p.k) {
        let i = gm * p.k + gk;
        v = vec4<f32>(x[i], x[i + 1u], x[i + 2u], x[i + 3u]);
      }
      for (var j = 0u; j < 4u; j = j + 1u) { a_sh[(kq + j) * 16u + r / 4u][r % 4u] = v[j]; }
    }
    // B: 64 columns x 4 words (8 nibbles each), 1 per thread; 8 consecutive k share a scale.
    let c = tid / 4u;
    let kw = (tid % 4u) * 8u;
    let gn = col0 + c;
    let gk = k0 + kw;
    var word = 0u;
    var s = 0.0;
    if (gn < p.n && gk < p.k) {
      word = w[(gn * p.k_packed + gk / 2u) / 4u];
      s = scales[(gk / p.group_size) * p.n_pad + gn];
    }
    for (var j = 0u; j < 8u; j = j + 1u) {
      b_sh[(kw + j) * 16u + c / 4u][c % 4u] = (f32((word >> (4u * j)) & 0xfu) - 8.0) * s;
    }
  } else {
    for (var e = tid; e < BM * BK; e = e + 256u) {
      let r = e / BK;
      let kk = e % BK;
      let gk = k0 + kk;
      a_sh[kk * 16u + r / 4u][r % 4u] = x_at(row0 + r, gk);
      let gn = col0 + r;
      var bv = 0.0;
      if (gn < p.n && gk < p.k) { bv = dequant(gn, gk); }
      b_sh[kk * 16u + r / 4u][r % 4u] = bv;
    }
  }
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) tid: u32) {
  let row0 = wid.y * BM;
  let col0 = wid.x * BN;
  var acc: array<vec4<f32>, 4>;  // acc[i][j]: row row0 + 4 * lid.y + i, column col0 + 4 * lid.x + j
  for (var k0 = 0u; k0 < p.k; k0 = k0 + BK) {
    load_tiles(tid, row0, col0, k0);
    workgroupBarrier();
    for (var kk = 0u; kk < BK; kk = kk + 1u) {
      let a = a_sh[kk * 16u + lid.y];
      let b = b_sh[kk * 16u + lid.x];
      acc[0] = acc[0] + a.x * b;
      acc[1] = acc[1] + a.y * b;
      acc[2] = acc[2] + a.z * b;
      acc[3] = acc[3] + a.w * b;
    }
    workgroupBarrier();
  }
  // acc by literal indices only (matmul_large_tile.inc.wgsl, "Register arrays").
  let m = row0 + lid.y * 4u;
  store_row(m, col0 + lid.x * 4u, acc[0]);
  store_row(m + 1u, col0 + lid.x * 4u, acc[1]);
  store_row(m + 2u, col0 + lid.x * 4u, acc[2]);
  store_row(m + 3u, col0 + lid.x * 4u, acc[3]);
}

// Columns n .. n + 3 of row m (v, plus the bias), those within the output.
fn store_row(m: u32, n: u32, v: vec4<f32>) {
  if (m >= p.m) { return; }
  store_one(m, n, v.x);
  store_one(m, n + 1u, v.y);
  store_one(m, n + 2u, v.z);
  store_one(m, n + 3u, v.w);
}

fn store_one(m: u32, n: u32, v: f32) {
  if (n >= p.n) { return; }
  var r = v;
  if (p.has_bias != 0u) { r = r + bias[n]; }
  y[m * p.n + n] = r;
}
