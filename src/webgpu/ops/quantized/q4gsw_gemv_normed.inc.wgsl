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

// Chunk c of x (activations 32c .. 32c+31), times nw when `norm`; adds its x^2 to *ss (the
// un-normed x, which is what RMSNorm's mean is over).
fn load_chunk(c: u32, norm: bool, ss: ptr<function, f32>) -> array<vec4<f32>, 8> {
  var xv: array<vec4<f32>, 8>;
  for (var i = 0u; i < 8u; i = i + 1u) {
    let v = x[c * 8u + i];
    *ss = *ss + dot(v, v);
    xv[i] = select(v, v * nw[c * 8u + i], norm);
  }
  return xv;
}

// One 16-byte weight chunk (32 nibbles) against a loaded chunk of x.
fn chunk_dot(q: vec4<u32>, xv: array<vec4<f32>, 8>) -> f32 {
  return word_dot(q.x, xv[0], xv[1]) + word_dot(q.y, xv[2], xv[3]) + word_dot(q.z, xv[4], xv[5]) +
         word_dot(q.w, xv[6], xv[7]);
}

// Sums acc and ss over the workgroup: afterwards red[r * WG] holds accumulator r and
// red[4 * WG] the sum of x^2. Every thread must call it (it has barriers).
fn reduce_partials(tid: u32, acc: vec4<f32>, ss: f32) {
  for (var r = 0u; r < 4u; r = r + 1u) { red[r * WG + tid] = acc[r]; }
  red[4u * WG + tid] = ss;
  tree_sum_lanes(tid, 5u);
}

// After reduce_partials: RMSNorm's 1 / sqrt(mean(x^2) + eps) over the row of k activations.
fn reduced_rstd(k: u32, eps: f32) -> f32 {
  return inverseSqrt(red[4u * WG] / f32(k) + eps);
}
