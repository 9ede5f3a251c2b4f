// Finishes a split-K conv2d_igemm: y[i] = epilogue(clamp(sum over z < ks of
// part[z * total + i] + bias[channel of i])), one invocation per output element. The
// partial sums come in at binding 0 (the `x` of conv2d_params.inc.wgsl); binding 1 is unused.
//#include "conv2d_params.inc.wgsl"

override wg_size: u32 = 256;
override ks: u32 = 2;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_invocation(gid, nwg, wg_size);
  if (i >= p.total) { return; }
  var s = 0.0;
  for (var z = 0u; z < ks; z = z + 1u) { s = s + x[z * p.total + i]; }
  if (p.has_bias != 0u) { s = s + bias[(i / (p.out_h * p.out_w)) % p.out_c]; }
  var r = clamp(s, p.clamp_min, p.clamp_max);
  if (p.epi_n != 0u) { r = epilogue(r); }
  y[i] = r;
}
