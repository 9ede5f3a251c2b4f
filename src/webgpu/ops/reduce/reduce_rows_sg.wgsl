enable subgroups;
// reduce_rows.wgsl with the partials combined through subgroup operations
// (GraphOptions::subgroups; subgroup_reduce.inc.wgsl): subgroupAdd / Max / Min within each
// subgroup, then one barrier and the WG / subgroup-size partials, instead of log2(WG) + 2
// barrier steps per reduction (a softmax row takes two).
//#include "subgroup_reduce.inc.wgsl"
//#include "reduce_rows_body.inc.wgsl"

fn wg_reduce(op: u32, lid: u32, v: f32, sg: u32, bank: u32) -> f32 {
  return sg_segment_reduce(op, v, lid, sg, WG, bank);
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>, @builtin(subgroup_size) sg: u32) {
  reduce_rows(lid, wid, nwg, sg);
}
