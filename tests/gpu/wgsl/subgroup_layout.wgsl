enable subgroups;
// What the subgroup kernels (src/webgpu/wgsl/subgroup_reduce.inc.wgsl) take for granted about
// how an adapter lays out a 1-D workgroup: each invocation writes its subgroup_invocation_id,
// subgroup_size and the smallest and largest local_invocation_index of its subgroup, so the
// test can check that subgroup k is the run [k * size, min((k + 1) * size, WG)).
override WG: u32 = 64u;

@group(0) @binding(0) var<storage, read_write> out: array<vec4<u32>>;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sg: u32) {
  out[wid.x * WG + li] = vec4<u32>(lane, sg, subgroupMin(li), subgroupMax(li));
}
