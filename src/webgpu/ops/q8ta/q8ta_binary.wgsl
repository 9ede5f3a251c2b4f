// et_vk.q8ta_add (mode 1): quantize(dequantize(a) + alpha * dequantize(b)), and
// et_vk.q8ta_relu (mode 0): quantize(relu(dequantize(a))); same shapes, one thread per
// element, as custom_ops_lib.py's reference implementations compute them.
//#include "per_element.inc.wgsl"
//#include "q8ta_params.inc.wgsl"
//#include "q8ta_math.inc.wgsl"
@group(0) @binding(0) var<storage, read> a: array<i32>;
@group(0) @binding(1) var<storage, read> b: array<i32>;
@group(0) @binding(2) var<storage, read_write> y: array<i32>;
@group(0) @binding(3) var<uniform> p: EltParams;

override mode: u32 = 1;

fn element_count() -> u32 { return p.n; }

fn element(i: u32) {
  var v = q8_dequantize(a[i], p.a_scale, p.a_zp);
  if (mode == 1u) {
    v = v + p.alpha * q8_dequantize(b[i], p.b_scale, p.b_zp);
  } else {
    v = max(v, 0.0);
  }
  y[i] = q8_quantize(v, p.out_inv_scale, p.out_zp);
}
