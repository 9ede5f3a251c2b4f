// What the int8 dot-product shaders (q8ta_conv2d, q8ta_linear) share: bindings 0-3 (int8
// activations x, one value per i32 word; int8 weights w, 4 per u32 word; per-output-channel
// weight scales; bias) and the float result of an exact i32 sum. The includer binds y (4)
// and its uniform p (5), which has in_scale, has_bias and relu.
//#include "q8_weight_bytes.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<i32>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> w_scales: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;

// sum_k (x - in_zp) * w = acc for output channel oc as custom_ops_lib.py's dequantize ->
// op -> (quantize) computes it: acc * in_scale * w_scale + bias[oc], then relu if asked.
fn dot_result(acc: i32, w_scale: f32, oc: u32) -> f32 {
  var v = f32(acc) * (p.in_scale * w_scale);
  if (p.has_bias != 0u) { v = v + bias[oc]; }
  if (p.relu != 0u) { v = max(v, 0.0); }
  return v;
}
