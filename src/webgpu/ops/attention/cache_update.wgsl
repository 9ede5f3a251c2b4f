// update_cache (llama::update_cache): copies the S new rows value [1,S,H,D] into
// cache [1,Cmax,H,D] at row start_pos (offset = start_pos*H*D words).
//#include "per_element.inc.wgsl"
//#include "kv_update_params.inc.wgsl"
@group(0) @binding(0) var<storage, read> value: array<f32>;
@group(0) @binding(1) var<storage, read_write> cache: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

fn element(i: u32) {
  cache[p.offset + i] = value[i];
}
