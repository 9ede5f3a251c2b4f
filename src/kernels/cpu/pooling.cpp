// 2-D pooling: max (with indices), average, adaptive average. Inputs are [N, C, H, W] or
// [C, H, W]; window arithmetic follows PyTorch's pooling_shape_check / pooling_output_shape.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"

namespace wick::cpu {
namespace {

struct Pool2d {
  int64_t planes, in_h, in_w, out_h, out_w;
  int64_t k_h, k_w, s_h, s_w, p_h, p_w, d_h, d_w;
};

Result<std::vector<int64_t>> pair_param(const char* op, std::vector<int64_t> v, const char* name,
                                        const std::vector<int64_t>& fallback) {
  if (v.empty()) v = fallback;
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2) return invalid_arg(op, std::string(name) + " must have 1 or 2 values, got " + shape_to_string(v));
  return v;
}

// PyTorch's pooling_output_shape: with ceil_mode the last window must start inside the
// input or its left padding.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
  const int64_t span = in + 2 * pad - dil * (k - 1) - 1;
  int64_t out = (span + (ceil_mode ? stride - 1 : 0)) / stride + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// Reads (self, kernel_size, stride, padding[, dilation], ceil_mode) and sizes out.
Result<Pool2d> pool_geometry(const char* op, const Tensor& self, const std::vector<int64_t>& kernel_v,
                             const std::vector<int64_t>& stride_v, const std::vector<int64_t>& pad_v,
                             const std::vector<int64_t>& dil_v, bool ceil_mode, std::vector<int64_t>& out_shape) {
  WICK_RETURN_IF_ERROR(check_floating(op, self, "self"));
  if (self.dim() != 3 && self.dim() != 4)
    return invalid_arg(op, "self rank " + std::to_string(self.dim()) + ", expected 3 or 4");
  WICK_ASSIGN_OR_RETURN(auto k, pair_param(op, kernel_v, "kernel_size", {}));
  WICK_ASSIGN_OR_RETURN(auto s, pair_param(op, stride_v, "stride", k));
  WICK_ASSIGN_OR_RETURN(auto p, pair_param(op, pad_v, "padding", {0, 0}));
  WICK_ASSIGN_OR_RETURN(auto d, pair_param(op, dil_v, "dilation", {1, 1}));
  WICK_RETURN_IF_ERROR(check_geometry(op, "kernel_size", k, 1));
  WICK_RETURN_IF_ERROR(check_geometry(op, "stride", s, 1));
  WICK_RETURN_IF_ERROR(check_geometry(op, "dilation", d, 1));
  for (int i = 0; i < 2; ++i)
    if (p[i] < 0 || p[i] > k[i] / 2) return invalid_arg(op, "padding must be between 0 and half the kernel size");
  Pool2d g{};
  const int r = self.dim();
  g.in_h = self.size(r - 2);
  g.in_w = self.size(r - 1);
  g.planes = g.in_h * g.in_w == 0 ? 0 : self.numel() / (g.in_h * g.in_w);
  if (g.in_h == 0 || g.in_w == 0) return invalid_arg(op, "self " + self.shape_string() + " has an empty spatial dim");
  g.k_h = k[0], g.k_w = k[1], g.s_h = s[0], g.s_w = s[1], g.p_h = p[0], g.p_w = p[1], g.d_h = d[0], g.d_w = d[1];
  g.out_h = pooled_size(g.in_h, g.k_h, g.p_h, g.s_h, g.d_h, ceil_mode);
  g.out_w = pooled_size(g.in_w, g.k_w, g.p_w, g.s_w, g.d_w, ceil_mode);
  if (g.out_h <= 0 || g.out_w <= 0) return invalid_arg(op, "output size is empty for input " + self.shape_string());
  out_shape.assign(self.sizes.begin(), self.sizes.end() - 2);
  out_shape.push_back(g.out_h);
  out_shape.push_back(g.out_w);
  return g;
}

// Calls f(plane, oh, ow, k) for every pooled output: `plane` is the input plane the output
// reads (of x, the input in the compute type) and k its index in the output.
template <class CT, class F>
void for_each_pooled(const Pool2d& g, const CT* x, F&& f) {
  for (int64_t pl = 0; pl < g.planes; ++pl) {
    const CT* plane = x + pl * g.in_h * g.in_w;
    for (int64_t oh = 0; oh < g.out_h; ++oh)
      for (int64_t ow = 0; ow < g.out_w; ++ow) f(plane, oh, ow, (pl * g.out_h + oh) * g.out_w + ow);
  }
}

}  // namespace

// max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//   int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out, Tensor(b!) indices)
Status max_pool2d_with_indices_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::max_pool2d_with_indices.out";
  Tensor *self{}, *out{}, *indices{};
  std::vector<int64_t> kernel, stride, padding, dilation;
  bool ceil_mode = false;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 9, arg(self, "self"), arg(kernel, "kernel_size"),
                                 arg(stride, "stride"), arg(padding, "padding"), arg(dilation, "dilation"),
                                 arg(ceil_mode, "ceil_mode"), arg(out, "out"), arg(indices, "indices")));
  std::vector<int64_t> shape;
  WICK_ASSIGN_OR_RETURN(Pool2d g, pool_geometry(op, *self, kernel, stride, padding, dilation, ceil_mode, shape));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *self, "self", *out, "out"));
  if (indices->dtype != ScalarType::kLong) return invalid_arg(op, "indices must be int64, got " + dtype_str(indices->dtype));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  WICK_RETURN_IF_ERROR(prepare_output(op, *indices, shape, "indices"));
  int64_t* idx = indices->data_as<int64_t>();
  return compute_in_out(*self, *out, [&](const auto* x, auto* y) {
    using CT = std::remove_pointer_t<decltype(y)>;
    for_each_pooled(g, x, [&](const CT* plane, int64_t oh, int64_t ow, int64_t k) {
      CT best = CT(0);
      int64_t best_i = -1;
      for (int64_t kh = 0; kh < g.k_h; ++kh) {
        const int64_t ih = oh * g.s_h - g.p_h + kh * g.d_h;
        if (ih < 0 || ih >= g.in_h) continue;
        for (int64_t kw = 0; kw < g.k_w; ++kw) {
          const int64_t iw = ow * g.s_w - g.p_w + kw * g.d_w;
          if (iw < 0 || iw >= g.in_w) continue;
          const CT v = plane[ih * g.in_w + iw];
          // NaN wins and sticks, as in PyTorch.
          if (best_i < 0 || v > best || (v != v && best == best)) {
            best = v;
            best_i = ih * g.in_w + iw;
          }
        }
      }
      y[k] = best_i < 0 ? -std::numeric_limits<CT>::infinity() : best;
      idx[k] = best_i;
    });
  });
}

// avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//   bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *, Tensor(a!) out)
Status avg_pool2d_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::avg_pool2d.out";
  Tensor *self{}, *out{};
  std::vector<int64_t> kernel, stride, padding;
  bool ceil_mode = false, count_include_pad = false;
  std::optional<int64_t> divisor;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 9, arg(self, "self"), arg(kernel, "kernel_size"),
                                 arg(stride, "stride"), arg(padding, "padding"), arg(ceil_mode, "ceil_mode"),
                                 arg(count_include_pad, "count_include_pad"), arg(divisor, "divisor_override"),
                                 arg(out, "out")));
  if (divisor && *divisor == 0) return invalid_arg(op, "divisor_override must be nonzero");
  std::vector<int64_t> shape;
  WICK_ASSIGN_OR_RETURN(Pool2d g, pool_geometry(op, *self, kernel, stride, padding, {1, 1}, ceil_mode, shape));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *self, "self", *out, "out"));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  return compute_in_out(*self, *out, [&](const auto* x, auto* y) {
    using CT = std::remove_pointer_t<decltype(y)>;
    for_each_pooled(g, x, [&](const CT* plane, int64_t oh, int64_t ow, int64_t k) {
      int64_t h0 = oh * g.s_h - g.p_h, w0 = ow * g.s_w - g.p_w;
      int64_t h1 = std::min(h0 + g.k_h, g.in_h + g.p_h), w1 = std::min(w0 + g.k_w, g.in_w + g.p_w);
      const int64_t padded_count = (h1 - h0) * (w1 - w0);
      h0 = std::max<int64_t>(h0, 0);
      w0 = std::max<int64_t>(w0, 0);
      h1 = std::min(h1, g.in_h);
      w1 = std::min(w1, g.in_w);
      double sum = 0;
      for (int64_t ih = h0; ih < h1; ++ih)
        for (int64_t iw = w0; iw < w1; ++iw) sum += static_cast<double>(plane[ih * g.in_w + iw]);
      const int64_t div = divisor ? *divisor : count_include_pad ? padded_count : (h1 - h0) * (w1 - w0);
      y[k] = static_cast<CT>(sum / static_cast<double>(div));
    });
  });
}

// _adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out): output
// cell o averages input [floor(o*in/out), ceil((o+1)*in/out)).
Status adaptive_avg_pool2d_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::_adaptive_avg_pool2d.out";
  Tensor *self{}, *out{};
  std::vector<int64_t> size;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, floating_arg(self, "self"), arg(size, "output_size"),
                                 arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *self, "self", *out, "out"));
  if (self->dim() != 3 && self->dim() != 4)
    return invalid_arg(op, "self rank " + std::to_string(self->dim()) + ", expected 3 or 4");
  if (size.size() == 1) size.push_back(size[0]);
  if (size.size() != 2 || size[0] < 0 || size[1] < 0)
    return invalid_arg(op, "output_size must be two non-negative sizes, got " + shape_to_string(size));
  const int r = self->dim();
  const int64_t ih = self->size(r - 2), iw = self->size(r - 1), oh = size[0], ow = size[1];
  if ((ih == 0 || iw == 0) && self->numel() > 0) return invalid_arg(op, "empty spatial dim");
  std::vector<int64_t> shape(self->sizes.begin(), self->sizes.end() - 2);
  shape.push_back(oh);
  shape.push_back(ow);
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  if (out->numel() == 0) return {};
  const int64_t planes = self->numel() / (ih * iw);
  return compute_in_out(*self, *out, [&](const auto* x, auto* y) {
    using CT = std::remove_pointer_t<decltype(y)>;
    for (int64_t pl = 0; pl < planes; ++pl)
      for (int64_t i = 0; i < oh; ++i) {
        const int64_t h0 = i * ih / oh, h1 = ((i + 1) * ih + oh - 1) / oh;
        for (int64_t j = 0; j < ow; ++j) {
          const int64_t w0 = j * iw / ow, w1 = ((j + 1) * iw + ow - 1) / ow;
          double sum = 0;
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) sum += static_cast<double>(x[(pl * ih + h) * iw + w]);
          y[(pl * oh + i) * ow + j] = static_cast<CT>(sum / static_cast<double>((h1 - h0) * (w1 - w0)));
        }
      }
  });
}

}  // namespace wick::cpu
