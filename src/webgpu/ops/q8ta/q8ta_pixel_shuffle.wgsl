// et_vk.q8ta_pixel_shuffle: y[n, c, h * r + i, w * r + j] = x[n, c * r * r + i * r + j, h, w],
// requantized from the input's scale / zero point to the output's (a plain copy when they
// agree). One thread per output element.
//#include "per_element.inc.wgsl"
//#include "nchw.inc.wgsl"
//#include "q8ta_params.inc.wgsl"
//#include "q8ta_math.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<i32>;
@group(0) @binding(1) var<storage, read_write> y: array<i32>;
@group(0) @binding(2) var<uniform> p: ShuffleParams;

fn element_count() -> u32 { return p.n; }

fn element(i: u32) {
  let o = nchw_coords(i, p.c, p.oh, p.ow);
  let ih = p.oh / p.r;
  let iw = p.ow / p.r;
  let ic = o.c * p.r * p.r + (o.y % p.r) * p.r + (o.x % p.r);
  let q = x[((o.n * p.c * p.r * p.r + ic) * ih + o.y / p.r) * iw + o.x / p.r];
  if (p.requant == 0u) {
    y[i] = q;
  } else {
    y[i] = q8_quantize(q8_dequantize(q, p.in_scale, p.in_zp), p.out_inv_scale, p.out_zp);
  }
}
