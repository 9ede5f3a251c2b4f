// The body of the short-row norms, row_norm_rows.wgsl (segment sums through shared memory) and
// row_norm_rows_sg.wgsl (through subgroup operations): a workgroup of WG threads normalizes
// WG / TPR rows of at most kCache * TPR words, TPR threads per row (a power of two;
// register.cpp aims at ~4 words a thread). Each thread keeps its words in registers, so the
// row is read once and written once (row_norm.wgsl reads it three times). The includer
// declares `fn segment_sum(v: f32, li: u32, lane: u32, sg: u32, bank: u32) -> f32`: the sum
// of v over the TPR threads of segment li / TPR, called by every thread (bank alternates
// between consecutive calls). Modes and affine as row_norm.wgsl.
//#include "dispatch.inc.wgsl"
//#include "row_norm_bindings.inc.wgsl"

override WG: u32 = 256u;   // at most 256
override TPR: u32 = 32u;   // threads per row, a power of two dividing WG
const kCache: u32 = 8u;    // words a thread holds: rows up to TPR * kCache

// sg: the subgroup size, for segment_sum (0 in row_norm_rows.wgsl, which has none).
fn row_norm_rows(wid: vec3<u32>, nwg: vec3<u32>, li: u32, sg: u32) {
  let lane = li % TPR;
  let row = flat_workgroup(wid, nwg) * (WG / TPR) + li / TPR;
  let live_row = row < p.rows;  // no early return: every thread reaches the barriers
  let base = row * p.inner;
  let n = f32(p.inner);
  var c: array<f32, kCache>;
  var s = 0.0;
  for (var k = 0u; k < kCache; k++) {
    let i = lane + k * TPR;
    c[k] = 0.0;
    if (live_row && i < p.inner) {
      c[k] = x[base + i];
      s = s + c[k];
    }
  }
  var mean = 0.0;
  if (p.mode != 2u) { mean = segment_sum(s, li, lane, sg, 0u) / n; }
  var s2 = 0.0;
  for (var k = 0u; k < kCache; k++) {
    if (lane + k * TPR < p.inner) {
      let d = c[k] - mean;
      s2 = s2 + d * d;
    }
  }
  let rstd = inverseSqrt(segment_sum(s2, li, lane, sg, 1u) / n + p.eps);
  if (!live_row) { return; }
  let g0 = (row % max(p.groups, 1u)) * p.cpg;
  for (var k = 0u; k < kCache; k++) {
    let i = lane + k * TPR;
    if (i < p.inner) {
      var widx = i;
      if (p.mode == 1u) { widx = g0 + i / p.hw; }
      var y = (c[k] - mean) * rstd;
      if ((p.flags & 1u) != 0u) { y = y * weight[widx]; }
      if ((p.flags & 2u) != 0u) { y = y + bias[widx]; }
      out[base + i] = y;
    }
  }
  if (lane == 0u) {
    if ((p.flags & 4u) != 0u) { mean_out[row] = mean; }
    if ((p.flags & 8u) != 0u) { rstd_out[row] = rstd; }
  }
}
