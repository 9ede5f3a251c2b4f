// The M == 1 matmul (matmul_gemv_body.inc.wgsl), the K partial sums combined through shared
// memory in log2(256) barrier steps. matmul_gemv_sg.wgsl is the same with subgroup operations.
//#include "workgroup_reduce.inc.wgsl"
//#include "matmul_gemv_body.inc.wgsl"

var<workgroup> red: array<f32, 1024>;

fn column_sums(s: vec4<f32>, li: u32, sg: u32) -> vec4<f32> {
  red[li] = s.x;
  red[WG + li] = s.y;
  red[2u * WG + li] = s.z;
  red[3u * WG + li] = s.w;
  tree_sum_lanes(li, 4u);
  return vec4<f32>(red[0], red[WG], red[2u * WG], red[3u * WG]);
}

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  gemv(wid, nwg, li, 0u);
}
