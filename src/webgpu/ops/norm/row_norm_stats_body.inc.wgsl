// The body of row_norm_stats.wgsl and row_norm_stats_sg.wgsl (its workgroup sums through
// subgroup operations): `group_sum(v, li, sg, bank)` is workgroup_reduce.inc.wgsl's (shared
// memory) or subgroup_reduce.inc.wgsl's, whichever the includer pulls in.
// First pass of a split row norm (rows too few to fill the GPU with one workgroup each, e.g.
// InstanceNorm over 256x256 planes of 16-64 channels): one workgroup per (row, chunk) writes
// the chunk's mean and M2 (sum of squared deviations from that mean; for RMS norm, mode 2,
// the plain sum of squares and a mean of 0) to partials[2 * g], [2 * g + 1]. Two passes over
// the chunk (its words are still in cache for the second) keep M2 accurate for rows whose
// mean is large against their spread; row_norm_apply.wgsl merges the chunks (Chan et al.).
//#include "dispatch.inc.wgsl"
//#include "row_norm_params.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> partials: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

override WG: u32 = 256u;  // a power of two, at most 256

// sg: the subgroup size, for group_sum (0 in row_norm_stats.wgsl, which has none).
fn row_norm_stats(wid: vec3<u32>, nwg: vec3<u32>, li: u32, sg: u32) {
  let g = flat_workgroup(wid, nwg);
  let row = g / p.nchunks;
  if (row >= p.rows) { return; }  // uniform per workgroup: no thread reaches a barrier
  let base = row * p.inner;
  let lo = (g % p.nchunks) * p.chunk;
  let hi = min(p.inner, lo + p.chunk);
  var mean = 0.0;
  if (p.mode != 2u) {
    var s = 0.0;
    for (var i = lo + li; i < hi; i = i + WG) { s = s + x[base + i]; }
    mean = group_sum(s, li, sg, 0u) / f32(max(hi, lo + 1u) - lo);
  }
  var s2 = 0.0;
  for (var i = lo + li; i < hi; i = i + WG) {
    let d = x[base + i] - mean;
    s2 = s2 + d * d;
  }
  let m2 = group_sum(s2, li, sg, 1u);
  if (li == 0u) {
    partials[2u * g] = mean;
    partials[2u * g + 1u] = m2;
  }
}
