// Direct 2-D convolution for groups == 1 (1-D runs as height 1), register-blocked: one
// invocation computes 4 consecutive output pixels of a row x 4 consecutive output
// channels (16 accumulators). The weights come repacked (ops/conv/register.cpp) as
// [ceil(out_c/4), in_c, KH, KW] vec4s of 4 output channels, zero past out_c: one vec4
// load per tap feeds 4 pixels (conv2d_oc4 does 4 scalar weight loads per pixel and tap).
// Kernel size, stride and dilation are override constants, so the tap loops have constant
// bounds and the address arithmetic folds. Blocks whose receptive field lies inside the
// input run a loop with no bounds checks; only border blocks test each tap (SwiftShader
// pays for every branch and select per tap). Lanes past out_c are not written. Same
// Params, bindings 0 and 2-4 (conv2d_params.inc.wgsl) and bias/clamp/epilogue semantics as
// conv2d_oc4 (Params' kernel, stride and dilation fields are unused here).
//#include "conv2d_repacked.inc.wgsl"
//#include "dispatch.inc.wgsl"

override wg_size: u32 = 64;

// Writes the 4 channels of one output pixel (lanes past out_c are dropped).
fn store(o: u32, plane: u32, oc: u32, v: vec4<f32>) {
  var r = clamp(v, vec4<f32>(p.clamp_min), vec4<f32>(p.clamp_max));
  if (p.epi_n != 0u) { r = vec4<f32>(epilogue(r.x), epilogue(r.y), epilogue(r.z), epilogue(r.w)); }
  y[o] = r.x;
  if (oc + 1u < p.out_c) { y[o + plane] = r.y; }
  if (oc + 2u < p.out_c) { y[o + 2u * plane] = r.z; }
  if (oc + 3u < p.out_c) { y[o + 3u * plane] = r.w; }
}

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_invocation(gid, nwg, wg_size);
  let bw = (p.out_w + 3u) / 4u;  // pixel blocks per output row
  let oc4n = (p.out_c + 3u) / 4u;
  let bplane = bw * p.out_h;
  if (i >= p.n * oc4n * bplane) { return; }
  let ox = (i % bw) * 4u;
  let oy = (i / bw) % p.out_h;
  let oc = ((i / bplane) % oc4n) * 4u;
  let b = i / (bplane * oc4n);
  let last = p.out_c - 1u;
  let kk = KH * KW;
  let w0 = (oc / 4u) * p.in_c * kk;
  var a0 = vec4<f32>(0.0);
  if (p.has_bias != 0u) {
    a0 = vec4<f32>(bias[oc], bias[min(oc + 1u, last)], bias[min(oc + 2u, last)], bias[min(oc + 3u, last)]);
  }
  var a1 = a0;
  var a2 = a0;
  var a3 = a0;
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
          a0 = a0 + x[xi] * wv;
          a1 = a1 + x[xi + SW] * wv;
          a2 = a2 + x[xi + 2u * SW] * wv;
          a3 = a3 + x[xi + 3u * SW] * wv;
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
          // Out-of-row taps read a clamped index and contribute 0.
          let j0 = ix;
          let j1 = ix + i32(SW);
          let j2 = ix + i32(2u * SW);
          let j3 = ix + i32(3u * SW);
          a0 = a0 + select(0.0, x[xr + u32(clamp(j0, 0, wlim - 1))], j0 >= 0 && j0 < wlim) * wv;
          a1 = a1 + select(0.0, x[xr + u32(clamp(j1, 0, wlim - 1))], j1 >= 0 && j1 < wlim) * wv;
          a2 = a2 + select(0.0, x[xr + u32(clamp(j2, 0, wlim - 1))], j2 >= 0 && j2 < wlim) * wv;
          a3 = a3 + select(0.0, x[xr + u32(clamp(j3, 0, wlim - 1))], j3 >= 0 && j3 < wlim) * wv;
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
}
