// aten.topk: the k largest (or smallest) elements along one dim, sorted, with their indices.
// One thread per input element counts the elements of its line that order before it (its
// rank; NaN above every number as in PyTorch, ties to the lower index as Wick's CPU kernel)
// and, when the rank is below k, writes itself at that rank. O(line) per element, stopping
// once the rank reaches k: the lines this serves are short (D-FINE's query selection, 8,400
// anchors; its box head, 33 bins). The line of element (o, j, i) is x[o, :, i] of the input
// viewed as [outer, size, inner].
//#include "dispatch.inc.wgsl"
struct Params {
  total: u32, size: u32, inner: u32, k: u32,
  largest: u32, _p0: u32, _p1: u32, _p2: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> values: array<f32>;
@group(0) @binding(2) var<storage, read_write> indices: array<i32>;
@group(0) @binding(3) var<uniform> p: Params;

override wg_size: u32 = 256;

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
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = flat_invocation(gid, nwg, wg_size);
  if (t >= p.total) { return; }
  let i = t % p.inner;
  let j = (t / p.inner) % p.size;
  let o = t / (p.inner * p.size);
  let base = o * p.size * p.inner + i;
  let v = x[base + j * p.inner];
  var rank = 0u;
  for (var m = 0u; m < p.size && rank < p.k; m = m + 1u) {
    let w = x[base + m * p.inner];
    if (before(w, v) || (m < j && !before(v, w))) { rank = rank + 1u; }
  }
  if (rank >= p.k) { return; }
  let dst = (o * p.k + rank) * p.inner + i;
  values[dst] = v;
  indices[dst] = i32(j);
}
