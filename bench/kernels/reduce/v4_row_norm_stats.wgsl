// Variant 4, pass 1: per-chunk mean and M2 (shipped as src/webgpu/ops/norm/row_norm_stats.wgsl;
// this copy has its modules inlined).
// First pass of a split row norm (rows too few to fill the GPU with one workgroup each, e.g.
// InstanceNorm over 256x256 planes of 16-64 channels): one workgroup per (row, chunk) writes
// the chunk's mean and M2 (sum of squared deviations from that mean; for RMS norm, mode 2,
// the plain sum of squares and a mean of 0) to partials[2 * g], [2 * g + 1]. Two passes over
// the chunk (its words are still in cache for the second) keep M2 accurate for rows whose
// mean is large against their spread; row_norm_apply.wgsl merges the chunks (Chan et al.).
// Flat indices of a 1-D dispatch folded into 2-D: Graph::set_grid (webgpu/graph.h) splits
// a grid of more workgroups than one dimension allows into x * y, so every shader turns
// (x, y) back into one index the same way. `wg` is the workgroup size (the shader's
// wg_size override).
fn flat_invocation(gid: vec3<u32>, nwg: vec3<u32>, wg: u32) -> u32 {
  return gid.x + gid.y * nwg.x * wg;
}
fn flat_workgroup(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// Tree reductions of one value per thread over a workgroup of WG threads (WG a power of two,
// the includer's const or override), through the includer's
// `var<workgroup> red: array<f32, N>`. Every thread of the workgroup calls them, after writing
// its value to red[li] (they hold barriers); the result is left in red[0].
fn tree_sum(li: u32) { tree_sum_lanes(li, 1u); }

// `lanes` sums at once (N >= lanes * WG): thread li's value of lane r at red[r * WG + li],
// lane r's sum left in red[r * WG]. lanes is a constant at every call (the loop unrolls).
fn tree_sum_lanes(li: u32, lanes: u32) {
  workgroupBarrier();
  for (var st = WG / 2u; st > 0u; st = st >> 1u) {
    if (li < st) {
      for (var r = 0u; r < lanes; r = r + 1u) { red[r * WG + li] = red[r * WG + li] + red[r * WG + li + st]; }
    }
    workgroupBarrier();
  }
}

fn tree_max(li: u32) {
  workgroupBarrier();
  for (var st = WG / 2u; st > 0u; st = st >> 1u) {
    if (li < st) { red[li] = max(red[li], red[li + st]); }
    workgroupBarrier();
  }
}
// The uniform block of the row norms (row_norm.wgsl, row_norm_stats.wgsl, row_norm_apply.wgsl;
// RowNormParams in register.cpp). A row is `inner` contiguous words; split rows (few, long)
// are cut into `nchunks` chunks of `chunk` words, one workgroup each.
struct Params {
  rows: u32, inner: u32, mode: u32, flags: u32,  // flags: 1 weight, 2 bias, 4 write mean, 8 write rstd
  groups: u32, cpg: u32, hw: u32, nchunks: u32,
  eps: f32, chunk: u32, _p2: u32, _p3: u32,
}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> partials: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

override WG: u32 = 256u;  // a power of two, at most 256, the size of red
var<workgroup> red: array<f32, 256>;

fn reduce_sum(v: f32, li: u32) -> f32 {
  red[li] = v;
  tree_sum(li);
  let r = red[0];
  workgroupBarrier();
  return r;
}

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
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
    mean = reduce_sum(s, li) / f32(max(hi, lo + 1u) - lo);
  }
  var s2 = 0.0;
  for (var i = lo + li; i < hi; i = i + WG) {
    let d = x[base + i] - mean;
    s2 = s2 + d * d;
  }
  let m2 = reduce_sum(s2, li);
  if (li == 0u) {
    partials[2u * g] = mean;
    partials[2u * g + 1u] = m2;
  }
}
