// Float reductions of contiguous rows (reduce_rows_body.inc.wgsl), the threads' partials
// combined through shared memory in log2(WG) barrier steps. reduce_rows_sg.wgsl is the same
// with subgroup operations.
//#include "reduce_rows_body.inc.wgsl"

var<workgroup> red: array<f32, 256>;

// The workgroup's combine of one value per thread; every thread must call it.
fn wg_reduce(op: u32, lid: u32, v: f32, sg: u32, bank: u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s / 2u) {
    if (lid < s) { red[lid] = combine(op, red[lid], red[lid + s]); }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  reduce_rows(lid, wid, nwg, 0u);
}
