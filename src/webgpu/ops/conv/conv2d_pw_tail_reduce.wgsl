// Finishes a tail split of conv2d_pw_gemm_vec4 (matmul_large_tile.inc.wgsl, TAIL_S): output
// pixels x0.. of every channel, y[o] = the pointwise end (finish_res: clamp, fused epilogue,
// residual add) of the sum of the tail pieces' partials plus the channel's bias, one
// invocation per output element of that region. The partials ([image * ks + piece][out_c]
// [plane - x0]) come in at binding 0 (the `x` of conv2d_params.inc.wgsl), the residual at 6.
// The pixels before x0 were finished by the GEMM itself.
//#include "conv2d_pw_epilogue.inc.wgsl"
//#include "per_element.inc.wgsl"

override ks: u32 = 2;
// The first pixel of the tail columns (TAIL_X0 * BN of the GEMM).
override x0: u32 = 0;

fn element(i: u32) {
  let plane = p.out_h * p.out_w;
  let width = plane - x0;
  let rows = p.n * p.out_c;  // (image, channel) rows of the region
  if (i >= rows * width) { return; }
  let row = i / width;
  let px = i % width;
  let image = row / p.out_c;
  let c = row % p.out_c;
  var s = 0.0;
  for (var z = 0u; z < ks; z = z + 1u) { s = s + x[((image * ks + z) * p.out_c + c) * width + px]; }
  if (p.has_bias != 0u) { s = s + bias[c]; }
  let o = row * plane + x0 + px;
  y[o] = finish_res(s, o);
}
