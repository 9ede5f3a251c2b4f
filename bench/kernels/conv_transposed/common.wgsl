// What every variant shares (the bench prepends this file to each): conv2d's Params (the
// ConvParams of src/webgpu/ops/conv/register.cpp), bindings 0 and 2-4, the clamp and the
// kernel window as override constants. Each variant declares binding 1 (its weights).
struct Params {
  n: u32, in_c: u32, in_h: u32, in_w: u32,
  out_c: u32, out_h: u32, out_w: u32, groups: u32,
  k_h: u32, k_w: u32, stride_h: u32, stride_w: u32,
  pad_h: u32, pad_w: u32, dil_h: u32, dil_w: u32,
  total: u32, has_bias: u32, clamp_min: f32, clamp_max: f32,
  epi_n: u32, has_scale: u32, scale_bstride: u32, _p0: u32,
  epi: array<vec4<u32>, 6>,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

override KH: u32 = 2;
override KW: u32 = 2;
override SH: u32 = 2;
override SW: u32 = 2;
override DH: u32 = 1;
override DW: u32 = 1;

fn finish(v: f32) -> f32 { return clamp(v, p.clamp_min, p.clamp_max); }

fn bias_or_zero(oc: u32) -> f32 {
  if (p.has_bias != 0u) { return bias[oc]; }
  return 0.0;
}
