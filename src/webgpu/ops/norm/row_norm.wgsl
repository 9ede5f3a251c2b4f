// Row norms, one workgroup per row (row_norm_body.inc.wgsl), the sums reduced through shared
// memory (log2(WG) barrier steps). row_norm_sg.wgsl: the same through subgroup operations.
//#include "workgroup_reduce.inc.wgsl"
//#include "row_norm_body.inc.wgsl"

var<workgroup> red: array<f32, 256>;  // WG is at most 256

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  row_norm(wid, nwg, li, 0u);
}
