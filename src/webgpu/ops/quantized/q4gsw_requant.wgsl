// et_vk.q4gsw_requant: fp32 latent weights [N, K] -> 4-bit codes with the frozen group
// scales [K / group_size, N_pad] (scales[k / gs][n]), as custom_ops_lib.py defines it:
//   q = round_half_even(latent / scale) (0 where the scale is 0), clamped to [-8, 7], + 8;
//   byte j of row n = code[n, 2j] | code[n, 2j + 1] << 4 (a lone last column: high nibble 0).
// The uint8 output is not a constant, so one byte per i32 word (webgpu/graph.h).
// One thread per output byte.
//#include "per_element.inc.wgsl"
//#include "q4gsw_requant_params.inc.wgsl"
@group(0) @binding(0) var<storage, read> latent: array<f32>;
@group(0) @binding(1) var<storage, read> scales: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<u32>;
@group(0) @binding(3) var<uniform> p: RequantParams;


fn code(n: u32, k: u32) -> u32 {
  let s = scales[(k / p.group_size) * p.scale_row + n];
  var q = 0.0;
  if (s != 0.0) { q = clamp(round(latent[n * p.k + k] / s), -8.0, 7.0); }
  return u32(i32(q) + 8);
}

fn element_count() -> u32 { return p.n * p.k_packed; }

fn element(i: u32) {
  let j = i % p.k_packed;
  let n = i / p.k_packed;
  var packed = code(n, 2u * j);
  if (2u * j + 1u < p.k) { packed = packed | (code(n, 2u * j + 1u) << 4u); }
  y[i] = packed;
}
