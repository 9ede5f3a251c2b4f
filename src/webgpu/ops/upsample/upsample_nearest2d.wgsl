// Nearest-neighbour 2-D upsampling of NCHW (PyTorch's `nearest`): source index
// min(floor(dst * scale), in - 1), scale = 1/scale_factor when given, else in/out.
//#include "per_element.inc.wgsl"
//#include "nchw.inc.wgsl"
//#include "upsample_params.inc.wgsl"

fn src_index(o: u32, in_size: u32, out_size: u32, scale: f32) -> u32 {
  if (in_size == out_size) { return o; }
  if (out_size == 2u * in_size) { return o >> 1u; }
  return min(u32(floor(f32(o) * scale)), in_size - 1u);
}

fn element(i: u32) {
  let o = plane_coords(i, p.out_h, p.out_w);
  let iy = src_index(o.y, p.in_h, p.out_h, p.scale_h);
  let ix = src_index(o.x, p.in_w, p.out_w, p.scale_w);
  y[i] = x[(o.plane * p.in_h + iy) * p.in_w + ix];
}
