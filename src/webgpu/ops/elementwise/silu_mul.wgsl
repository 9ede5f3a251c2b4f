// out = silu(gate) * up, elementwise on same-shaped f32 tensors: the SwiGLU of an LLM's
// feed-forward in one dispatch instead of sigmoid, mul, mul (llm_fusion.cpp). The same
// arithmetic, in the same order, as those three ops.
//#include "per_element.inc.wgsl"
struct Params { n: u32, _p0: u32, _p1: u32, _p2: u32 }

@group(0) @binding(0) var<storage, read> gate: array<f32>;
@group(0) @binding(1) var<storage, read> up: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

fn element_count() -> u32 { return p.n; }

fn element(i: u32) {
  let x = gate[i];
  let s = 1.0 / (1.0 + exp(-x));
  out[i] = (x * s) * up[i];
}
