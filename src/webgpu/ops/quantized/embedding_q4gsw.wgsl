// et_vk.embedding_q4gsw: out[t, d] = (q[token_t, d] - 8) * scales[token_t * groups + d / group_size]
// with q the 4-bit values of weight row token_t (shared/spec/ops.md §5.2): with
// is_linear_weight (linear != 0) even d sits in the low nibble as in q4gsw, else in the high
// one (embedding_4bit's order). A token outside [0, vocab) yields a zero row instead of
// reading past the weights (the reference backend does not check). One thread per element.
//#include "per_element.inc.wgsl"
//#include "embedding_q4gsw_params.inc.wgsl"
//#include "q4_bytes.inc.wgsl"
@group(0) @binding(0) var<storage, read> w: array<u32>;
@group(0) @binding(1) var<storage, read> scales: array<f32>;
@group(0) @binding(2) var<storage, read> indices: array<i32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

fn element_count() -> u32 { return p.total; }

fn element(i: u32) {
  let d = i % p.dim;
  let token = indices[i / p.dim];
  if (token < 0 || u32(token) >= p.vocab) {
    out[i] = 0.0;
    return;
  }
  let t = u32(token);
  let odd = (d & 1u) == 1u;
  let q = nibble(t * p.row_bytes + d / 2u, odd == (p.linear != 0u));
  out[i] = q * scales[t * p.groups + d / p.group_size];
}
