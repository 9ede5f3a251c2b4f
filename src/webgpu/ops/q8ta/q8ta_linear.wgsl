// et_vk.q8ta_linear / q8ta_linear_gemv (int8 out) and et_vk.linear_q8ta_q8csw (f32 out,
// float_out = 1): int8 activations x [M, K] (one value per i32 word) times int8
// per-output-channel symmetric weights [N, K] (4 per u32 word):
//   y[m, n] = sum_k (x - in_zp) * w[n, k] * in_scale * w_scale[n] + bias[n]  (exact i32 sum)
// then relu and quantization to the output's scale / zero point for the q8ta ops, as
// custom_ops_lib.py's dequantize -> linear -> quantize. One thread per output.
//#include "dispatch.inc.wgsl"
//#include "q8ta_params.inc.wgsl"
//#include "q8ta_math.inc.wgsl"
//#include "q8_weight_bytes.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<i32>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> w_scales: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<u32>;  // i32 or f32 words
@group(0) @binding(5) var<uniform> p: LinearParams;

override wg_size: u32 = 64;
override float_out: u32 = 0;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_invocation(gid, nwg, wg_size);
  if (i >= p.m * p.n) { return; }
  let n = i % p.n;
  let m = i / p.n;
  let xrow = m * p.k;
  let wrow = n * p.w_row;
  var acc = 0;
  for (var k = 0u; k < p.k; k = k + 1u) {
    acc = acc + (x[xrow + k] - p.in_zp) * weight_i8(wrow + k);
  }
  var v = f32(acc) * (p.in_scale * w_scales[n]);
  if (p.has_bias != 0u) { v = v + bias[n]; }
  if (p.relu != 0u) { v = max(v, 0.0); }
  if (float_out != 0u) {
    y[i] = bitcast<u32>(v);
  } else {
    y[i] = bitcast<u32>(q8_quantize(v, p.out_inv_scale, p.out_zp));
  }
}
