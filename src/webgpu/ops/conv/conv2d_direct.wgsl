// Direct 2-D convolution (1-D runs as height 1): one invocation per output element,
// summing over its group's input channels and the kernel window; optional bias and
// output clamp (et_vk.conv_with_clamp).
//#include "conv2d_common.inc.wgsl"
//#include "per_element.inc.wgsl"
//#include "nchw.inc.wgsl"

fn element(i: u32) {
  let o = nchw_coords(i, p.out_c, p.out_h, p.out_w);
  let cin_per_group = p.in_c / p.groups;
  let cout_per_group = p.out_c / p.groups;
  let g = o.c / cout_per_group;
  var acc = bias_or_zero(o.c);
  let iy0 = i32(o.y * p.stride_h) - i32(p.pad_h);
  let ix0 = i32(o.x * p.stride_w) - i32(p.pad_w);
  for (var c = 0u; c < cin_per_group; c = c + 1u) {
    let ic = g * cin_per_group + c;
    let x_base = (o.n * p.in_c + ic) * p.in_h * p.in_w;
    let w_base = (o.c * cin_per_group + c) * p.k_h * p.k_w;
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
  y[i] = finish(acc);
}
