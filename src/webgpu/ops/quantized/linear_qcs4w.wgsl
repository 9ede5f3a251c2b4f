// et_vk.linear_qcs4w: y[m, n] = sum_k x[m, k] * (q[n, k] - 8) * scales[n] (shared/spec/ops.md
// §5.3): weight bytes [N, row_bytes] with even k in the HIGH nibble (fuse_quantized_ops.py's
// pack_4bit_weight_tensor), one fp32 scale per output channel, no bias (a separate add).
// One thread per output element; the scale is applied once after the K loop.
//#include "per_element.inc.wgsl"
//#include "linear_qcs4w_params.inc.wgsl"
//#include "q4_bytes.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

fn element_count() -> u32 { return p.m * p.n; }

fn element(i: u32) {
  let n = i % p.n;
  let row = (i / p.n) * p.k;
  let wrow = n * p.row_bytes;
  var acc = 0.0;
  for (var k = 0u; k < p.k; k = k + 1u) {
    acc = acc + x[row + k] * nibble(wrow + k / 2u, (k & 1u) == 0u);
  }
  y[i] = acc * scales[n];
}
