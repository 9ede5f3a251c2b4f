// update_cache (llama::update_cache): copies the S new rows value [1,S,H,D] into
// cache [1,Cmax,H,D] at row start_pos (offset = start_pos*H*D words).
//#include "dispatch.inc.wgsl"
//#include "kv_update_params.inc.wgsl"
@group(0) @binding(0) var<storage, read> value: array<f32>;
@group(0) @binding(1) var<storage, read_write> cache: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

override wg_size: u32 = 256;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_invocation(gid, nwg, wg_size);
  if (i >= p.n) { return; }
  cache[p.offset + i] = value[i];
}
