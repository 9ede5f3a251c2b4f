// Pointwise 2-D convolution (1x1 kernel, stride 1, no padding, groups == 1): a matmul
// over pixels. One invocation per output pixel and 4 consecutive output channels
// (vec4 accumulator). Lanes past out_c read a clamped (valid) weight row and are not
// written. Same Params/bindings and bias/clamp semantics as conv2d_direct.
struct Params {
  n: u32, in_c: u32, in_h: u32, in_w: u32,
  out_c: u32, out_h: u32, out_w: u32, groups: u32,
  k_h: u32, k_w: u32, stride_h: u32, stride_w: u32,
  pad_h: u32, pad_w: u32, dil_h: u32, dil_w: u32,
  total: u32, has_bias: u32, clamp_min: f32, clamp_max: f32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

override wg_size: u32 = 64;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * wg_size;
  let plane = p.out_w * p.out_h;  // == in_h * in_w
  let oc4n = (p.out_c + 3u) / 4u;
  if (i >= p.n * oc4n * plane) { return; }
  let pix = i % plane;
  let oc = ((i / plane) % oc4n) * 4u;
  let b = i / (plane * oc4n);
  let last = p.out_c - 1u;
  let w0 = oc * p.in_c;
  let w1 = min(oc + 1u, last) * p.in_c;
  let w2 = min(oc + 2u, last) * p.in_c;
  let w3 = min(oc + 3u, last) * p.in_c;
  var acc = vec4<f32>(0.0);
  if (p.has_bias != 0u) {
    acc = vec4<f32>(bias[oc], bias[min(oc + 1u, last)], bias[min(oc + 2u, last)], bias[min(oc + 3u, last)]);
  }
  var xi = b * p.in_c * plane + pix;
  for (var c = 0u; c < p.in_c; c = c + 1u) {
    acc = acc + x[xi] * vec4<f32>(w[w0 + c], w[w1 + c], w[w2 + c], w[w3 + c]);
    xi = xi + plane;
  }
  acc = clamp(acc, vec4<f32>(p.clamp_min), vec4<f32>(p.clamp_max));
  let o = (b * p.out_c + oc) * plane + pix;
  y[o] = acc.x;
  if (oc + 1u < p.out_c) { y[o + plane] = acc.y; }
  if (oc + 2u < p.out_c) { y[o + 2u * plane] = acc.z; }
  if (oc + 3u < p.out_c) { y[o + 3u * plane] = acc.w; }
}
