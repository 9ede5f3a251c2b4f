// Per-tensor affine int8 (or any integer range) conversion, as quantized_decomposed does it:
//   quantize   (mode 0): q = clamp(round(x * inv_scale) + zp, qmin, qmax)  f32 -> i32 word
//   dequantize (mode 1): x = (f32(q) - zp) * scale                         i32 word -> f32
// round() is half-to-even, as torch.round. inv_scale is 1 / scale rounded to f32 on the host,
// the value PyTorch multiplies by.
//#include "per_element.inc.wgsl"
struct Params {
  n: u32, zp: i32, qmin: i32, qmax: i32,
  scale: f32, inv_scale: f32, _p0: u32, _p1: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

override mode: u32 = 0u;

fn element_count() -> u32 { return p.n; }

fn element(i: u32) {
  if (mode == 0u) {
    let r = round(bitcast<f32>(src[i]) * p.inv_scale) + f32(p.zp);
    // Clamped in f32 first so that huge or infinite values do not overflow the i32 cast.
    let c = clamp(r, f32(p.qmin), f32(p.qmax));
    dst[i] = bitcast<u32>(i32(c));
  } else {
    dst[i] = bitcast<u32>((f32(bitcast<i32>(src[i])) - f32(p.zp)) * p.scale);
  }
}
