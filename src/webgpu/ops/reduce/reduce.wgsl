// Reductions over any set of dims, and softmax / log_softmax along one dim.
//
// The input's dims are split into kept dims (one output row per combination) and reduced
// dims (walked by each row). A workgroup of wg_size threads serves wg_size / tpr rows with
// tpr threads each (tpr: a power of two chosen from the reduction length); each thread
// folds a strided share of its row, then the row's threads combine in shared memory.
// ops: 0 sum, 1 mean, 2 amax, 3 amin, 4 argmax, 5 argmin, 6 softmax, 7 log_softmax.
// Outputs are contiguous: one word per row (0-5), or the input's shape (6-7).
//#include "dispatch.inc.wgsl"
//#include "reduce_common.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

override wg_size: u32 = 256;
const kMaxWg: u32 = 256u;

var<workgroup> sv: array<f32, kMaxWg>;
var<workgroup> si: array<u32, kMaxWg>;

fn load(i: u32) -> f32 {
  let word = x[i];
  if ((p.flags & 1u) != 0u) { return f32(bitcast<i32>(word)); }
  return bitcast<f32>(word);
}

fn red_offset(r: u32) -> u32 {
  // One reduced dim (softmax, most reductions): no div/mod per element.
  if (p.red_rank == 1u) { return r * p.red_strides[0][0]; }
  return strided_offset(r, true);
}

// mode: 0 sum, 1 max, 2 min. For max/min, ties keep the smaller index (first occurrence).
// Index 0xffffffff marks an empty partial, which any real element beats.
fn better(mode: u32, v: f32, vi: u32, best: f32, bi: u32) -> bool {
  if (vi == 0xffffffffu) { return false; }
  if (bi == 0xffffffffu) { return true; }
  if (mode == 1u) { return v > best || (v == best && vi < bi); }
  return v < best || (v == best && vi < bi);
}

// Combines the row's tpr partials; every thread of the workgroup must call it.
struct Partial {
  v: f32,
  i: u32,
}

fn combine(mode: u32, lid: u32, lane: u32, v: f32, vi: u32) -> Partial {
  sv[lid] = v;
  si[lid] = vi;
  workgroupBarrier();
  var s = p.tpr / 2u;
  loop {
    if (s == 0u) { break; }
    if (lane < s) {
      let ov = sv[lid + s];
      let oi = si[lid + s];
      if (mode == 0u) {
        sv[lid] = sv[lid] + ov;
      } else if (better(mode, ov, oi, sv[lid], si[lid])) {
        sv[lid] = ov;
        si[lid] = oi;
      }
    }
    workgroupBarrier();
    s = s / 2u;
  }
  let head = lid - lane;
  let r = Partial(sv[head], si[head]);
  workgroupBarrier();
  return r;
}

fn store(i: u32, v: f32) {
  if ((p.flags & 4u) != 0u) {
    out[i] = bitcast<u32>(i32(v));
  } else {
    out[i] = bitcast<u32>(v);
  }
}

@compute @workgroup_size(wg_size)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let group = flat_workgroup(wid, nwg);
  let lane = lid % p.tpr;
  let row = group * (wg_size / p.tpr) + lid / p.tpr;
  let in_range = row < p.out_n;
  var base = 0u;
  if (in_range) { base = kept_offset(row); }
  var n = 0u;
  if (in_range) { n = p.red_n; }

  var mode = 0u;
  if (p.op == 2u || p.op == 4u || p.op >= 6u) { mode = 1u; }
  if (p.op == 3u || p.op == 5u) { mode = 2u; }

  // Pass 1: sum, or max/min with the first index.
  var acc = 0.0;
  var acc_i = 0xffffffffu;
  for (var r = lane; r < n; r = r + p.tpr) {
    let v = load(base + red_offset(r));
    if (mode == 0u) {
      acc = acc + v;
    } else if (better(mode, v, r, acc, acc_i)) {
      acc = v;
      acc_i = r;
    }
  }
  let c = combine(mode, lid, lane, acc, acc_i);

  if (p.op < 6u) {
    if (in_range && lane == 0u) {
      if (p.op == 4u || p.op == 5u) {
        store(row, f32(c.i));
      } else {
        store(row, c.v * p.scale);
      }
    }
    return;
  }

  // Softmax: pass 2 sums exp(x - max), pass 3 writes.
  let m = c.v;
  var s = 0.0;
  for (var r = lane; r < n; r = r + p.tpr) {
    s = s + exp(load(base + red_offset(r)) - m);
  }
  let total = combine(0u, lid, lane, s, 0u).v;
  let log_total = log(total);
  for (var r = lane; r < n; r = r + p.tpr) {
    let off = base + red_offset(r);
    let v = load(off) - m;
    if (p.op == 6u) {
      store(off, exp(v) / total);
    } else {
      store(off, v - log_total);
    }
  }
}
