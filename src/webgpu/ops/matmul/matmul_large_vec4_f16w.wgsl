// c[b] = alpha * (a @ b^T) + beta * bias for a linear whose weight b [N, K] is stored as
// f16, four to a vec2<u32> (the first in the low half of .x), converted once at load
// (GraphOptions::f16_weights: half the weight memory and traffic); a, c, the products and
// the sums stay f32. matmul_large_vec4.wgsl otherwise (same tiles and overrides; trans_b = 1;
// K % 4 == 0 and N % 4 == 0). unpack2x16float is core WGSL: no shader-f16 needed, so every
// adapter runs it (bench/kernels/matmul/ v23-v25).
//#include "matmul_large_vec4_body.inc.wgsl"
alias Word = vec4<f32>;
alias BWord = vec2<u32>;

fn b_vec4(i: u32) -> vec4<f32> {
  let w = b[i];
  return vec4<f32>(unpack2x16float(w.x), unpack2x16float(w.y));
}
