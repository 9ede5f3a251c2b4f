// Direct 2-D convolution (1-D runs as height 1): one invocation per output element,
// summing over its group's input channels and the kernel window; optional bias and
// output clamp (et_vk.conv_with_clamp).
struct Params {
  n: u32, in_c: u32, in_h: u32, in_w: u32,
  out_c: u32, out_h: u32, out_w: u32, groups: u32,
  k_h: u32, k_w: u32, stride_h: u32, stride_w: u32,
  pad_h: u32, pad_w: u32, dil_h: u32, dil_w: u32,
  total: u32, has_bias: u32, clamp_min: f32, clamp_max: f32,
  epi_n: u32, has_scale: u32, scale_bstride: u32, _p0: u32,  // fused epilogue / input scale
  epi: array<vec4<u32>, 6>,                                   // (code, bitcast a, -, -)
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

override wg_size: u32 = 64;

// The fused elementwise ops (graph fusion, webgpu/fusion.cpp), in order.
fn epilogue(v: f32) -> f32 {
  var y = v;
  for (var k = 0u; k < p.epi_n; k = k + 1u) {
    let a = bitcast<f32>(p.epi[k].y);
    switch p.epi[k].x {
      case 1u: { y = max(y, a); }
      case 2u: { y = min(y, a); }
      case 3u: { y = y * clamp(y + 3.0, 0.0, 6.0) / 6.0; }  // hardswish
      case 4u: { y = y + a; }
      case 5u: { y = y * a; }
      case 6u: { y = y / a; }
      default: {}
    }
  }
  return y;
}

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * wg_size;
  if (i >= p.total) { return; }
  let ox = i % p.out_w;
  let oy = (i / p.out_w) % p.out_h;
  let oc = (i / (p.out_w * p.out_h)) % p.out_c;
  let b = i / (p.out_w * p.out_h * p.out_c);
  let cin_per_group = p.in_c / p.groups;
  let cout_per_group = p.out_c / p.groups;
  let g = oc / cout_per_group;
  var acc = 0.0;
  if (p.has_bias != 0u) { acc = bias[oc]; }
  let iy0 = i32(oy * p.stride_h) - i32(p.pad_h);
  let ix0 = i32(ox * p.stride_w) - i32(p.pad_w);
  for (var c = 0u; c < cin_per_group; c = c + 1u) {
    let ic = g * cin_per_group + c;
    let x_base = (b * p.in_c + ic) * p.in_h * p.in_w;
    let w_base = (oc * cin_per_group + c) * p.k_h * p.k_w;
    for (var ky = 0u; ky < p.k_h; ky = ky + 1u) {
      let iy = iy0 + i32(ky * p.dil_h);
      if (iy < 0 || iy >= i32(p.in_h)) { continue; }
      for (var kx = 0u; kx < p.k_w; kx = kx + 1u) {
        let ix = ix0 + i32(kx * p.dil_w);
        if (ix < 0 || ix >= i32(p.in_w)) { continue; }
        acc = acc + x[x_base + u32(iy) * p.in_w + u32(ix)] * w[w_base + ky * p.k_w + kx];
      }
    }
  }
  y[i] = epilogue(clamp(acc, p.clamp_min, p.clamp_max));
}
