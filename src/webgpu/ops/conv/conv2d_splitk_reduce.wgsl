// Finishes a split-K conv2d_igemm: y[i] = epilogue(clamp(sum over z < ks of
// part[z * total + i] + bias[channel of i])), one invocation per output element. The
// partial sums come in at binding 0 (the `x` of conv2d_params.inc.wgsl); binding 1 is unused.
//#include "conv2d_params.inc.wgsl"
//#include "per_element.inc.wgsl"

override ks: u32 = 2;

fn element(i: u32) {
  var s = 0.0;
  for (var z = 0u; z < ks; z = z + 1u) { s = s + x[z * p.total + i]; }
  if (p.has_bias != 0u) { s = s + bias[(i / (p.out_h * p.out_w)) % p.out_c]; }
  y[i] = finish(s);
}
