// et_vk.grid_priors: the anchor centers of an H x W feature map, out [H * W, 2] with
//   out[h * W + w] = ((w + offset) * stride, (h + offset) * stride)   (x, y)
struct Params { hw: u32, w: u32, stride: f32, offset: f32, }

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> p: Params;

override wg_size: u32 = 256;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * wg_size;
  if (i >= p.hw) { return; }
  out[2u * i] = (f32(i % p.w) + p.offset) * p.stride;
  out[2u * i + 1u] = (f32(i / p.w) + p.offset) * p.stride;
}
