// c[b] = alpha * (a[b] @ op(b[b])) + beta * bias for short K or narrow N, fp32: no shared
// memory and no barriers. wg_x * wg_y threads, 4x4 outputs each (8x8: a 32x32 tile; 4x16: 64
// rows by 16 columns for N <= 16), each thread reading its 4 rows of a and 4 columns of op(b)
// straight from memory (caches do the reuse). Out-of-range rows and columns are clamped on
// load and masked on store. Named accumulators, no private arrays: indexed private arrays
// live in memory on SwiftShader's JIT. Research: bench/kernels/matmul/ (v5).
// Workgroups: x over N tiles, y over M, z batch.
//#include "matmul_store.inc.wgsl"
alias Word = f32;
alias BWord = Word;

override trans_b: u32 = 0u;
override wg_x: u32 = 8u;
override wg_y: u32 = 8u;

// op(b) at (k, col): b[bo + k * ks] with bo the column's base.
fn bk(bo: u32, k: u32, ks: u32) -> f32 { return b[bo + k * ks]; }

@compute @workgroup_size(wg_x, wg_y, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let r0 = wid.y * wg_y * 4u + lid.y * 4u;
  let c0 = wid.x * wg_x * 4u + lid.x * 4u;
  let a_base = wid.z * p.a_bs;
  let b_base = wid.z * p.b_bs;
  let mm = p.m - 1u;
  let nn = p.n - 1u;
  let a0 = a_base + min(r0, mm) * p.k;
  let a1 = a_base + min(r0 + 1u, mm) * p.k;
  let a2 = a_base + min(r0 + 2u, mm) * p.k;
  let a3 = a_base + min(r0 + 3u, mm) * p.k;
  // Column j of op(b) starts at b_base + col * cs and steps by ks along k.
  var cs = 1u;
  var ks = p.n;
  if (trans_b == 1u) { cs = p.k; ks = 1u; }
  let b0 = b_base + min(c0, nn) * cs;
  let b1 = b_base + min(c0 + 1u, nn) * cs;
  let b2 = b_base + min(c0 + 2u, nn) * cs;
  let b3 = b_base + min(c0 + 3u, nn) * cs;
  var acc0 = vec4<f32>(0.0);
  var acc1 = vec4<f32>(0.0);
  var acc2 = vec4<f32>(0.0);
  var acc3 = vec4<f32>(0.0);
  var kk = 0u;
  for (; kk + 4u <= p.k; kk += 4u) {
    for (var u = 0u; u < 4u; u++) {
      let k = kk + u;
      let bv = vec4<f32>(bk(b0, k, ks), bk(b1, k, ks), bk(b2, k, ks), bk(b3, k, ks));
      acc0 = fma(vec4<f32>(a[a0 + k]), bv, acc0);
      acc1 = fma(vec4<f32>(a[a1 + k]), bv, acc1);
      acc2 = fma(vec4<f32>(a[a2 + k]), bv, acc2);
      acc3 = fma(vec4<f32>(a[a3 + k]), bv, acc3);
    }
  }
  for (; kk < p.k; kk++) {
    let bv = vec4<f32>(bk(b0, kk, ks), bk(b1, kk, ks), bk(b2, kk, ks), bk(b3, kk, ks));
    acc0 = fma(vec4<f32>(a[a0 + kk]), bv, acc0);
    acc1 = fma(vec4<f32>(a[a1 + kk]), bv, acc1);
    acc2 = fma(vec4<f32>(a[a2 + kk]), bv, acc2);
    acc3 = fma(vec4<f32>(a[a3 + kk]), bv, acc3);
  }
  store4(wid.z, r0, c0, 1u, acc0);
  store4(wid.z, r0 + 1u, c0, 1u, acc1);
  store4(wid.z, r0 + 2u, c0, 1u, acc2);
  store4(wid.z, r0 + 3u, c0, 1u, acc3);
}
