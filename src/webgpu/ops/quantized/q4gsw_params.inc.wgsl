// The uniform of every q4gsw linear shader (Q4Params in register.cpp) and their bindings 2-5;
// binding 0 (x) and 1 (the packed weights w) are the shader's, as f32 / u32 words or as
// vec4s (q4gsw_gemv_rows).
struct Params {
  m: u32, n: u32, k: u32, k_packed: u32,
  group_size: u32, n_pad: u32, has_bias: u32, aligned: u32,
}

@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;
