// et_vk.linear_q4gsw_backward: the input gradient through a frozen 4-bit linear_q4gsw layer,
// d_x[m, k] = sum_n d_out[m, n] w[n, k] with w[n, k] = (q[n, k] - 8) * scales[k / gs][n]
// (shared/spec/ops.md §5.1: even k in the low nibble, scales transposed [groups, padded_n]).
// One thread per element of d_x, summing over N in order; K = 2 * row_bytes.
//#include "per_element.inc.wgsl"
//#include "training_params.inc.wgsl"
//#include "../quantized/q4_bytes.inc.wgsl"
@group(0) @binding(0) var<storage, read> d_out: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read_write> d_x: array<f32>;
@group(0) @binding(4) var<uniform> p: GradParams;

fn element_count() -> u32 { return p.m * p.k; }

fn element(i: u32) {
  let r = i / p.k;
  let k = i % p.k;
  let srow = (k / p.group_size) * p.padded_n;
  let byte = k / 2u;
  let high = (k & 1u) == 1u;
  var acc = 0.0;
  for (var n = 0u; n < p.n; n++) {
    acc = acc + d_out[r * p.n + n] * (nibble(n * p.row_bytes + byte, high) * scales[srow + n]);
  }
  d_x[i] = acc;
}
