// et_vk.linear_dq8ca_q4gsw ("8da4w"): each input row is quantized to int8 with its own scale
// and zero point (from torchao.choose_qparams_affine, as torchao's quantize_affine does it:
// clamp(round(x * (1 / s)) + zp, -128, 127), round half to even), dequantized back, and
// multiplied with the q4gsw weight (shared/spec/ops.md §5.1, even k in the low nibble,
// scales [groups, n_pad]). The result is the model's own quantize-dequantize-linear, not
// only an approximation of linear(x). weight_sums is not needed in f32. One thread per output.
//#include "per_element.inc.wgsl"
//#include "q4gsw_params.inc.wgsl"
//#include "q4_bytes.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(6) var<storage, read> in_scale: array<f32>;
@group(0) @binding(7) var<storage, read> in_zp: array<i32>;

fn element_count() -> u32 { return p.m * p.n; }

fn element(i: u32) {
  let n = i % p.n;
  let m = i / p.n;
  let s = in_scale[m];
  let inv = 1.0 / s;
  let zp = f32(in_zp[m]);
  let row = m * p.k;
  let wrow = n * p.k_packed;
  var acc = 0.0;
  for (var k = 0u; k < p.k; k = k + 1u) {
    let xq = clamp(round(x[row + k] * inv) + zp, -128.0, 127.0);
    let xd = (xq - zp) * s;
    acc = acc + xd * nibble(wrow + k / 2u, (k & 1u) == 1u) * scales[(k / p.group_size) * p.n_pad + n];
  }
  if (p.has_bias != 0u) { acc = acc + bias[n]; }
  y[i] = acc;
}
