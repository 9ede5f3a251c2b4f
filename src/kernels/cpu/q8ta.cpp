// The int8 ("q8ta") ops of ExecuTorch's Vulkan flow, for the CPU executor of VK00 graphs
// (vkcpu/op_table.cpp), as custom_ops_lib.py defines them: dequantize the int8 input(s)
// (per tensor) and the int8 per-output-channel symmetric weights, run the float op, relu if
// asked, quantize to int8 (clamp(round_half_even(x * f32(1 / scale)) + zp, -128, 127)).
// Products of int8 values are summed exactly in int32 and scaled once, as the WebGPU
// kernels (webgpu/ops/q8ta) do. Weight layouts are those of the Vulkan patterns
// (quantized_convolution.py, quantized_linear.py): conv [OC, K padded to 4] with
// k = (kh * KW + kw) * IC_per_group + ic, depthwise [KH, KW, OC padded], linear [N, K].
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu {

namespace {

struct Q8 {
  float scale = 1, inv_scale = 1;
  int32_t zp = 0;
  float dq(int32_t q) const { return (static_cast<float>(q) - static_cast<float>(zp)) * scale; }
  int8_t q(float x) const {
    float r = std::nearbyint(x * inv_scale) + static_cast<float>(zp);
    r = r >= -128.0f ? (r <= 127.0f ? r : 127.0f) : -128.0f;
    return static_cast<int8_t>(r);
  }
};

Result<Q8> read_q8(KernelArgs& a, size_t scale_at, size_t zp_at, const char* what, bool inverse = false) {
  WICK_ASSIGN_OR_RETURN(double s, a.double_arg(scale_at, what));
  WICK_ASSIGN_OR_RETURN(int64_t zp, a.int_arg(zp_at, what));
  if (!(s > 0) || !std::isfinite(s))
    return invalid_arg(a.op(), std::string(what) + " scale " + std::to_string(s) + " must be positive and finite");
  if (zp < -128 || zp > 127) return invalid_arg(a.op(), std::string(what) + " zero point " + std::to_string(zp) + " is outside int8");
  Q8 q;
  q.scale = static_cast<float>(inverse ? 1.0 / s : s);
  q.inv_scale = static_cast<float>(inverse ? s : 1.0 / s);
  q.zp = static_cast<int32_t>(zp);
  return q;
}

Status check_int8(const char* op, const Tensor& t, const char* name) {
  WICK_RETURN_IF_ERROR(check_tensor(op, t, name));
  if (t.dtype != ScalarType::kChar) return invalid_arg(op, std::string(name) + " must be int8, got " + dtype_str(t.dtype));
  return {};
}

// prepare_output for an int8 result.
Status prepare_int8_output(const char* op, Tensor& out, std::span<const int64_t> shape) {
  WICK_RETURN_IF_ERROR(prepare_output(op, out, shape));
  if (out.dtype != ScalarType::kChar) return invalid_arg(op, "out must be int8");
  return {};
}

Status check_channels(const char* op, const Tensor* t, int64_t n, const char* name) {
  if (!t) return {};
  WICK_RETURN_IF_ERROR(check_tensor(op, *t, name));
  if (t->dtype != ScalarType::kFloat || t->numel() < n)
    return invalid_arg(op, std::string(name) + " " + t->shape_string() + " must be float32 with at least " + std::to_string(n) + " values");
  return {};
}

Result<bool> read_activation(KernelArgs& a, size_t i) {
  WICK_ASSIGN_OR_RETURN(std::optional<std::string> act, a.optional_string(i, "activation"));
  if (!act || *act == "none") return false;
  if (*act == "relu") return true;
  return not_supported(a.op(), "activation \"" + *act + "\"");
}

std::pair<int64_t, int64_t> pair_of(const std::vector<int64_t>& v) {
  return v.size() == 1 ? std::pair<int64_t, int64_t>{v[0], v[0]} : std::pair<int64_t, int64_t>{v[0], v[1]};
}

enum class ConvKind { kIm2col, kDepthwise, kTransposed };

// The input coordinate that kernel tap k of output coordinate o reads along one axis of
// size n, or -1 where it reads padding (or, transposed, where no input lands on o).
inline int64_t tap_source(bool transposed, int64_t o, int64_t k, int64_t stride, int64_t pad, int64_t dil, int64_t n) {
  int64_t i;
  if (transposed) {
    const int64_t t = o + pad - k * dil;
    if (t < 0 || t % stride) return -1;
    i = t / stride;
  } else {
    i = o * stride - pad + k * dil;
  }
  return i >= 0 && i < n ? i : -1;
}

// The head of the q8ta conv and linear ops: [x, input_scale, input_zero_point, weights,
// weight_sums (not needed: the float accumulation subtracts the zero point itself),
// weight_scales, ...], x and the weights int8.
struct Q8Weighted {
  Tensor *x, *w, *ws;
  Q8 qi;
};
Result<Q8Weighted> read_q8_weighted(KernelArgs& a, size_t count) {
  WICK_RETURN_IF_ERROR(a.expect_count(count));
  Q8Weighted h;
  WICK_ASSIGN_OR_RETURN(h.x, a.tensor(0, "x"));
  WICK_ASSIGN_OR_RETURN(h.qi, read_q8(a, 1, 2, "input"));
  WICK_ASSIGN_OR_RETURN(h.w, a.tensor(3, "weights"));
  WICK_ASSIGN_OR_RETURN(h.ws, a.tensor(5, "weight_scales"));
  WICK_RETURN_IF_ERROR(check_int8(a.op(), *h.x, "x"));
  WICK_RETURN_IF_ERROR(check_int8(a.op(), *h.w, "weights"));
  return h;
}

// q8ta_conv2d*.out(x, input_scale, input_zero_point, weights, weight_sums, weight_scales,
//   output_scale, output_zero_point, bias?, kernel_size, stride, padding, (output_padding,)
//   dilation, groups, activation, *, out)
Status q8ta_conv(ValueTable& values, std::span<const int32_t> args, const char* op, ConvKind kind) {
  const bool tr = kind == ConvKind::kTransposed;
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(const Q8Weighted head, read_q8_weighted(a, tr ? 18 : 17));
  Tensor *x = head.x, *w = head.w, *ws = head.ws;
  const Q8 qi = head.qi;
  WICK_ASSIGN_OR_RETURN(Q8 qo, read_q8(a, 6, 7, "output"));
  WICK_ASSIGN_OR_RETURN(Tensor * bias, a.optional_tensor(8, "bias"));
  std::vector<std::vector<int64_t>> lists;
  for (size_t i = 9; i < (tr ? 14u : 13u); ++i) {
    WICK_ASSIGN_OR_RETURN(std::vector<int64_t> v, a.int_list(i, "conv geometry"));
    if (v.empty() || v.size() > 2) return invalid_arg(op, "conv geometry lists must hold 1 or 2 values");
    lists.push_back(v);
  }
  const auto kernel = pair_of(lists[0]), stride = pair_of(lists[1]), pad = pair_of(lists[2]);
  const auto out_pad = tr ? pair_of(lists[3]) : std::pair<int64_t, int64_t>{0, 0};
  const auto dil = pair_of(lists[tr ? 4 : 3]);
  WICK_ASSIGN_OR_RETURN(int64_t groups, a.int_arg(tr ? 14 : 13, "groups"));
  WICK_ASSIGN_OR_RETURN(bool relu, read_activation(a, tr ? 15 : 14));
  WICK_ASSIGN_OR_RETURN(Tensor * out, a.tensor(tr ? 16 : 15, "out"));
  if (x->dim() != 4 || out->dim() != 4) return invalid_arg(op, "x and out must be 4-D (NCHW)");
  if (kernel.first < 1 || kernel.second < 1 || stride.first < 1 || stride.second < 1 || dil.first < 1 || dil.second < 1 ||
      pad.first < 0 || pad.second < 0 || out_pad.first < 0 || out_pad.second < 0)
    return invalid_arg(op, "kernel, stride and dilation must be >= 1, padding >= 0");
  const int64_t nb = x->size(0), ic = x->size(1), ih = x->size(2), iw = x->size(3), oc = out->size(1);
  if (groups <= 0 || ic % groups || oc % groups)
    return invalid_arg(op, "groups " + std::to_string(groups) + " do not divide the channels");
  const int64_t icg = ic / groups, ocg = oc / groups, kh = kernel.first, kw = kernel.second;
  const int64_t oh = tr ? (ih - 1) * stride.first - 2 * pad.first + dil.first * (kh - 1) + out_pad.first + 1
                        : (ih + 2 * pad.first - dil.first * (kh - 1) - 1) / stride.first + 1;
  const int64_t ow = tr ? (iw - 1) * stride.second - 2 * pad.second + dil.second * (kw - 1) + out_pad.second + 1
                        : (iw + 2 * pad.second - dil.second * (kw - 1) - 1) / stride.second + 1;
  if (oh <= 0 || ow <= 0) return invalid_arg(op, "empty output");
  int64_t w_row;
  if (kind == ConvKind::kDepthwise) {
    if (groups != ic || ic != oc) return invalid_arg(op, "depthwise needs groups = input channels = output channels");
    if (w->dim() != 3 || w->size(0) != kh || w->size(1) != kw || w->size(2) < oc)
      return invalid_arg(op, "weights " + w->shape_string() + " are not [KH, KW, OC_pad]");
    w_row = w->size(2);
  } else {
    if (w->dim() != 2 || w->size(0) < oc || w->size(1) < kh * kw * icg)
      return invalid_arg(op, "weights " + w->shape_string() + " are not [OC, KH*KW*IC/groups (padded)]");
    w_row = w->size(1);
  }
  const int64_t scale_period = tr ? ocg : oc;
  WICK_RETURN_IF_ERROR(check_channels(op, ws, scale_period, "weight_scales"));
  WICK_RETURN_IF_ERROR(check_channels(op, bias, oc, "bias"));
  WICK_RETURN_IF_ERROR(prepare_int8_output(op, *out, std::vector<int64_t>{nb, oc, oh, ow}));
  const int8_t* xs = x->data_as<int8_t>();
  const int8_t* wp = w->data_as<int8_t>();
  const float* sp = ws->data_as<float>();
  const float* bp = bias ? bias->data_as<float>() : nullptr;
  int8_t* ys = out->data_as<int8_t>();
  parallel_for(nb * oc, 1, [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const int64_t n = plane / oc, o = plane % oc, g = o / ocg;
      const float scale = qi.scale * sp[o % scale_period];
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          int32_t acc = 0;
          for (int64_t ky = 0; ky < kh; ++ky) {
            const int64_t iy = tap_source(tr, y, ky, stride.first, pad.first, dil.first, ih);
            if (iy < 0) continue;
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t ix = tap_source(tr, xo, kx, stride.second, pad.second, dil.second, iw);
              if (ix < 0) continue;
              const int64_t tap = ky * kw + kx;
              if (kind == ConvKind::kDepthwise) {
                acc += (xs[((n * ic + o) * ih + iy) * iw + ix] - qi.zp) * wp[tap * w_row + o];
              } else {
                const int8_t* wr = wp + o * w_row + tap * icg;
                const int8_t* xr = xs + ((n * ic + g * icg) * ih + iy) * iw + ix;
                for (int64_t c = 0; c < icg; ++c) acc += (xr[c * ih * iw] - qi.zp) * wr[c];
              }
            }
          }
          float v = static_cast<float>(acc) * scale;
          if (bp) v += bp[o];
          if (relu) v = std::fmax(v, 0.0f);
          ys[(plane * oh + y) * ow + xo] = qo.q(v);
        }
    }
  });
  return {};
}

// q8ta_linear(_gemv).out(x, input_scale, input_zero_point, weights, weight_sums, weight_scales,
//   output_scale, output_zero_point, bias?, activation, *, out) and
// linear_q8ta_q8csw.out(x, input_scale, input_zero_point, weights, weight_sums, weight_scales,
//   bias?, *, out) (float out).
Status q8ta_linear(ValueTable& values, std::span<const int32_t> args, const char* op, bool int8_out) {
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(const Q8Weighted head, read_q8_weighted(a, int8_out ? 12 : 9));
  Tensor *x = head.x, *w = head.w, *ws = head.ws;
  const Q8 qi = head.qi;
  Q8 qo;
  bool relu = false;
  if (int8_out) {
    WICK_ASSIGN_OR_RETURN(qo, read_q8(a, 6, 7, "output"));
    WICK_ASSIGN_OR_RETURN(relu, read_activation(a, 9));
  }
  WICK_ASSIGN_OR_RETURN(Tensor * bias, a.optional_tensor(int8_out ? 8 : 6, "bias"));
  WICK_ASSIGN_OR_RETURN(Tensor * out, a.tensor(int8_out ? 10 : 7, "out"));
  if (x->dim() < 1 || w->dim() != 2) return invalid_arg(op, "expected x [..., K] and weights [N, K]");
  const int64_t k = x->sizes.back(), n = w->size(0);
  if (k <= 0 || w->size(1) < k) return invalid_arg(op, "weights " + w->shape_string() + " do not hold K = " + std::to_string(k));
  WICK_RETURN_IF_ERROR(check_channels(op, ws, n, "weight_scales"));
  WICK_RETURN_IF_ERROR(check_channels(op, bias, n, "bias"));
  std::vector<int64_t> shape = x->sizes;
  shape.back() = n;
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  if (out->dtype != (int8_out ? ScalarType::kChar : ScalarType::kFloat))
    return invalid_arg(op, std::string("out must be ") + (int8_out ? "int8" : "float32"));
  const int64_t m = x->numel() / k, w_row = w->size(1);
  const int8_t* xs = x->data_as<int8_t>();
  const int8_t* wp = w->data_as<int8_t>();
  const float* sp = ws->data_as<float>();
  const float* bp = bias ? bias->data_as<float>() : nullptr;
  parallel_for(m * n, 64, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t r = i / n, c = i % n;
      int32_t acc = 0;
      for (int64_t e = 0; e < k; ++e) acc += (xs[r * k + e] - qi.zp) * wp[c * w_row + e];
      float v = static_cast<float>(acc) * (qi.scale * sp[c]);
      if (bp) v += bp[c];
      if (relu) v = std::fmax(v, 0.0f);
      if (int8_out) out->data_as<int8_t>()[i] = qo.q(v);
      else out->data_as<float>()[i] = v;
    }
  });
  return {};
}

}  // namespace

Status et_vk_q8ta_conv2d_out(ValueTable& v, std::span<const int32_t> a) {
  return q8ta_conv(v, a, "et_vk::q8ta_conv2d.out", ConvKind::kIm2col);
}
Status et_vk_q8ta_conv2d_pw_out(ValueTable& v, std::span<const int32_t> a) {
  return q8ta_conv(v, a, "et_vk::q8ta_conv2d_pw.out", ConvKind::kIm2col);
}
Status et_vk_q8ta_conv2d_dw_out(ValueTable& v, std::span<const int32_t> a) {
  return q8ta_conv(v, a, "et_vk::q8ta_conv2d_dw.out", ConvKind::kDepthwise);
}
Status et_vk_q8ta_conv2d_transposed_out(ValueTable& v, std::span<const int32_t> a) {
  return q8ta_conv(v, a, "et_vk::q8ta_conv2d_transposed.out", ConvKind::kTransposed);
}
Status et_vk_q8ta_linear_out(ValueTable& v, std::span<const int32_t> a) {
  return q8ta_linear(v, a, "et_vk::q8ta_linear.out", true);
}
Status et_vk_q8ta_linear_gemv_out(ValueTable& v, std::span<const int32_t> a) {
  return q8ta_linear(v, a, "et_vk::q8ta_linear_gemv.out", true);
}
Status et_vk_linear_q8ta_q8csw_out(ValueTable& v, std::span<const int32_t> a) {
  return q8ta_linear(v, a, "et_vk::linear_q8ta_q8csw.out", false);
}

// q8ta_add.out(a, b, a_scale, a_zp, b_scale, b_zp, out_scale, out_zp, alpha, *, out)
Status et_vk_q8ta_add_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::q8ta_add.out";
  KernelArgs a(op, values, args);
  WICK_RETURN_IF_ERROR(a.expect_count(11));
  WICK_ASSIGN_OR_RETURN(Tensor * x, a.tensor(0, "input_a"));
  WICK_ASSIGN_OR_RETURN(Tensor * y, a.tensor(1, "input_b"));
  WICK_ASSIGN_OR_RETURN(Q8 qa, read_q8(a, 2, 3, "input_a"));
  WICK_ASSIGN_OR_RETURN(Q8 qb, read_q8(a, 4, 5, "input_b"));
  WICK_ASSIGN_OR_RETURN(Q8 qo, read_q8(a, 6, 7, "output"));
  WICK_ASSIGN_OR_RETURN(double alpha, a.double_arg(8, "alpha"));
  WICK_ASSIGN_OR_RETURN(Tensor * out, a.tensor(9, "out"));
  WICK_RETURN_IF_ERROR(check_int8(op, *x, "input_a"));
  WICK_RETURN_IF_ERROR(check_int8(op, *y, "input_b"));
  if (x->sizes != y->sizes) return not_supported(op, "inputs " + x->shape_string() + " and " + y->shape_string() + " differ (no broadcasting)");
  WICK_RETURN_IF_ERROR(prepare_int8_output(op, *out, x->sizes));
  const float al = static_cast<float>(alpha);
  for (int64_t i = 0; i < x->numel(); ++i)
    out->data_as<int8_t>()[i] = qo.q(qa.dq(x->data_as<int8_t>()[i]) + al * qb.dq(y->data_as<int8_t>()[i]));
  return {};
}

// The head of the one-input q8ta ops: [input, input_scale, input_zero_point, output_scale
// (or its inverse), output_zero_point, ...]: the int8 input and both quantizations.
struct Q8Unary {
  Tensor* x;
  Q8 qi, qo;
};
Result<Q8Unary> read_q8_unary(KernelArgs& a, size_t count, bool inverse_out = false) {
  WICK_RETURN_IF_ERROR(a.expect_count(count));
  Q8Unary u;
  WICK_ASSIGN_OR_RETURN(u.x, a.tensor(0, "input"));
  WICK_ASSIGN_OR_RETURN(u.qi, read_q8(a, 1, 2, "input"));
  WICK_ASSIGN_OR_RETURN(u.qo, read_q8(a, 3, 4, "output", inverse_out));
  WICK_RETURN_IF_ERROR(check_int8(a.op(), *u.x, "input"));
  return u;
}

// q8ta_relu.out(input, input_scale, input_zero_point, output_scale, output_zero_point, *, out)
Status et_vk_q8ta_relu_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::q8ta_relu.out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(const Q8Unary u, read_q8_unary(a, 7));
  WICK_ASSIGN_OR_RETURN(Tensor * out, a.tensor(5, "out"));
  WICK_RETURN_IF_ERROR(prepare_int8_output(op, *out, u.x->sizes));
  for (int64_t i = 0; i < u.x->numel(); ++i)
    out->data_as<int8_t>()[i] = u.qo.q(std::fmax(u.qi.dq(u.x->data_as<int8_t>()[i]), 0.0f));
  return {};
}

// q8ta_pixel_shuffle.out(input, input_scale, input_zero_point, output_inv_scale,
//   output_zero_point, upscale_factor, *, out)
Status et_vk_q8ta_pixel_shuffle_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::q8ta_pixel_shuffle.out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(const Q8Unary u, read_q8_unary(a, 8, /*inverse_out=*/true));
  WICK_ASSIGN_OR_RETURN(int64_t r, a.int_arg(5, "upscale_factor"));
  WICK_ASSIGN_OR_RETURN(Tensor * out, a.tensor(6, "out"));
  const Tensor* x = u.x;
  const Q8 qi = u.qi, qo = u.qo;
  const int rank = x->dim();
  if (rank < 3 || r <= 0 || x->sizes[rank - 3] % (r * r))
    return invalid_arg(op, "input " + x->shape_string() + " is not [..., C * r * r, H, W] for r = " + std::to_string(r));
  std::vector<int64_t> shape = x->sizes;
  const int64_t c = shape[rank - 3] / (r * r), h = shape[rank - 2], w = shape[rank - 1];
  shape[rank - 3] = c, shape[rank - 2] = h * r, shape[rank - 1] = w * r;
  WICK_RETURN_IF_ERROR(prepare_int8_output(op, *out, shape));
  const int64_t outer = x->numel() / (c * r * r * h * w);
  const int8_t* xs = x->data_as<int8_t>();
  int8_t* ys = out->data_as<int8_t>();
  for (int64_t b = 0; b < outer; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < h * r; ++y)
        for (int64_t xo = 0; xo < w * r; ++xo) {
          const int8_t q = xs[((b * c * r * r + ch * r * r + (y % r) * r + xo % r) * h + y / r) * w + xo / r];
          ys[((b * c + ch) * h * r + y) * w * r + xo] = qo.q(qi.dq(q));
        }
  return {};
}

}  // namespace wick::cpu
