enable subgroups;
// row_norm_rows.wgsl with the segment sums through subgroup operations (GraphOptions::subgroups):
// a row of TPR <= subgroup-size threads is summed by a subgroupShuffleXor butterfly (no shared
// memory, no barrier), a wider one by subgroupAdd per subgroup and one barrier to combine
// the TPR / subgroup-size partials (subgroup_reduce.inc.wgsl), instead of log2(TPR) + 2
// barrier steps.
//#include "subgroup_reduce.inc.wgsl"
//#include "row_norm_rows_body.inc.wgsl"

fn segment_sum(v: f32, li: u32, lane: u32, sg: u32, bank: u32) -> f32 {
  return sg_segment_reduce(0u, v, li, sg, TPR, bank);
}

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32, @builtin(subgroup_size) sg: u32) {
  row_norm_rows(wid, nwg, li, sg);
}
