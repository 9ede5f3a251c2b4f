// sdpa_with_kv_cache, step 1: copies the S new key/value rows [1,S,Hkv,D] into the
// caches [1,Cmax,Hkv,D] at row start_pos (offset = start_pos*Hkv*D words).
//#include "per_element.inc.wgsl"
//#include "kv_update_params.inc.wgsl"

@group(0) @binding(0) var<storage, read> k: array<f32>;
@group(0) @binding(1) var<storage, read> v: array<f32>;
@group(0) @binding(2) var<storage, read_write> k_cache: array<f32>;
@group(0) @binding(3) var<storage, read_write> v_cache: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

fn element(i: u32) {
  k_cache[p.offset + i] = k[i];
  v_cache[p.offset + i] = v[i];
}
