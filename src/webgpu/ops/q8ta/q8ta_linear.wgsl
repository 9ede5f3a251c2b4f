// et_vk.q8ta_linear / q8ta_linear_gemv (int8 out) and et_vk.linear_q8ta_q8csw (f32 out,
// float_out = 1): int8 activations x [M, K] (one value per i32 word) times int8
// per-output-channel symmetric weights [N, K] (4 per u32 word):
//   y[m, n] = sum_k (x - in_zp) * w[n, k] * in_scale * w_scale[n] + bias[n]  (exact i32 sum)
// then relu and quantization to the output's scale / zero point for the q8ta ops, as
// custom_ops_lib.py's dequantize -> linear -> quantize. One thread per output.
//#include "per_element.inc.wgsl"
//#include "q8ta_params.inc.wgsl"
//#include "q8ta_math.inc.wgsl"
//#include "q8ta_dot.inc.wgsl"
@group(0) @binding(4) var<storage, read_write> y: array<u32>;  // i32 or f32 words
@group(0) @binding(5) var<uniform> p: LinearParams;

override float_out: u32 = 0;

fn element_count() -> u32 { return p.m * p.n; }

fn element(i: u32) {
  let n = i % p.n;
  let m = i / p.n;
  let xrow = m * p.k;
  let wrow = n * p.w_row;
  var acc = 0;
  for (var k = 0u; k < p.k; k = k + 1u) {
    acc = acc + (x[xrow + k] - p.in_zp) * weight_i8(wrow + k);
  }
  let v = dot_result(acc, w_scales[n], n);
  if (float_out != 0u) {
    y[i] = bitcast<u32>(v);
  } else {
    y[i] = bitcast<u32>(q8_quantize(v, p.out_inv_scale, p.out_zp));
  }
}
