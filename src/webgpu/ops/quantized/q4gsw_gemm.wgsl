// linear_q4gsw for M > 1 rows: y[m,n] = sum_k x[m,k] * (q[n,k] - 8) * scale(n,k) + bias[n].
// 32x32 output tile per workgroup of 16x16 threads (2x2 outputs each), K in steps of 32;
// the weight tile is dequantized into workgroup memory. Formats as in q4gsw_gemv.wgsl.
//#include "q4gsw_params.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;

const T: u32 = 32u;
var<workgroup> a_sh: array<f32, 1024>;  // [T rows][T k]
var<workgroup> b_sh: array<f32, 1024>;  // [T k][T cols]

fn dequant(n: u32, k: u32) -> f32 {
  let bi = n * p.k_packed + k / 2u;
  let word = w[bi >> 2u];
  let b = (word >> (8u * (bi & 3u))) & 0xffu;
  var q = b & 0xfu;
  if ((k & 1u) == 1u) { q = b >> 4u; }
  return (f32(q) - 8.0) * scales[(k / p.group_size) * p.n_pad + n];
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) tid: u32) {
  let row0 = wid.y * T;
  let col0 = wid.x * T;
  var acc = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
  for (var k0 = 0u; k0 < p.k; k0 = k0 + T) {
    for (var e = tid; e < T * T; e = e + 256u) {
      let r = e / T;
      let kk = e % T;
      let gk = k0 + kk;
      let gm = row0 + r;
      var av = 0.0;
      if (gm < p.m && gk < p.k) { av = x[gm * p.k + gk]; }
      a_sh[e] = av;
      let gn = col0 + r;
      var bv = 0.0;
      if (gn < p.n && gk < p.k) { bv = dequant(gn, gk); }
      b_sh[kk * T + r] = bv;
    }
    workgroupBarrier();
    let ar = lid.y * 2u;
    let bc = lid.x * 2u;
    for (var kk = 0u; kk < T; kk = kk + 1u) {
      let a0 = a_sh[ar * T + kk];
      let a1 = a_sh[(ar + 1u) * T + kk];
      let b0 = b_sh[kk * T + bc];
      let b1 = b_sh[kk * T + bc + 1u];
      acc[0] = acc[0] + a0 * b0;
      acc[1] = acc[1] + a0 * b1;
      acc[2] = acc[2] + a1 * b0;
      acc[3] = acc[3] + a1 * b1;
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i = i + 1u) {
    let m = row0 + lid.y * 2u + i / 2u;
    let n = col0 + lid.x * 2u + i % 2u;
    if (m < p.m && n < p.n) {
      var r = acc[i];
      if (p.has_bias != 0u) { r = r + bias[n]; }
      y[m * p.n + n] = r;
    }
  }
}
