// et_vk.sdpa: out = softmax(q k^T * scale + mask) v over [B, H, S, D] (ExecuTorch's sdpa_impl
// in backends/vulkan/custom_ops_lib.py). k and v may have one head (or batch) that every
// query head (batch) shares, as torch.matmul broadcasts; the additive mask is [Sq, Skv] or
// [B, H, Sq, Skv]. One thread per output element: a first pass over the keys finds the row
// maximum, a second one sums the exponentials and the weighted values (numerically stable).
//#include "per_element.inc.wgsl"
//#include "nchw.inc.wgsl"
//#include "sdpa_plain_params.inc.wgsl"
@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> k: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;


fn score(qrow: u32, kbase: u32, j: u32, mrow: u32) -> f32 {
  var s = 0.0;
  for (var e = 0u; e < p.d; e = e + 1u) { s = s + q[qrow + e] * k[kbase + j * p.d + e]; }
  s = s * p.scale;
  if (p.mask_mode != 0u) { s = s + mask[mrow + j]; }
  return s;
}

fn element_count() -> u32 { return p.total; }

fn element(idx: u32) {
  let c = plane_coords(idx, p.sq, p.d);  // out [B * H, Sq, D]
  let b = c.plane / p.hq;
  let h = c.plane % p.hq;
  let qrow = (c.plane * p.sq + c.y) * p.d;
  let kvbh = (b / p.kv_b_div) * (p.hq / p.kv_h_div) + h / p.kv_h_div;
  let kbase = kvbh * p.kv_bh_stride;
  var mrow = c.y * p.skv;
  if (p.mask_mode == 2u) { mrow = (c.plane * p.sq + c.y) * p.skv; }
  var m = -3.0e38;
  for (var j = 0u; j < p.skv; j = j + 1u) { m = max(m, score(qrow, kbase, j, mrow)); }
  var sum = 0.0;
  var acc = 0.0;
  for (var j = 0u; j < p.skv; j = j + 1u) {
    let w = exp(score(qrow, kbase, j, mrow) - m);
    sum = sum + w;
    acc = acc + w * v[kbase + j * p.d + c.x];
  }
  out[idx] = acc / sum;
}
