// The entry point of every shader that gives each output element its own thread: the
// includer defines `fn element_count() -> u32` and `fn element(i: u32)` (element i of
// [0, element_count())), and this module turns the folded 1-D grid of Graph::set_grid back
// into i. With `per` > 1 (the elementwise shaders) a thread does `per` elements a grid's
// width apart, so neighbouring threads touch neighbouring words on every step: the grid then
// needs element_count() / per threads (on SwiftShader the per-invocation cost was most of
// an elementwise op's time, bench/kernels/elementwise/). wg_size is set by each op's
// PipelineKey. Both functions are inlined, so this costs nothing over a hand-written main.
//#include "dispatch.inc.wgsl"
override wg_size: u32 = 64u;
override per: u32 = 1u;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * nwg.y * wg_size;
  let t = flat_invocation(gid, nwg, wg_size);
  for (var j = 0u; j < per; j++) {
    let i = t + j * stride;
    if (i >= element_count()) { return; }
    element(i);
  }
}
