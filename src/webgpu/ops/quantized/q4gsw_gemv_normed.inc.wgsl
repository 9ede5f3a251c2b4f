// What the fused decode GEMVs (q4gsw_gemv_fused / _qkv / _swiglu, webgpu/llm_gemv_fusion.h)
// share: the input row x with its optional RMSNorm weight nw (bindings 0 and 1), one
// 32-activation chunk of it per load, and the reduction of a 64-thread workgroup's four
// accumulators plus the running sum of x^2 that yields rstd without a separate pass.
// Host checks as q4gsw_gemv_rows.wgsl (K % 32 == 0, k_packed % 16 == 0, group_size % 32 == 0).
//#include "q4gsw_nibbles.inc.wgsl"
//#include "workgroup_reduce.inc.wgsl"

@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> nw: array<vec4<f32>>;   // norm weight [K] (x if unused)

const WG: u32 = 64u;
var<workgroup> red: array<f32, 320>;  // 5 * WG partial sums: 4 accumulators, then sum x^2

// vec4 i of x, times nw when `norm`; adds its x^2 to *ss (the un-normed x, which is what
// RMSNorm's mean is over).
fn load_x(i: u32, norm: bool, ss: ptr<function, f32>) -> vec4<f32> {
  let v = x[i];
  *ss = *ss + dot(v, v);
  return select(v, v * nw[i], norm);
}

// Chunk c of x (activations 32c .. 32c+31; XChunk: q4gsw_nibbles.inc.wgsl).
fn load_chunk(c: u32, norm: bool, ss: ptr<function, f32>) -> XChunk {
  let b = c * 8u;
  let x0 = load_x(b, norm, ss);
  let x1 = load_x(b + 1u, norm, ss);
  let x2 = load_x(b + 2u, norm, ss);
  let x3 = load_x(b + 3u, norm, ss);
  let x4 = load_x(b + 4u, norm, ss);
  let x5 = load_x(b + 5u, norm, ss);
  let x6 = load_x(b + 6u, norm, ss);
  let x7 = load_x(b + 7u, norm, ss);
  return XChunk(x0, x1, x2, x3, x4, x5, x6, x7);
}

// Sums acc and ss over the workgroup: afterwards red[r * WG] holds accumulator r and
// red[4 * WG] the sum of x^2. Every thread must call it (it has barriers).
fn reduce_partials(tid: u32, acc: vec4<f32>, ss: f32) {
  red[tid] = acc.x;
  red[WG + tid] = acc.y;
  red[2u * WG + tid] = acc.z;
  red[3u * WG + tid] = acc.w;
  red[4u * WG + tid] = ss;
  tree_sum_lanes(tid, 5u);
}

// After reduce_partials: RMSNorm's 1 / sqrt(mean(x^2) + eps) over the row of k activations.
fn reduced_rstd(k: u32, eps: f32) -> f32 {
  return inverseSqrt(red[4u * WG] / f32(k) + eps);
}
