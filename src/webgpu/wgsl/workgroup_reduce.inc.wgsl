// Tree reductions of one value per thread over a workgroup of WG threads (WG a power of two,
// the includer's const or override), through the includer's
// `var<workgroup> red: array<f32, N>`. Every thread of the workgroup calls them, after writing
// its value to red[li] (they hold barriers); the result is left in red[0].
fn tree_sum(li: u32) { tree_sum_lanes(li, 1u); }

// The workgroup's sum of every thread's v, returned to all of them (red is free again after).
fn reduce_sum(v: f32, li: u32) -> f32 {
  red[li] = v;
  tree_sum(li);
  let r = red[0];
  workgroupBarrier();
  return r;
}

// reduce_sum under the name and arguments subgroup_reduce.inc.wgsl's group_sum has, for bodies
// shared by a tree kernel and its subgroup twin (sg, the subgroup size, and bank unused).
fn group_sum(v: f32, li: u32, sg: u32, bank: u32) -> f32 { return reduce_sum(v, li); }

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
