// Inference batch norm over [N, C, *]: y = (x - mean[c]) / sqrt(var[c] + eps) * w[c] + b[c].
//#include "per_element.inc.wgsl"
struct Params {
  n: u32, channels: u32, inner: u32, flags: u32,  // flags: 1 weight, 2 bias
  eps: f32, _p0: f32, _p1: f32, _p2: f32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read> run_mean: array<f32>;
@group(0) @binding(4) var<storage, read> run_var: array<f32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;

fn element_count() -> u32 { return p.n; }

fn element(i: u32) {
  let c = (i / p.inner) % p.channels;
  var y = (x[i] - run_mean[c]) * inverseSqrt(run_var[c] + p.eps);
  if ((p.flags & 1u) != 0u) { y = y * weight[c]; }
  if ((p.flags & 2u) != 0u) { y = y + bias[c]; }
  out[i] = y;
}
