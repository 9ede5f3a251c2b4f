// et_vk.grid_priors: the anchor centers of an H x W feature map, out [H * W, 2] with
//   out[h * W + w] = ((w + offset) * stride, (h + offset) * stride)   (x, y)
//#include "per_element.inc.wgsl"
struct Params { hw: u32, w: u32, stride: f32, offset: f32, }

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> p: Params;

fn element_count() -> u32 { return p.hw; }

fn element(i: u32) {
  out[2u * i] = (f32(i % p.w) + p.offset) * p.stride;
  out[2u * i + 1u] = (f32(i / p.w) + p.offset) * p.stride;
}
