// A 32-bit word of an elementwise operand as f32: an i32 (is_int) or an f32 bit pattern.
fn load(word: u32, is_int: bool) -> f32 {
  if (is_int) { return f32(bitcast<i32>(word)); }
  return bitcast<f32>(word);
}
