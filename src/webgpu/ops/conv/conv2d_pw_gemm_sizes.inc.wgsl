// The GEMM of a pointwise conv as matmul_large_tile.inc.wgsl sizes it (conv2d_pw_gemm,
// conv2d_pw_gemm_vec4): M = output channels, N = pixels, K = input channels.
fn tile_m() -> u32 { return p.out_c; }
fn tile_n() -> u32 { return p.out_h * p.out_w; }
fn tile_k() -> u32 { return p.in_c; }
