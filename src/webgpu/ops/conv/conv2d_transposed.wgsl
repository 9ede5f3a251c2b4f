// Transposed 2-D convolution (gradient of conv2d w.r.t. its input): each output element
// gathers the input positions whose stride grid lands on it. Weight is [in_c, out_c/groups, kh, kw].
//#include "conv2d_common.inc.wgsl"
//#include "per_element.inc.wgsl"
//#include "nchw.inc.wgsl"

fn element(i: u32) {
  let o = nchw_coords(i, p.out_c, p.out_h, p.out_w);
  let cin_per_group = p.in_c / p.groups;
  let cout_per_group = p.out_c / p.groups;
  let g = o.c / cout_per_group;
  let ocg = o.c % cout_per_group;
  var acc = bias_or_zero(o.c);
  for (var c = 0u; c < cin_per_group; c = c + 1u) {
    let ic = g * cin_per_group + c;
    for (var ky = 0u; ky < p.k_h; ky = ky + 1u) {
      let ty = i32(o.y) + i32(p.pad_h) - i32(ky * p.dil_h);
      if (ty < 0 || ty % i32(p.stride_h) != 0) { continue; }
      let iy = ty / i32(p.stride_h);
      if (iy >= i32(p.in_h)) { continue; }
      for (var kx = 0u; kx < p.k_w; kx = kx + 1u) {
        let tx = i32(o.x) + i32(p.pad_w) - i32(kx * p.dil_w);
        if (tx < 0 || tx % i32(p.stride_w) != 0) { continue; }
        let ix = tx / i32(p.stride_w);
        if (ix >= i32(p.in_w)) { continue; }
        let xv = x[((o.n * p.in_c + ic) * p.in_h + u32(iy)) * p.in_w + u32(ix)];
        let wv = w[((ic * cout_per_group + ocg) * p.k_h + ky) * p.k_w + kx];
        acc = acc + xv * wv;
      }
    }
  }
  y[i] = finish(acc);
}
