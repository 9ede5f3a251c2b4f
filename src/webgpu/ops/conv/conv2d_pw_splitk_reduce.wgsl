// Finishes a split-K conv2d_pw_gemm / conv2d_pw_gemm_vec4: y[i] = the pointwise end
// (finish_res: clamp, fused epilogue, residual add) of the sum over z < ks of
// part[z * total + i] plus the bias of i's channel, one invocation per output element. The
// partial sums come in at binding 0 (the `x` of conv2d_params.inc.wgsl); the residual at 6.
//#include "conv2d_pw_epilogue.inc.wgsl"
//#include "per_element.inc.wgsl"

override ks: u32 = 2;

fn element(i: u32) {
  var s = 0.0;
  for (var z = 0u; z < ks; z = z + 1u) { s = s + x[z * p.total + i]; }
  if (p.has_bias != 0u) { s = s + bias[(i / (p.out_h * p.out_w)) % p.out_c]; }
  y[i] = finish_res(s, i);
}
