// et_vk.linear_dW: the weight gradient of a linear layer, d_W[n, k] = sum_m d_out[m, n] x[m, k]
// (d_out [M, N] and x [M, K] with any leading dims flattened into M). One thread per
// element of d_W, summing over M in order.
//#include "per_element.inc.wgsl"
//#include "training_params.inc.wgsl"
@group(0) @binding(0) var<storage, read> d_out: array<f32>;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> d_w: array<f32>;
@group(0) @binding(3) var<uniform> p: GradParams;

fn element_count() -> u32 { return p.n * p.k; }

fn element(i: u32) {
  let n = i / p.k;
  let k = i % p.k;
  var acc = 0.0;
  for (var r = 0u; r < p.m; r++) {
    acc = acc + d_out[r * p.n + n] * x[r * p.k + k];
  }
  d_w[i] = acc;
}
