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
//#include "per_element.inc.wgsl"
//#include "nchw.inc.wgsl"
//#include "q8ta_params.inc.wgsl"
//#include "q8ta_math.inc.wgsl"
//#include "q8ta_dot.inc.wgsl"
@group(0) @binding(4) var<storage, read_write> y: array<i32>;
@group(0) @binding(5) var<uniform> p: ConvParams;

override w_layout: u32 = 0;

// The input row (or column) that tap k of output position o reads, -1 if none (padding):
// o * stride + k * dil - pad, or for the transposed layout (w_layout 2) (o + pad - k * dil) /
// stride where that divides exactly.
fn input_pos(o: u32, k: u32, stride: u32, pad: u32, dil: u32, size: u32) -> i32 {
  var v: i32;
  if (w_layout == 2u) {
    let t = i32(o + pad) - i32(k * dil);
    if (t < 0 || t % i32(stride) != 0) { return -1; }
    v = t / i32(stride);
  } else {
    v = i32(o * stride + k * dil) - i32(pad);
  }
  if (v < 0 || v >= i32(size)) { return -1; }
  return v;
}

fn element_count() -> u32 { return p.n; }

fn element(i: u32) {
  let o = nchw_coords(i, p.oc, p.oh, p.ow);
  let icg = p.ic / p.groups;
  let g = o.c / (p.oc / p.groups);
  var acc = 0;
  for (var ky = 0u; ky < p.kh; ky = ky + 1u) {
    let iy = input_pos(o.y, ky, p.stride_h, p.pad_h, p.dil_h, p.ih);
    if (iy < 0) { continue; }
    for (var kx = 0u; kx < p.kw; kx = kx + 1u) {
      let ix = input_pos(o.x, kx, p.stride_w, p.pad_w, p.dil_w, p.iw);
      if (ix < 0) { continue; }
      let tap = ky * p.kw + kx;
      let plane = p.ih * p.iw;
      let pix = u32(iy) * p.iw + u32(ix);
      if (w_layout == 1u) {
        acc = acc + (x[(o.n * p.ic + o.c) * plane + pix] - p.in_zp) * weight_i8(tap * p.w_row + o.c);
      } else {
        let xbase = (o.n * p.ic + g * icg) * plane + pix;
        let wbase = o.c * p.w_row + tap * icg;
        for (var c = 0u; c < icg; c = c + 1u) {
          acc = acc + (x[xbase + c * plane] - p.in_zp) * weight_i8(wbase + c);
        }
      }
    }
  }
  let v = dot_result(acc, w_scales[o.c % p.scale_period], o.c);
  y[i] = q8_quantize(v, p.out_inv_scale, p.out_zp);
}
