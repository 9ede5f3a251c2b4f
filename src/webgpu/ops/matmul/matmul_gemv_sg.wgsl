enable subgroups;
// The M == 1 matmul (matmul_gemv_body.inc.wgsl) with the K partial sums of its four columns
// combined through subgroup operations (GraphOptions::subgroups): one subgroupAdd of a vec4
// per subgroup, the first lane's result into a shared slot, one barrier, then the
// 256 / subgroup-size slots summed in order; instead of 4 x 256 words through shared memory
// and 1 + log2(256) barrier steps. Subgroups as subgroup_reduce.inc.wgsl takes them (runs of
// `sg` consecutive threads).
//#include "matmul_gemv_body.inc.wgsl"

var<workgroup> red: array<f32, 256>;                  // the trans_b = 0 path's slices
var<workgroup> column_slots: array<vec4<f32>, 64>;    // one per subgroup (256 / 4)

fn column_sums(s: vec4<f32>, li: u32, sg: u32) -> vec4<f32> {
  let part = subgroupAdd(s);
  if (WG <= sg) { return part; }
  if (li % sg == 0u) { column_slots[li / sg] = part; }
  workgroupBarrier();
  var t = column_slots[0];
  for (var i = 1u; i < (WG + sg - 1u) / sg; i = i + 1u) { t = t + column_slots[i]; }
  return t;
}

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32, @builtin(subgroup_size) sg: u32) {
  gemv(wid, nwg, li, sg);
}
