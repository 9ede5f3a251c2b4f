// Reductions over a workgroup, or over segments of it, through subgroup operations (the
// `subgroups` feature: the includer's first line is `enable subgroups;`). The tree
// reductions of workgroup_reduce.inc.wgsl take log2(WG) barrier steps through shared memory;
// here each subgroup combines its values in registers (subgroupAdd / Min / Max, or a
// subgroupShuffleXor butterfly for segments narrower than a subgroup), one value per
// subgroup goes through shared memory behind one barrier, and every thread then combines
// those few values in the same order (so all threads get the same bits).
//
// `sg` is the entry point's @builtin(subgroup_size), passed down: WebGPU allows 4..128 and the
// size is only known when the shader runs (SwiftShader 4, lavapipe 8, NVIDIA 32, AMD 32 or
// 64), so nothing here assumes one. Subgroups are taken to be runs of sg consecutive
// local_invocation_index values (subgroup li / sg; the last run partial when WG is not a
// multiple of sg, or the only one when WG < sg), which is how every adapter tried lays out a
// 1-D workgroup; tests/gpu/subgroup_layout_test.cpp checks it on the adapter under test.
// The includer declares WG (const or override, at most 256).

// One slot per subgroup (at most 256 / 4), twice: consecutive reductions alternate `bank`s,
// so the second one's writes cannot race the first one's reads and neither needs a trailing
// barrier.
var<workgroup> sg_slots: array<f32, 128>;

// ops: 0 sum, 1 max, 2 min (reduce_rows.wgsl's numbering).
fn sg_combine(op: u32, a: f32, b: f32) -> f32 {
  if (op == 0u) { return a + b; }
  if (op == 2u) { return min(a, b); }
  return max(a, b);
}

fn sg_subgroup_op(op: u32, v: f32) -> f32 {
  if (op == 0u) { return subgroupAdd(v); }
  if (op == 2u) { return subgroupMin(v); }
  return subgroupMax(v);
}

// Combines v over the `seg` consecutive threads of thread li's segment (segments start at
// multiples of seg) and returns the result to each of them. Every thread of the workgroup
// calls it with the same op, seg and bank (it may hold a barrier). seg: WG (the whole
// workgroup, any size), or a power of two that is at most sg or a multiple of it.
fn sg_segment_reduce(op: u32, v: f32, li: u32, sg: u32, seg: u32, bank: u32) -> f32 {
  let pow2 = (seg & (seg - 1u)) == 0u;
  if (seg == sg || (seg == WG && WG <= sg)) {
    // One subgroup per segment (or the workgroup is one partial subgroup).
    return sg_subgroup_op(op, v);
  }
  if (seg < sg && pow2) {
    // A butterfly within the subgroup: after step m every lane holds its 2m-lane block's value.
    var r = v;
    for (var m = seg / 2u; m > 0u; m = m / 2u) { r = sg_combine(op, r, subgroupShuffleXor(r, m)); }
    return r;
  }
  // Several subgroups per segment: the first lane of each subgroup writes its slot.
  let part = sg_subgroup_op(op, v);
  if (li % sg == 0u) { sg_slots[bank * 64u + li / sg] = part; }
  workgroupBarrier();
  let first = (li / seg) * seg / sg;
  let count = (min(seg, WG) + sg - 1u) / sg;
  var r = sg_slots[bank * 64u + first];
  for (var i = 1u; i < count; i = i + 1u) { r = sg_combine(op, r, sg_slots[bank * 64u + first + i]); }
  return r;
}

// The workgroup's sum of every thread's v, returned to all of them (workgroup_reduce.inc.wgsl's
// group_sum is the shared-memory one, for bodies shared by a tree kernel and its twin).
fn group_sum(v: f32, li: u32, sg: u32, bank: u32) -> f32 {
  return sg_segment_reduce(0u, v, li, sg, WG, bank);
}
