// out[i] = start + i * step (fill: step 0), as f32 or i32 words per the output's kind.
//#include "per_element.inc.wgsl"
struct Params {
  n: u32, out_int: u32, start_i: i32, step_i: i32,
  start_f: f32, step_f: f32, _p0: u32, _p1: u32,
}

@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<uniform> p: Params;

fn element_count() -> u32 { return p.n; }

fn element(i: u32) {
  if (p.out_int != 0u) {
    out[i] = bitcast<u32>(p.start_i + i32(i) * p.step_i);
  } else {
    out[i] = bitcast<u32>(p.start_f + f32(i) * p.step_f);
  }
}
