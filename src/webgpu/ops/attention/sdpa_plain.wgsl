// et_vk.sdpa: out = softmax(q k^T * scale + mask) v over [B, H, S, D] (ExecuTorch's sdpa_impl
// in backends/vulkan/custom_ops_lib.py). k and v may have one head (or batch) that every
// query head (batch) shares, as torch.matmul broadcasts; the additive mask is [Sq, Skv] or
// [B, H, Sq, Skv]. One thread per output element: a first pass over the keys finds the row
// maximum, a second one sums the exponentials and the weighted values (numerically stable).
//#include "dispatch.inc.wgsl"
//#include "sdpa_plain_params.inc.wgsl"
@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> k: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;

override wg_size: u32 = 64;

fn score(qrow: u32, kbase: u32, j: u32, mrow: u32) -> f32 {
  var s = 0.0;
  for (var e = 0u; e < p.d; e = e + 1u) { s = s + q[qrow + e] * k[kbase + j * p.d + e]; }
  s = s * p.scale;
  if (p.mask_mode != 0u) { s = s + mask[mrow + j]; }
  return s;
}

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let idx = flat_invocation(gid, nwg, wg_size);
  if (idx >= p.total) { return; }
  let e = idx % p.d;
  let i = (idx / p.d) % p.sq;
  let bh = idx / (p.d * p.sq);
  let b = bh / p.hq;
  let h = bh % p.hq;
  let qrow = (bh * p.sq + i) * p.d;
  let kvbh = (b / p.kv_b_div) * (p.hq / p.kv_h_div) + h / p.kv_h_div;
  let kbase = kvbh * p.kv_bh_stride;
  var mrow = i * p.skv;
  if (p.mask_mode == 2u) { mrow = (bh * p.sq + i) * p.skv; }
  var m = -3.0e38;
  for (var j = 0u; j < p.skv; j = j + 1u) { m = max(m, score(qrow, kbase, j, mrow)); }
  var sum = 0.0;
  var acc = 0.0;
  for (var j = 0u; j < p.skv; j = j + 1u) {
    let w = exp(score(qrow, kbase, j, mrow) - m);
    sum = sum + w;
    acc = acc + w * v[kbase + j * p.d + e];
  }
  out[idx] = acc / sum;
}
