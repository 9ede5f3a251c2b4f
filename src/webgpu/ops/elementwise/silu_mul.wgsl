// out = silu(gate) * up, elementwise on same-shaped f32 tensors: the SwiGLU of an LLM's
// feed-forward in one dispatch instead of sigmoid, mul, mul (llm_fusion.cpp). The same
// arithmetic, in the same order, as those three ops.
//#include "dispatch.inc.wgsl"
struct Params { n: u32, _p0: u32, _p1: u32, _p2: u32 }

@group(0) @binding(0) var<storage, read> gate: array<f32>;
@group(0) @binding(1) var<storage, read> up: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

override wg_size: u32 = 256;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_invocation(gid, nwg, wg_size);
  if (i >= p.n) { return; }
  let x = gate[i];
  let s = 1.0 / (1.0 + exp(-x));
  out[i] = (x * s) * up[i];
}
