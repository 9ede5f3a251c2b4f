// c[b] = alpha * (a[b] @ op(b[b])) + beta * bias, fp32, for large shapes on GPUs (the
// kernel of bench/kernels/matmul/v8_tiled_vec4_db.wgsl; measurements in its README), tiled as
// matmul_large_tile.inc.wgsl says. trans_b = 1: b is [N, K] (a linear weight), else [K, N].
// Needs K % 4 == 0 and N % 4 == 0 (every load and store is a vec4); M, N and K need not be
// multiples of the tile.
//#include "matmul_large_vec4_body.inc.wgsl"
alias Word = vec4<f32>;
alias BWord = Word;

fn b_vec4(i: u32) -> vec4<f32> { return b[i]; }
