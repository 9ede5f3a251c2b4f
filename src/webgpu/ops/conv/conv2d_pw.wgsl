// Pointwise 2-D convolution (1x1 kernel, stride 1, no padding, groups == 1): a matmul
// over pixels. One output slot = one pixel x 4 consecutive output channels (vec4
// accumulator); `ks` invocations share a slot, each summing every ks-th input channel,
// and add their partial sums in workgroup memory (split-K: small planes with many input
// channels, such as squeeze-and-excitation's 1x1 convs, keep the GPU busy). Lanes past
// out_c read a clamped (valid) weight row and are not written. Optional per-input-channel
// scale of x (a fused x * s[N|1, C, 1, 1]). Same Params and bias/clamp semantics as
// conv2d_direct, then the fused epilogue, which here may also add a tensor shaped as y
// (code 7: a fused residual add).
//#include "conv2d_pw_epilogue.inc.wgsl"
//#include "dispatch.inc.wgsl"  // also in conv2d_common: expanded once

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
