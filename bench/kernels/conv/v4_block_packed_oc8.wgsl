// v4: v3 with 8 output channels per invocation (two packed vec4 blocks, 32 accumulators).
// Direct 2-D convolution for groups == 1 (1-D runs as height 1), register-blocked: one
// invocation computes 4 consecutive output pixels of a row x 4 consecutive output
// channels (16 accumulators), so each weight vec4 is loaded once per 4 pixels and each
// input value once per 4 channels (conv2d_oc4 loads 4 weights per input value).
// Kernel size, stride and dilation are override constants, so the tap loops have constant
// bounds and the address arithmetic folds. Blocks whose receptive field lies inside the
// input run a loop with no bounds checks; only border blocks test each tap (SwiftShader
// pays for every branch and select per tap). Lanes past out_c read a clamped (valid)
// weight row and are not written. Same Params/bindings and bias/clamp/epilogue semantics
// as conv2d_oc4 (the k/stride/dilation fields of Params are unused here).
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
@group(0) @binding(1) var<storage, read> w: array<vec4<f32>>;  // [ceil(out_c/4), in_c, KH, KW] x 4 channels
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

override wg_size: u32 = 64;
override KH: u32 = 3;
override KW: u32 = 3;
override SH: u32 = 1;
override SW: u32 = 1;
override DH: u32 = 1;
override DW: u32 = 1;

// The fused elementwise ops (graph fusion, webgpu/fusion.cpp), in order.
fn epilogue(v: vec4<f32>) -> vec4<f32> {
  var y = v;
  for (var k = 0u; k < p.epi_n; k = k + 1u) {
    let a = bitcast<f32>(p.epi[k].y);
    switch p.epi[k].x {
      case 1u: { y = max(y, vec4<f32>(a)); }
      case 2u: { y = min(y, vec4<f32>(a)); }
      case 3u: { y = y * clamp(y + 3.0, vec4<f32>(0.0), vec4<f32>(6.0)) / 6.0; }  // hardswish
      case 4u: { y = y + a; }
      case 5u: { y = y * a; }
      case 6u: { y = y / a; }
      default: {}
    }
  }
  return y;
}

// Writes the 4 channels of one output pixel (lanes past out_c are dropped).
fn store(o: u32, plane: u32, oc: u32, v: vec4<f32>) {
  var r = clamp(v, vec4<f32>(p.clamp_min), vec4<f32>(p.clamp_max));
  if (p.epi_n != 0u) { r = epilogue(r); }
  y[o] = r.x;
  if (oc + 1u < p.out_c) { y[o + plane] = r.y; }
  if (oc + 2u < p.out_c) { y[o + 2u * plane] = r.z; }
  if (oc + 3u < p.out_c) { y[o + 3u * plane] = r.w; }
}

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * wg_size;
  let bw = (p.out_w + 3u) / 4u;  // pixel blocks per output row
  let oc4n = (p.out_c + 3u) / 4u;
  let oc8n = (p.out_c + 7u) / 8u;
  let bplane = bw * p.out_h;
  if (i >= p.n * oc8n * bplane) { return; }
  let ox = (i % bw) * 4u;
  let oy = (i / bw) % p.out_h;
  let oc = ((i / bplane) % oc8n) * 8u;
  let b = i / (bplane * oc8n);
  let has_hi = oc + 4u < p.out_c;
  let last = p.out_c - 1u;
  let kk = KH * KW;
  let w0 = (oc / 4u) * p.in_c * kk;
  let w1 = min(oc / 4u + 1u, oc4n - 1u) * p.in_c * kk;
  var a0 = vec4<f32>(0.0);
  var b0 = vec4<f32>(0.0);
  if (p.has_bias != 0u) {
    a0 = vec4<f32>(bias[oc], bias[min(oc + 1u, last)], bias[min(oc + 2u, last)], bias[min(oc + 3u, last)]);
    b0 = vec4<f32>(bias[min(oc + 4u, last)], bias[min(oc + 5u, last)], bias[min(oc + 6u, last)], bias[min(oc + 7u, last)]);
  }
  var a1 = a0;
  var a2 = a0;
  var a3 = a0;
  var b1 = b0;
  var b2 = b0;
  var b3 = b0;
  let iy0 = i32(oy * SH) - i32(p.pad_h);
  let ix0 = i32(ox * SW) - i32(p.pad_w);
  let in_plane = p.in_h * p.in_w;
  let xb = b * p.in_c * in_plane;
  // Every tap of all 4 pixels in bounds (and all 4 pixels inside the row)?
  let interior = iy0 >= 0 && iy0 + i32(DH * (KH - 1u)) < i32(p.in_h) && ix0 >= 0 &&
                 ix0 + i32(3u * SW + DW * (KW - 1u)) < i32(p.in_w) && ox + 3u < p.out_w;
  if (interior) {
    var xc = xb + u32(iy0) * p.in_w + u32(ix0);
    var wc = 0u;
    for (var c = 0u; c < p.in_c; c = c + 1u) {
      for (var ky = 0u; ky < KH; ky = ky + 1u) {
        let xr = xc + ky * DH * p.in_w;
        for (var kx = 0u; kx < KW; kx = kx + 1u) {
          let xi = xr + kx * DW;
          let wi = wc + ky * KW + kx;
          let wv = w[w0 + wi];
          let wu = w[w1 + wi];
          let x0 = x[xi];
          let x1 = x[xi + SW];
          let x2 = x[xi + 2u * SW];
          let x3 = x[xi + 3u * SW];
          a0 = a0 + x0 * wv;
          a1 = a1 + x1 * wv;
          a2 = a2 + x2 * wv;
          a3 = a3 + x3 * wv;
          b0 = b0 + x0 * wu;
          b1 = b1 + x1 * wu;
          b2 = b2 + x2 * wu;
          b3 = b3 + x3 * wu;
        }
      }
      xc = xc + in_plane;
      wc = wc + kk;
    }
  } else {
    let wlim = i32(p.in_w);
    for (var c = 0u; c < p.in_c; c = c + 1u) {
      let xc = xb + c * in_plane;
      let wc = c * kk;
      for (var ky = 0u; ky < KH; ky = ky + 1u) {
        let iy = iy0 + i32(ky * DH);
        if (iy < 0 || iy >= i32(p.in_h)) { continue; }
        let xr = xc + u32(iy) * p.in_w;
        for (var kx = 0u; kx < KW; kx = kx + 1u) {
          let ix = ix0 + i32(kx * DW);
          let wi = wc + ky * KW + kx;
          let wv = w[w0 + wi];
          let wu = w[w1 + wi];
          let j0 = ix;
          let j1 = ix + i32(SW);
          let j2 = ix + i32(2u * SW);
          let j3 = ix + i32(3u * SW);
          let x0 = select(0.0, x[xr + u32(clamp(j0, 0, wlim - 1))], j0 >= 0 && j0 < wlim);
          let x1 = select(0.0, x[xr + u32(clamp(j1, 0, wlim - 1))], j1 >= 0 && j1 < wlim);
          let x2 = select(0.0, x[xr + u32(clamp(j2, 0, wlim - 1))], j2 >= 0 && j2 < wlim);
          let x3 = select(0.0, x[xr + u32(clamp(j3, 0, wlim - 1))], j3 >= 0 && j3 < wlim);
          a0 = a0 + x0 * wv;
          a1 = a1 + x1 * wv;
          a2 = a2 + x2 * wv;
          a3 = a3 + x3 * wv;
          b0 = b0 + x0 * wu;
          b1 = b1 + x1 * wu;
          b2 = b2 + x2 * wu;
          b3 = b3 + x3 * wu;
        }
      }
    }
  }
  let plane = p.out_w * p.out_h;
  let o = (b * p.out_c + oc) * plane + oy * p.out_w + ox;
  store(o, plane, oc, a0);
  if (ox + 1u < p.out_w) { store(o + 1u, plane, oc, a1); }
  if (ox + 2u < p.out_w) { store(o + 2u, plane, oc, a2); }
  if (ox + 3u < p.out_w) { store(o + 3u, plane, oc, a3); }
  if (!has_hi) { return; }
  let oh4 = o + 4u * plane;
  store(oh4, plane, oc + 4u, b0);
  if (ox + 1u < p.out_w) { store(oh4 + 1u, plane, oc + 4u, b1); }
  if (ox + 2u < p.out_w) { store(oh4 + 2u, plane, oc + 4u, b2); }
  if (ox + 3u < p.out_w) { store(oh4 + 3u, plane, oc + 4u, b3); }
}
