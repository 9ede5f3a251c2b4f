// The uniform of the cache-writing shaders sdpa_kv_update and cache_update (UpdateParams in
// register.cpp): n words of new rows, written from word `offset` (start_pos * H * D) on,
// one thread per word (per_element.inc.wgsl).
struct Params {
  n: u32,       // S*H*D
  offset: u32,  // start_pos*H*D
  _p0: u32, _p1: u32,
}

fn element_count() -> u32 { return p.n; }
