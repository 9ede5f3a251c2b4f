// int8 per-tensor affine arithmetic as quantized_decomposed defines it, in f32:
//   dequantize: (f32(q) - zp) * scale
//   quantize:   clamp(round_half_even(x * inv_scale) + zp, -128, 127)
// (inv_scale = f32(1 / scale) computed in double on the host, as PyTorch does).
fn q8_dequantize(q: i32, scale: f32, zp: i32) -> f32 {
  return (f32(q) - f32(zp)) * scale;
}
fn q8_quantize(x: f32, inv_scale: f32, zp: i32) -> i32 {
  return i32(clamp(round(x * inv_scale) + f32(zp), -128.0, 127.0));
}
