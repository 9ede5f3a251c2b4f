// Normalizes contiguous rows, one workgroup (WG threads: the row length rounded up to a power
// of two, 32..256, so short rows do not leave most threads idle at every barrier) per row, sums reduced through
// shared memory: layer norm (mode 0), group norm (mode 1: a row is one (n, group) block of
// cpg channels x hw elements, affine per channel), RMS norm (mode 2: no centering).
// Workgroups: a folded 1-D range over rows.
//#include "dispatch.inc.wgsl"
//#include "workgroup_reduce.inc.wgsl"
//#include "row_norm_bindings.inc.wgsl"

override WG: u32 = 256u;  // at most 256, the size of red
var<workgroup> red: array<f32, 256>;

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let row = flat_workgroup(wid, nwg);
  if (row >= p.rows) { return; }
  let base = row * p.inner;
  let n = f32(p.inner);
  var mean = 0.0;
  if (p.mode != 2u) {
    var s = 0.0;
    for (var i = li; i < p.inner; i = i + WG) { s = s + x[base + i]; }
    mean = reduce_sum(s, li) / n;
  }
  var s2 = 0.0;
  for (var i = li; i < p.inner; i = i + WG) {
    let d = x[base + i] - mean;
    s2 = s2 + d * d;
  }
  let rstd = inverseSqrt(reduce_sum(s2, li) / n + p.eps);
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
