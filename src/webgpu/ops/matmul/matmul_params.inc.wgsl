// The uniform (MatmulParams in register.cpp) and bindings of every matmul shader. The
// includer declares `alias Word = f32;` (matmul_large_vec4: vec4<f32>, reading and writing
// a, c four floats at a time) and `alias BWord = Word;` (matmul_large_vec4_f16w: vec2<u32>,
// four f16 weights; matmul_large_vec4_f16math: vec4<f16>). The epilogue steps (bindings 5
// and 6): matmul_epilogue.inc.wgsl.
struct Params {
  m: u32, n: u32, k: u32, batch: u32,
  a_bs: u32, b_bs: u32, c_bs: u32, bias_mode: u32,
  bias_rs: u32, bias_cs: u32,
  // Epilogue steps, 4 bits each, the first in the low bits (0 ends the list); where the
  // residual comes from: 0 none, 1 binding 5, 2 the output's own words (matmul_epilogue.inc.wgsl).
  epi: u32, res_mode: u32,
  alpha: f32, beta: f32, _p2: f32, _p3: f32,
  epi_a: vec4<f32>,  // each step's scalar or coefficient
}

@group(0) @binding(0) var<storage, read> a: array<Word>;
@group(0) @binding(1) var<storage, read> b: array<BWord>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<Word>;
@group(0) @binding(4) var<uniform> p: Params;

// The GEMM sizes as matmul_large_tile.inc.wgsl reads them.
fn tile_m() -> u32 { return p.m; }
fn tile_n() -> u32 { return p.n; }
fn tile_k() -> u32 { return p.k; }

// alpha * (a @ op(b))[gm, gn] + beta * bias[gm, gn] (bias_mode != 0; bias_rs / bias_cs
// broadcast it): the product before the epilogue steps.
fn scaled_with_bias(v: f32, gm: u32, gn: u32) -> f32 {
  var r = p.alpha * v;
  if (p.bias_mode != 0u) { r = r + p.beta * bias[gm * p.bias_rs + gn * p.bias_cs]; }
  return r;
}

//#include "matmul_epilogue.inc.wgsl"
