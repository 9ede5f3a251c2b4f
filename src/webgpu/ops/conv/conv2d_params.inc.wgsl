// What every conv2d shader shares whatever its weight layout: the uniform (ConvParams in
// register.cpp, whose static_assert pins the size), bindings 0 and 2-4, and the fused
// epilogue (the codes of EpilogueCode in webgpu/graph.h, applied in order by
// webgpu/fusion.cpp's plan). Binding 1, the weights, is declared by conv2d_common.inc.wgsl
// (f32, as the program stores them) or by a shader that reads them repacked (conv2d_block,
// conv2d_igemm); conv2d_splitk_reduce reads split-K partial sums at binding 0 and no weights.
//#include "dispatch.inc.wgsl"
//#include "unary_math.inc.wgsl"
struct Params {
  n: u32, in_c: u32, in_h: u32, in_w: u32,
  out_c: u32, out_h: u32, out_w: u32, groups: u32,
  k_h: u32, k_w: u32, stride_h: u32, stride_w: u32,
  pad_h: u32, pad_w: u32, dil_h: u32, dil_w: u32,
  total: u32, has_bias: u32, clamp_min: f32, clamp_max: f32,
  epi_n: u32, has_scale: u32, scale_bstride: u32, _p0: u32,  // fused epilogue / input scale
  epi: array<vec4<u32>, 6>,                                   // (code, bitcast a, -, -)
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

// One scalar epilogue step (codes 1-6 and 8-11); other codes (7, the residual add of conv2d_pw)
// are the caller's.
fn epilogue_step(v: f32, code: u32, a: f32) -> f32 {
  switch code {
    case 1u: { return max(v, a); }
    case 2u: { return min(v, a); }
    case 3u: { return v * clamp(v + 3.0, 0.0, 6.0) / 6.0; }  // hardswish
    case 4u: { return v + a; }
    case 5u: { return v * a; }
    case 6u: { return v / a; }
    case 8u: { return select(v * a, v, v >= 0.0); }  // leaky_relu, a = negative_slope
    case 9u: { return v * (1.0 / (1.0 + exp(-v))); }  // SiLU: the sigmoid of unary.wgsl, times v
    case 10u: { return 0.5 * v * (1.0 + erf_f(v * 0.7071067811865476)); }  // gelu (erf), as unary.wgsl
    case 11u: { return 0.5 * v * (1.0 + tanh_safe(0.7978845608028654 * (v + 0.044715 * v * v * v))); }  // gelu (tanh)
    default: { return v; }
  }
}

// The fused elementwise ops (graph fusion, webgpu/fusion.cpp), in order.
fn epilogue(v: f32) -> f32 {
  var r = v;
  for (var k = 0u; k < p.epi_n; k = k + 1u) {
    r = epilogue_step(r, p.epi[k].x, bitcast<f32>(p.epi[k].y));
  }
  return r;
}

// The end of every scalar output: the clamp (et_vk.conv_with_clamp; +-inf bounds otherwise),
// then the fused epilogue.
fn finish(v: f32) -> f32 {
  let r = clamp(v, p.clamp_min, p.clamp_max);
  if (p.epi_n == 0u) { return r; }
  return epilogue(r);
}

// Where a sum over the kernel window starts: channel oc's bias, or 0.
fn bias_or_zero(oc: u32) -> f32 {
  if (p.has_bias != 0u) { return bias[oc]; }
  return 0.0;
}

// The shaders with one thread per output element (conv2d_direct, _transposed, _splitk_reduce,
// per_element.inc.wgsl) cover all `total` of them.
fn element_count() -> u32 { return p.total; }
