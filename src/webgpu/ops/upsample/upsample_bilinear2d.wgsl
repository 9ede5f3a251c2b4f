// Bilinear 2-D upsampling of NCHW with PyTorch's source-index rules: align_corners maps
// dst * (in-1)/(out-1); otherwise half-pixel (dst + 0.5) * scale - 0.5 clamped at 0,
// scale = 1/scale_factor when given, else in/out (the host passes the scale to use).
//#include "per_element.inc.wgsl"
//#include "nchw.inc.wgsl"
//#include "upsample_params.inc.wgsl"

fn source(o: u32, scale: f32) -> f32 {
  if (p.align_corners != 0u) { return scale * f32(o); }
  return max(scale * (f32(o) + 0.5) - 0.5, 0.0);
}

fn element(i: u32) {
  let o = plane_coords(i, p.out_h, p.out_w);
  let sy = source(o.y, p.scale_h);
  let sx = source(o.x, p.scale_w);
  let y0 = min(u32(sy), p.in_h - 1u);
  let x0 = min(u32(sx), p.in_w - 1u);
  let y1 = select(y0, y0 + 1u, y0 < p.in_h - 1u);
  let x1 = select(x0, x0 + 1u, x0 < p.in_w - 1u);
  let ly = clamp(sy - f32(y0), 0.0, 1.0);
  let lx = clamp(sx - f32(x0), 0.0, 1.0);
  let base = o.plane * p.in_h * p.in_w;
  let v00 = x[base + y0 * p.in_w + x0];
  let v01 = x[base + y0 * p.in_w + x1];
  let v10 = x[base + y1 * p.in_w + x0];
  let v11 = x[base + y1 * p.in_w + x1];
  y[i] = (1.0 - ly) * ((1.0 - lx) * v00 + lx * v01) + ly * ((1.0 - lx) * v10 + lx * v11);
}
