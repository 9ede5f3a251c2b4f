// v13: the shipped conv2d_pw (src/webgpu/ops/conv/conv2d_pw.wgsl, modules expanded): one
// pixel x 4 output channels per invocation, split over the input channels (ks) for small planes.
// Pointwise 2-D convolution (1x1 kernel, stride 1, no padding, groups == 1): a matmul
// over pixels. One output slot = one pixel x 4 consecutive output channels (vec4
// accumulator); `ks` invocations share a slot, each summing every ks-th input channel,
// and add their partial sums in workgroup memory (split-K: small planes with many input
// channels, such as squeeze-and-excitation's 1x1 convs, keep the GPU busy). Lanes past
// out_c read a clamped (valid) weight row and are not written. Optional per-input-channel
// scale of x (a fused x * s[N|1, C, 1, 1]). Same Params and bias/clamp semantics as
// conv2d_direct, then the fused epilogue, which here may also add a tensor shaped as y
// (code 7: a fused residual add).
// The end of a pointwise conv's output element o (conv2d_pw, conv2d_pw_gemm): the clamp,
// then the fused epilogue with conv2d_pw's extra code 7, add a * residual[o] (a tensor
// shaped as y: a fused residual add), and the per-input-channel scale of x and the
// residual at bindings 5 and 6.
// conv2d shaders that read the weights as the program stores them (f32, [O, C/g, KH, KW]
// or [C, O/g, KH, KW] transposed): conv2d_params.inc.wgsl (Params, bindings 0 and 2-4,
// epilogue) plus binding 1 as array<f32>.
// What every conv2d shader shares whatever its weight layout: the uniform (ConvParams in
// register.cpp, whose static_assert pins the size), bindings 0 and 2-4, and the fused
// epilogue (the codes of EpilogueCode in webgpu/graph.h, applied in order by
// webgpu/fusion.cpp's plan). Binding 1, the weights, is declared by conv2d_common.inc.wgsl
// (f32, as the program stores them) or by a shader that reads them repacked (conv2d_block,
// conv2d_igemm); conv2d_splitk_reduce reads split-K partial sums at binding 0 and no weights.
// Flat indices of a 1-D dispatch folded into 2-D: Graph::set_grid (webgpu/graph.h) splits
// a grid of more workgroups than one dimension allows into x * y, so every shader turns
// (x, y) back into one index the same way. `wg` is the workgroup size (the shader's
// wg_size override).
fn flat_invocation(gid: vec3<u32>, nwg: vec3<u32>, wg: u32) -> u32 {
  return gid.x + gid.y * nwg.x * wg;
}
fn flat_workgroup(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
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

// One scalar epilogue step (codes 1-6); other codes (7, the residual add of conv2d_pw)
// are the caller's.
fn epilogue_step(v: f32, code: u32, a: f32) -> f32 {
  switch code {
    case 1u: { return max(v, a); }
    case 2u: { return min(v, a); }
    case 3u: { return v * clamp(v + 3.0, 0.0, 6.0) / 6.0; }  // hardswish
    case 4u: { return v + a; }
    case 5u: { return v * a; }
    case 6u: { return v / a; }
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
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(5) var<storage, read> scale: array<f32>;
@group(0) @binding(6) var<storage, read> residual: array<f32>;

fn epilogue_res(v: f32, o: u32) -> f32 {
  var r = v;
  for (var k = 0u; k < p.epi_n; k = k + 1u) {
    let a = bitcast<f32>(p.epi[k].y);
    if (p.epi[k].x == 7u) {
      r = r + a * residual[o];
    } else {
      r = epilogue_step(r, p.epi[k].x, a);
    }
  }
  return r;
}

fn finish_res(v: f32, o: u32) -> f32 {
  let r = clamp(v, p.clamp_min, p.clamp_max);
  if (p.epi_n == 0u) { return r; }
  return epilogue_res(r, o);
}

override wg_size: u32 = 128;  // at most 256
override ks: u32 = 1;         // a power of two dividing wg_size

var<workgroup> partial: array<vec4<f32>, 256>;

@compute @workgroup_size(wg_size)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let plane = p.out_w * p.out_h;  // == in_h * in_w
  let oc4n = (p.out_c + 3u) / 4u;
  let slots = p.n * oc4n * plane;
  let slot = flat_workgroup(wid, nwg) * (wg_size / ks) + lid / ks;
  let kslice = lid % ks;
  let valid = slot < slots;
  let s = min(slot, slots - 1u);
  let pix = s % plane;
  let oc = ((s / plane) % oc4n) * 4u;
  let b = s / (plane * oc4n);
  let last = p.out_c - 1u;
  let w0 = oc * p.in_c;
  let w1 = min(oc + 1u, last) * p.in_c;
  let w2 = min(oc + 2u, last) * p.in_c;
  let w3 = min(oc + 3u, last) * p.in_c;
  var acc = vec4<f32>(0.0);
  if (valid) {
    var xi = (b * p.in_c + kslice) * plane + pix;
    let xstep = ks * plane;
    let sb = b * p.scale_bstride;
    for (var c = kslice; c < p.in_c; c = c + ks) {
      var xv = x[xi];
      if (p.has_scale != 0u) { xv = xv * scale[sb + c]; }
      acc = acc + xv * vec4<f32>(w[w0 + c], w[w1 + c], w[w2 + c], w[w3 + c]);
      xi = xi + xstep;
    }
  }
  if (ks > 1u) {
    partial[lid] = acc;
    workgroupBarrier();
    for (var st = ks / 2u; st > 0u; st = st / 2u) {
      if (kslice < st) { partial[lid] = partial[lid] + partial[lid + st]; }
      workgroupBarrier();
    }
    acc = partial[lid];
  }
  if (!valid || kslice != 0u) { return; }
  if (p.has_bias != 0u) {
    acc = acc + vec4<f32>(bias[oc], bias[min(oc + 1u, last)], bias[min(oc + 2u, last)], bias[min(oc + 3u, last)]);
  }
  acc = clamp(acc, vec4<f32>(p.clamp_min), vec4<f32>(p.clamp_max));
  let o = (b * p.out_c + oc) * plane + pix;
  if (p.epi_n == 0u) {
    y[o] = acc.x;
    if (oc + 1u < p.out_c) { y[o + plane] = acc.y; }
    if (oc + 2u < p.out_c) { y[o + 2u * plane] = acc.z; }
    if (oc + 3u < p.out_c) { y[o + 3u * plane] = acc.w; }
    return;
  }
  y[o] = epilogue_res(acc.x, o);
  if (oc + 1u < p.out_c) { y[o + plane] = epilogue_res(acc.y, o + plane); }
  if (oc + 2u < p.out_c) { y[o + 2u * plane] = epilogue_res(acc.z, o + 2u * plane); }
  if (oc + 3u < p.out_c) { y[o + 3u * plane] = epilogue_res(acc.w, o + 3u * plane); }
}
