// Flat indices of a 1-D dispatch folded into 2-D: Graph::set_grid (webgpu/graph.h) splits
// a grid of more workgroups than one dimension allows into x * y, so every shader turns
// (x, y) back into one index the same way. `wg` is the workgroup size (the shader's
// wg_size override).
fn flat_invocation(gid: vec3<u32>, nwg: vec3<u32>, wg: u32) -> u32 {
  return gid.x + gid.y * nwg.x * wg;
}
fn flat_workgroup(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
