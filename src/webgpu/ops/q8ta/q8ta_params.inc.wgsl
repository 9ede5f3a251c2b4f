// Uniforms of the q8ta family (ops/q8ta/*.cpp holds each C++ twin, which static_asserts
// its size against these). Activations are int8 per-tensor affine, one value per i32 word
// (webgpu/graph.h); scales are f32, zero points i32.

// q8ta_add / q8ta_relu (q8ta_binary.wgsl).
struct EltParams {
  n: u32,
  a_zp: i32,
  b_zp: i32,
  out_zp: i32,
  a_scale: f32,
  b_scale: f32,
  alpha: f32,
  out_inv_scale: f32,
}

// q8ta_pixel_shuffle: output [N, C, H * r, W * r] from input [N, C * r * r, H, W].
struct ShuffleParams {
  n: u32,  // output elements
  c: u32,
  oh: u32,
  ow: u32,
  r: u32,
  in_zp: i32,
  out_zp: i32,
  requant: u32,  // 0: the scales and zero points agree, bytes are copied
  in_scale: f32,
  out_inv_scale: f32,
  pad0: u32,
  pad1: u32,
}

// q8ta_conv2d{,_dw,_pw,_transposed} (q8ta_conv2d.wgsl), NCHW.
struct ConvParams {
  n: u32,  // output elements
  ic: u32,
  ih: u32,
  iw: u32,
  oc: u32,
  oh: u32,
  ow: u32,
  kh: u32,
  kw: u32,
  stride_h: u32,
  stride_w: u32,
  pad_h: u32,
  pad_w: u32,
  dil_h: u32,
  dil_w: u32,
  groups: u32,
  w_row: u32,         // weight row length in bytes (K padded to 4, or OC padded for depthwise)
  scale_period: u32,  // weight_scales index = oc % scale_period (OC, or OC per group when transposed)
  has_bias: u32,
  relu: u32,
  in_zp: i32,
  out_zp: i32,
  in_scale: f32,
  out_inv_scale: f32,
}

// q8ta_linear, q8ta_linear_gemv, linear_q8ta_q8csw (q8ta_linear.wgsl).
struct LinearParams {
  m: u32,
  n: u32,
  k: u32,
  w_row: u32,
  in_zp: i32,
  out_zp: i32,
  in_scale: f32,
  out_inv_scale: f32,
  has_bias: u32,
  relu: u32,
  pad0: u32,
  pad1: u32,
}
