// What the elementwise shaders (binary, unary, where) share: one thread per output element
// of n (per_element.inc.wgsl, `per` of them a thread), operand kinds as a pipeline constant,
// and operand words read as f32.
//#include "per_element.inc.wgsl"

fn element_count() -> u32 { return p.n; }

// Params.flags as a pipeline constant (the field stays in the layout, unread): per-element
// branches on a uniform value cost 2x on SwiftShader (bench/kernels/elementwise/README.md).
override kind_flags: u32 = 0u;

// A 32-bit word of an elementwise operand as f32: an i32 (is_int) or an f32 bit pattern.
fn load(word: u32, is_int: bool) -> f32 {
  if (is_int) { return f32(bitcast<i32>(word)); }
  return bitcast<f32>(word);
}
