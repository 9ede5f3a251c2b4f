// et_vk.q8ta_conv2d, _pw, _dw and _transposed on int8 NCHW activations (one value per i32
// word) with int8 per-output-channel symmetric weights, as the Vulkan pattern
// quantized_convolution.py lays them out:
//   w_layout 0 (conv2d, pw): [OC, K_pad], k = (kh * KW + kw) * IC_per_group + ic
//   w_layout 1 (dw):         [KH, KW, OC_pad], tap (kh, kw) of channel oc at (kh * KW + kw) * OC_pad + oc
//   w_layout 2 (transposed): [OC, K_pad] in layout 0's order, gathered: input row
//                          ih = (oh + pad - kh * dil) / stride where that divides exactly
// The sum of (x - in_zp) * w is exact in i32; then y = acc * in_scale * w_scale[oc] + bias,
// relu if asked, quantized to the output's scale / zero point (custom_ops_lib.py's
// dequantize -> conv -> quantize). One thread per output element.
//#include "dispatch.inc.wgsl"
//#include "q8ta_params.inc.wgsl"
//#include "q8ta_math.inc.wgsl"
//#include "q8_weight_bytes.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<i32>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> w_scales: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<i32>;
@group(0) @binding(5) var<uniform> p: ConvParams;

override wg_size: u32 = 64;
override w_layout: u32 = 0;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_invocation(gid, nwg, wg_size);
  if (i >= p.n) { return; }
  let ox = i % p.ow;
  var t = i / p.ow;
  let oy = t % p.oh;
  t = t / p.oh;
  let oc = t % p.oc;
  let n = t / p.oc;
  let icg = p.ic / p.groups;
  let g = oc / (p.oc / p.groups);
  var acc = 0;
  for (var ky = 0u; ky < p.kh; ky = ky + 1u) {
    var iy: i32;
    if (w_layout == 2u) {
      let ty = i32(oy + p.pad_h) - i32(ky * p.dil_h);
      if (ty < 0 || ty % i32(p.stride_h) != 0) { continue; }
      iy = ty / i32(p.stride_h);
    } else {
      iy = i32(oy * p.stride_h + ky * p.dil_h) - i32(p.pad_h);
    }
    if (iy < 0 || iy >= i32(p.ih)) { continue; }
    for (var kx = 0u; kx < p.kw; kx = kx + 1u) {
      var ix: i32;
      if (w_layout == 2u) {
        let tx = i32(ox + p.pad_w) - i32(kx * p.dil_w);
        if (tx < 0 || tx % i32(p.stride_w) != 0) { continue; }
        ix = tx / i32(p.stride_w);
      } else {
        ix = i32(ox * p.stride_w + kx * p.dil_w) - i32(p.pad_w);
      }
      if (ix < 0 || ix >= i32(p.iw)) { continue; }
      let tap = ky * p.kw + kx;
      let plane = p.ih * p.iw;
      let pix = u32(iy) * p.iw + u32(ix);
      if (w_layout == 1u) {
        acc = acc + (x[(n * p.ic + oc) * plane + pix] - p.in_zp) * weight_i8(tap * p.w_row + oc);
      } else {
        let xbase = (n * p.ic + g * icg) * plane + pix;
        let wbase = oc * p.w_row + tap * icg;
        for (var c = 0u; c < icg; c = c + 1u) {
          acc = acc + (x[xbase + c * plane] - p.in_zp) * weight_i8(wbase + c);
        }
      }
    }
  }
  var v = f32(acc) * (p.in_scale * w_scales[oc % p.scale_period]);
  if (p.has_bias != 0u) { v = v + bias[oc]; }
  if (p.relu != 0u) { v = max(v, 0.0); }
  y[i] = q8_quantize(v, p.out_inv_scale, p.out_zp);
}
