// The body of row_norm.wgsl and row_norm_sg.wgsl (its workgroup sums through
// subgroup operations): `group_sum(v, li, sg, bank)` is workgroup_reduce.inc.wgsl's (shared
// memory) or subgroup_reduce.inc.wgsl's, whichever the includer pulls in.
// Normalizes contiguous rows, one workgroup (WG threads: the row length rounded up to a power
// of two, 32..256, so short rows do not leave most threads idle at every barrier) per row:
// layer norm (mode 0), group norm (mode 1: a row is one (n, group) block of
// cpg channels x hw elements, affine per channel), RMS norm (mode 2: no centering).
// Workgroups: a folded 1-D range over rows.
//#include "dispatch.inc.wgsl"
//#include "row_norm_bindings.inc.wgsl"

override WG: u32 = 256u;  // at most 256

// sg: the subgroup size, for group_sum (0 in row_norm.wgsl, which has none).
fn row_norm(wid: vec3<u32>, nwg: vec3<u32>, li: u32, sg: u32) {
  let row = flat_workgroup(wid, nwg);
  if (row >= p.rows) { return; }
  let base = row * p.inner;
  let n = f32(p.inner);
  var mean = 0.0;
  if (p.mode != 2u) {
    var s = 0.0;
    for (var i = li; i < p.inner; i = i + WG) { s = s + x[base + i]; }
    mean = group_sum(s, li, sg, 0u) / n;
  }
  var s2 = 0.0;
  for (var i = li; i < p.inner; i = i + WG) {
    let d = x[base + i] - mean;
    s2 = s2 + d * d;
  }
  let rstd = inverseSqrt(group_sum(s2, li, sg, 1u) / n + p.eps);
  let g0 = (row % max(p.groups, 1u)) * p.cpg;
  for (var i = li; i < p.inner; i = i + WG) {
    var widx = i;
    if (p.mode == 1u) { widx = g0 + i / p.hw; }
    var y = (x[base + i] - mean) * rstd;
    if ((p.flags & 1u) != 0u) { y = y * weight[widx]; }
    if ((p.flags & 2u) != 0u) { y = y + bias[widx]; }
    out[base + i] = y;
  }
  if (li == 0u) {
    if ((p.flags & 4u) != 0u) { mean_out[row] = mean; }
    if ((p.flags & 8u) != 0u) { rstd_out[row] = rstd; }
  }
}
