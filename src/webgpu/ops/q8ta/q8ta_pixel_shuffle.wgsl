// et_vk.q8ta_pixel_shuffle: y[n, c, h * r + i, w * r + j] = x[n, c * r * r + i * r + j, h, w],
// requantized from the input's scale / zero point to the output's (a plain copy when they
// agree). One thread per output element.
//#include "dispatch.inc.wgsl"
//#include "q8ta_params.inc.wgsl"
//#include "q8ta_math.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<i32>;
@group(0) @binding(1) var<storage, read_write> y: array<i32>;
@group(0) @binding(2) var<uniform> p: ShuffleParams;

override wg_size: u32 = 64;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_invocation(gid, nwg, wg_size);
  if (i >= p.n) { return; }
  let ox = i % p.ow;
  var t = i / p.ow;
  let oy = t % p.oh;
  t = t / p.oh;
  let c = t % p.c;
  let n = t / p.c;
  let ih = p.oh / p.r;
  let iw = p.ow / p.r;
  let ic = c * p.r * p.r + (oy % p.r) * p.r + (ox % p.r);
  let q = x[((n * p.c * p.r * p.r + ic) * ih + oy / p.r) * iw + ox / p.r];
  if (p.requant == 0u) {
    y[i] = q;
  } else {
    y[i] = q8_quantize(q8_dequantize(q, p.in_scale, p.in_zp), p.out_inv_scale, p.out_zp);
  }
}
