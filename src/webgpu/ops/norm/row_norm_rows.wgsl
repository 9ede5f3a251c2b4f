// Row norms of short rows (at most kCache * 256 words: ViT layer norms over 384 or 768
// features, Hiera's 96): a workgroup of WG threads normalizes WG / TPR rows, TPR threads
// per row (a power of two; register.cpp aims at ~4 words a thread). Each thread keeps its
// words in registers, so the row is read once and written once (row_norm.wgsl reads it
// three times), and the sums are reduced within each TPR-thread segment (log2(TPR) steps
// instead of log2(256)). Modes and affine as row_norm.wgsl.
//#include "dispatch.inc.wgsl"
//#include "row_norm_bindings.inc.wgsl"

override WG: u32 = 256u;   // at most 256, the size of red
override TPR: u32 = 32u;   // threads per row, a power of two dividing WG
const kCache: u32 = 8u;    // words a thread holds: rows up to TPR * kCache
var<workgroup> red: array<f32, 256>;

// The sum of v over the TPR threads of segment li / TPR; every thread calls it.
fn segment_sum(v: f32, li: u32, lane: u32) -> f32 {
  red[li] = v;
  workgroupBarrier();
  for (var st = TPR / 2u; st > 0u; st = st >> 1u) {
    if (lane < st) { red[li] = red[li] + red[li + st]; }
    workgroupBarrier();
  }
  let r = red[li - lane];
  workgroupBarrier();
  return r;
}

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
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
  if (p.mode != 2u) { mean = segment_sum(s, li, lane) / n; }
  var s2 = 0.0;
  for (var k = 0u; k < kCache; k++) {
    if (lane + k * TPR < p.inner) {
      let d = c[k] - mean;
      s2 = s2 + d * d;
    }
  }
  let rstd = inverseSqrt(segment_sum(s2, li, lane) / n + p.eps);
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
