// Top-k candidates of one row of a float tensor (the last row of an LLM's logits), so a
// sampler can pick the next token without reading the whole row back.
//
// Workgroup w takes elements [w * chunk, (w + 1) * chunk) of the row, finds its k largest
// by k rounds of a workgroup-wide argmax (each round excluding the earlier winners), and
// writes them best first as (index in the row, value bits) pairs at out[2 * (w * k + j)].
// The host merges the workgroups' lists (webgpu/output_topk.cpp). Ties go to the lower
// index, as torch.topk and torch.argmax do; an exhausted chunk writes index 0xffffffff.
struct Params {
  row_offset: u32,  // element index of the row's first element in x
  n: u32,           // row length
  chunk: u32,       // elements per workgroup (<= kMaxChunk)
  k: u32,           // candidates per workgroup
}

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

const kWg: u32 = 256u;
const kMaxChunk: u32 = 2048u;
const kNone: u32 = 0xffffffffu;

var<workgroup> vals: array<f32, kMaxChunk>;
var<workgroup> taken: array<u32, 64>;  // one bit per chunk element (kMaxChunk / 32)
var<workgroup> rv: array<f32, kWg>;
var<workgroup> ri: array<u32, kWg>;

// Whether (va, ia) ranks before (vb, ib); kNone ranks last.
fn better(va: f32, ia: u32, vb: f32, ib: u32) -> bool {
  if (ia == kNone) { return false; }
  if (ib == kNone) { return true; }
  return va > vb || (va == vb && ia < ib);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let start = wid.x * p.chunk;
  let len = min(p.chunk, p.n - min(start, p.n));
  for (var i = lid; i < len; i = i + kWg) { vals[i] = bitcast<f32>(x[p.row_offset + start + i]); }
  if (lid < 64u) { taken[lid] = 0u; }
  workgroupBarrier();
  for (var j = 0u; j < p.k; j = j + 1u) {
    var bv = 0.0;
    var bi = kNone;
    for (var i = lid; i < len; i = i + kWg) {
      if ((taken[i / 32u] & (1u << (i % 32u))) != 0u) { continue; }
      let v = vals[i];
      if (v != v) { continue; }  // NaN: never a candidate (the host sampler rejects NaN rows it sees)
      if (better(v, i, bv, bi)) { bv = v; bi = i; }
    }
    rv[lid] = bv;
    ri[lid] = bi;
    workgroupBarrier();
    for (var s = kWg / 2u; s > 0u; s = s >> 1u) {
      if (lid < s && better(rv[lid + s], ri[lid + s], rv[lid], ri[lid])) {
        rv[lid] = rv[lid + s];
        ri[lid] = ri[lid + s];
      }
      workgroupBarrier();
    }
    if (lid == 0u) {
      let slot = 2u * (wid.x * p.k + j);
      let w = ri[0];
      if (w == kNone) {
        out[slot] = kNone;
        out[slot + 1u] = 0u;
      } else {
        out[slot] = start + w;
        out[slot + 1u] = bitcast<u32>(rv[0]);
        taken[w / 32u] = taken[w / 32u] | (1u << (w % 32u));
      }
    }
    workgroupBarrier();
  }
}
