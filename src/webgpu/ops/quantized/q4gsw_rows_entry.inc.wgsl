// The entry point of the decode GEMVs that give a 64-thread workgroup ROWS consecutive
// output rows (q4gsw_gemv_rows, q4gsw_gemv_fused, q4gsw_gemv_swiglu): workgroup g of the
// folded grid (Graph::set_grid) computes rows n0 = g * ROWS.. of p.n in the includer's
// `gemv(n0, tid)`. The early return is uniform over the workgroup, so gemv's barriers are
// reached by all of its threads or none.
//#include "dispatch.inc.wgsl"
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) tid: u32) {
  let n0 = flat_workgroup(wid, nwg) * ROWS;
  if (n0 >= p.n) { return; }
  gemv(n0, tid);
}
