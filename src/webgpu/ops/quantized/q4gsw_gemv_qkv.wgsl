// Three q4gsw GEMVs over the same input row in one dispatch (an LLM layer's q, k and v
// projections; webgpu/llm_gemv_fusion.h), with the optional RMSNorm of x folded in
// (flags & 1, as q4gsw_gemv_fused.wgsl). Workgroups [0, wg0) compute set 0's rows,
// [wg0, wg0 + wg1) set 1's, the rest set 2's (ws: the set), 4 rows each as q4gsw_gemv_rows.wgsl: it
// is uniform over a workgroup, so the branches that pick its buffers do not diverge.
// All sets share K, k_packed and group size (checked on the host).
//#include "dispatch.inc.wgsl"
//#include "q4gsw_gemv_normed.inc.wgsl"
struct Params {
  n0: u32, n1: u32, n2: u32, k: u32,
  k_packed: u32, group_size: u32, wg0: u32, wg1: u32,
  pad0: u32, pad1: u32, pad2: u32, flags: u32,
  eps: f32, z0: u32, z1: u32, z2: u32,
}

@group(0) @binding(2) var<storage, read> w0: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> s0: array<f32>;
@group(0) @binding(4) var<storage, read> w1: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read> s1: array<f32>;
@group(0) @binding(6) var<storage, read> w2: array<vec4<u32>>;
@group(0) @binding(7) var<storage, read> s2: array<f32>;
@group(0) @binding(8) var<storage, read_write> y0: array<f32>;
@group(0) @binding(9) var<storage, read_write> y1: array<f32>;
@group(0) @binding(10) var<storage, read_write> y2: array<f32>;
@group(0) @binding(11) var<uniform> p: Params;

const ROWS: u32 = 4u;  // output rows per workgroup, one accumulator each

fn load_w(ws: u32, i: u32) -> vec4<u32> {
  if (ws == 0u) { return w0[i]; }
  if (ws == 1u) { return w1[i]; }
  return w2[i];
}

fn load_s(ws: u32, i: u32) -> f32 {
  if (ws == 0u) { return s0[i]; }
  if (ws == 1u) { return s1[i]; }
  return s2[i];
}

fn store_y(ws: u32, i: u32, v: f32) {
  if (ws == 0u) { y0[i] = v; } else if (ws == 1u) { y1[i] = v; } else { y2[i] = v; }
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) tid: u32) {
  let wg = flat_workgroup(wid, nwg);
  var ws = 2u;
  var local = wg - p.wg0 - p.wg1;
  var n = p.n2;
  var n_pad = p.pad2;
  if (wg < p.wg0) { ws = 0u; local = wg; n = p.n0; n_pad = p.pad0; }
  else if (wg < p.wg0 + p.wg1) { ws = 1u; local = wg - p.wg0; n = p.n1; n_pad = p.pad1; }
  let r0 = local * ROWS;
  if (r0 >= n) { return; }  // uniform over the workgroup
  let chunks = p.k / 32u;
  let row_stride = p.k_packed / 16u;
  let norm = (p.flags & 1u) != 0u;
  // The ROWS = 4 rows, written out rather than looped (bench/kernels/robustness).
  let n_a = min(r0, n - 1u);
  let n_b = min(r0 + 1u, n - 1u);
  let n_c = min(r0 + 2u, n - 1u);
  let n_d = min(r0 + 3u, n - 1u);
  var acc = vec4<f32>(0.0);
  var ss = 0.0;
  for (var c = tid; c < chunks; c = c + WG) {
    let xv = load_chunk(c, norm, &ss);
    let srow = (c * 32u / p.group_size) * n_pad;
    acc += vec4<f32>(load_s(ws, srow + n_a) * chunk_dot(load_w(ws, n_a * row_stride + c), xv),
                     load_s(ws, srow + n_b) * chunk_dot(load_w(ws, n_b * row_stride + c), xv),
                     load_s(ws, srow + n_c) * chunk_dot(load_w(ws, n_c * row_stride + c), xv),
                     load_s(ws, srow + n_d) * chunk_dot(load_w(ws, n_d * row_stride + c), xv));
  }
  reduce_partials(tid, acc, ss);
  if (tid < ROWS && r0 + tid < n) {
    var v = red[tid * WG];
    if (norm) { v = v * reduced_rstd(p.k, p.eps); }
    store_y(ws, r0 + tid, v);
  }
}
