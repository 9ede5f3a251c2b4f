enable subgroups;
// row_norm_stats.wgsl with its sums through subgroup operations (GraphOptions::subgroups;
// subgroup_reduce.inc.wgsl).
//#include "subgroup_reduce.inc.wgsl"
//#include "row_norm_stats_body.inc.wgsl"

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32, @builtin(subgroup_size) sg: u32) {
  row_norm_stats(wid, nwg, li, sg);
}
