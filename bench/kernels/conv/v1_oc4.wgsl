// Direct 2-D convolution for groups == 1 (1-D runs as height 1): one invocation per
// output pixel and 4 consecutive output channels (vec4 accumulator), so each input value
// is loaded once per 4 output channels. Lanes past out_c read a clamped (valid) weight
// row and are not written. Same Params/bindings and bias/clamp semantics as conv2d_direct.
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
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

override wg_size: u32 = 64;

// The fused elementwise ops (graph fusion, webgpu/fusion.cpp), in order.
fn epilogue(v: f32) -> f32 {
  var y = v;
  for (var k = 0u; k < p.epi_n; k = k + 1u) {
    let a = bitcast<f32>(p.epi[k].y);
    switch p.epi[k].x {
      case 1u: { y = max(y, a); }
      case 2u: { y = min(y, a); }
      case 3u: { y = y * clamp(y + 3.0, 0.0, 6.0) / 6.0; }  // hardswish
      case 4u: { y = y + a; }
      case 5u: { y = y * a; }
      case 6u: { y = y / a; }
      default: {}
    }
  }
  return y;
}

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * wg_size;
  let plane = p.out_w * p.out_h;
  let oc4n = (p.out_c + 3u) / 4u;
  if (i >= p.n * oc4n * plane) { return; }
  let ox = i % p.out_w;
  let oy = (i / p.out_w) % p.out_h;
  let oc = ((i / plane) % oc4n) * 4u;
  let b = i / (plane * oc4n);
  let last = p.out_c - 1u;
  let kk = p.k_h * p.k_w;
  let wstride = p.in_c * kk;
  let w0 = oc * wstride;
  let w1 = min(oc + 1u, last) * wstride;
  let w2 = min(oc + 2u, last) * wstride;
  let w3 = min(oc + 3u, last) * wstride;
  var acc = vec4<f32>(0.0);
  if (p.has_bias != 0u) {
    acc = vec4<f32>(bias[oc], bias[min(oc + 1u, last)], bias[min(oc + 2u, last)], bias[min(oc + 3u, last)]);
  }
  let iy0 = i32(oy * p.stride_h) - i32(p.pad_h);
  let ix0 = i32(ox * p.stride_w) - i32(p.pad_w);
  let in_plane = p.in_h * p.in_w;
  for (var c = 0u; c < p.in_c; c = c + 1u) {
    let x_base = (b * p.in_c + c) * in_plane;
    let wc = c * kk;
    for (var ky = 0u; ky < p.k_h; ky = ky + 1u) {
      let iy = iy0 + i32(ky * p.dil_h);
      if (iy < 0 || iy >= i32(p.in_h)) { continue; }
      let x_row = x_base + u32(iy) * p.in_w;
      let w_row = wc + ky * p.k_w;
      for (var kx = 0u; kx < p.k_w; kx = kx + 1u) {
        let ix = ix0 + i32(kx * p.dil_w);
        if (ix < 0 || ix >= i32(p.in_w)) { continue; }
        let xv = x[x_row + u32(ix)];
        let wi = w_row + kx;
        acc = acc + xv * vec4<f32>(w[w0 + wi], w[w1 + wi], w[w2 + wi], w[w3 + wi]);
      }
    }
  }
  acc = clamp(acc, vec4<f32>(p.clamp_min), vec4<f32>(p.clamp_max));
  if (p.epi_n != 0u) { acc = vec4<f32>(epilogue(acc.x), epilogue(acc.y), epilogue(acc.z), epilogue(acc.w)); }
  let o = (b * p.out_c + oc) * plane + oy * p.out_w + ox;
  y[o] = acc.x;
  if (oc + 1u < p.out_c) { y[o + plane] = acc.y; }
  if (oc + 2u < p.out_c) { y[o + 2u * plane] = acc.z; }
  if (oc + 3u < p.out_c) { y[o + 3u * plane] = acc.w; }
}
