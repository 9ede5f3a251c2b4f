// aten.topk: the k largest (or smallest) elements along one dim, sorted, with their indices.
// Each element counts the elements of its line that order before it (its rank; NaN above
// every number as in PyTorch, ties to the lower index as Wick's CPU kernel) and, when the
// rank is below k, writes itself at that rank. The input is viewed as [outer, size, inner];
// a line is x[o, :, i]. A workgroup serves E elements of one line with wg_size / E threads
// each (S): the workgroup walks the line in tiles of wg_size values that its threads load
// into workgroup memory together, thread s of an element compares it with the s-th E values
// of each tile, and the S partial counts are summed at the end. So a long line is spread
// over many workgroups with short loops each (D-FINE's query selection, 300 of 8,400
// anchors: 525 workgroups of 16 elements, 525 comparisons a thread, where one thread per
// element took 8,400 comparisons and 1 ms on the H200); a short one (its box head, 4 of
// 33 bins) keeps one thread per element (E = wg_size). A thread whose partial count reached
// k stops comparing but keeps loading tiles for the others.
//#include "dispatch.inc.wgsl"
struct Params {
  lines: u32, size: u32, inner: u32, k: u32,
  largest: u32, per_line: u32, _p0: u32, _p1: u32,  // per_line: workgroups per line
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> values: array<f32>;
@group(0) @binding(2) var<storage, read_write> indices: array<i32>;
@group(0) @binding(3) var<uniform> p: Params;

override wg_size: u32 = 256;  // at most 256, the tile's length
override E: u32 = 256;        // elements per workgroup: a power of two dividing wg_size
var<workgroup> tile: array<f32, 256>;
var<workgroup> part: array<u32, 256>;  // partial counts, [S][E]

// By the bits: a comparison `v != v` may be folded away by a compiler that assumes no NaN.
fn is_nan(v: f32) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u; }

// a > b with NaN the greatest (two NaNs are equal).
fn greater(a: f32, b: f32) -> bool {
  if (is_nan(a)) { return !is_nan(b); }
  if (is_nan(b)) { return false; }
  return a > b;
}

// Whether value a orders strictly before value b.
fn before(a: f32, b: f32) -> bool {
  if (p.largest != 0u) { return greater(a, b); }
  return greater(b, a);
}

@compute @workgroup_size(wg_size)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let g = flat_workgroup(wid, nwg);
  if (g >= p.lines * p.per_line) { return; }  // whole workgroups: uniform
  let line = g / p.per_line;
  let o = line / p.inner;
  let i = line % p.inner;
  let base = o * p.size * p.inner + i;
  let e = lid % E;
  let s = lid / E;  // this thread's share of each tile: values s * E .. s * E + E - 1
  let j = (g % p.per_line) * E + e;
  let mine = j < p.size;
  var v = 0.0;
  if (mine) { v = x[base + j * p.inner]; }
  var rank = 0u;
  for (var start = 0u; start < p.size; start = start + wg_size) {
    let m = start + lid;
    if (m < p.size) { tile[lid] = x[base + m * p.inner]; }
    workgroupBarrier();
    let t0 = s * E;
    let t1 = min(t0 + E, p.size - start);
    if (mine && rank < p.k) {
      for (var t = t0; t < t1; t = t + 1u) {
        let w = tile[t];
        if (before(w, v) || (start + t < j && !before(v, w))) { rank = rank + 1u; }
      }
    }
    workgroupBarrier();
  }
  if (E < wg_size) {
    part[lid] = rank;
    workgroupBarrier();
    if (s != 0u) { return; }
    for (var q = 1u; q < wg_size / E; q = q + 1u) { rank = rank + part[q * E + e]; }
  }
  if (!mine || rank >= p.k) { return; }
  let dst = (o * p.k + rank) * p.inner + i;
  values[dst] = v;
  indices[dst] = i32(j);
}
