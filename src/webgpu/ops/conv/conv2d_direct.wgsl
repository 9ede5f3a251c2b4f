// Direct 2-D convolution (1-D runs as height 1): one invocation per output element,
// summing over its group's input channels and the kernel window; optional bias and
// output clamp (et_vk.conv_with_clamp).
//#include "conv2d_common.inc.wgsl"

override wg_size: u32 = 64;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_invocation(gid, nwg, wg_size);
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
