// Nearest-neighbour 2-D upsampling of NCHW (PyTorch's `nearest`): source index
// min(floor(dst * scale), in - 1), scale = 1/scale_factor when given, else in/out.
//#include "dispatch.inc.wgsl"
//#include "upsample_params.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

override wg_size: u32 = 256;

fn src_index(o: u32, in_size: u32, out_size: u32, scale: f32) -> u32 {
  if (in_size == out_size) { return o; }
  if (out_size == 2u * in_size) { return o >> 1u; }
  return min(u32(floor(f32(o) * scale)), in_size - 1u);
}

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_invocation(gid, nwg, wg_size);
  if (i >= p.n) { return; }
  let ox = i % p.out_w;
  let oy = (i / p.out_w) % p.out_h;
  let plane = i / (p.out_w * p.out_h);
  let iy = src_index(oy, p.in_h, p.out_h, p.scale_h);
  let ix = src_index(ox, p.in_w, p.out_w, p.scale_w);
  y[i] = x[(plane * p.in_h + iy) * p.in_w + ix];
}
