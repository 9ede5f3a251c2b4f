// aten::convolution.out: 1-D and 2-D, grouped, dilated, strided, and transposed.
#include <algorithm>
#include <cmath>

#include "kernels/cpu/conv_geometry.h"
#include "kernels/cpu/hot_loop.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu {
namespace {

constexpr const char* kOp = "aten::convolution.out";

Result<std::vector<int64_t>> expand_param(std::vector<int64_t> v, size_t n, const char* name) {
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  if (v.size() != n)
    return invalid_arg(kOp, std::string(name) + " has " + std::to_string(v.size()) + " values, expected " + std::to_string(n));
  return v;
}

// Range [lo, hi) of output positions o whose input position o*stride + offset lies in [0, size).
inline void valid_range(int64_t offset, int64_t stride, int64_t size, int64_t out_size, int64_t& lo, int64_t& hi) {
  lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  const int64_t last = size - 1 - offset;  // need o*stride <= last
  hi = last < 0 ? 0 : std::min(out_size, last / stride + 1);
  if (lo > hi) lo = hi;
}

// The plain direct convolution, one output plane at a time (any type; float takes the
// kernels below unless its groups have one output channel and more than one input channel).
template <class T>
void conv2d_planes(const T* in, const T* w, const T* bias, T* out, const ConvGeometry& g, int64_t n, int64_t oc) {
  const int64_t in_cg = g.in_c / g.groups, out_cg = g.out_c / g.groups;
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  const int64_t grp = oc / out_cg;
  T* o = out + (n * g.out_c + oc) * out_plane;
  std::fill(o, o + out_plane, bias ? bias[oc] : T(0));
  for (int64_t icg = 0; icg < in_cg; ++icg) {
    const T* x = in + (n * g.in_c + grp * in_cg + icg) * in_plane;
    const T* wk = w + (oc * in_cg + icg) * g.k_h * g.k_w;
    for (int64_t kh = 0; kh < g.k_h; ++kh) {
      int64_t oh_lo, oh_hi;
      valid_range(kh * g.dil_h - g.pad_h, g.stride_h, g.in_h, g.out_h, oh_lo, oh_hi);
      for (int64_t kw = 0; kw < g.k_w; ++kw) {
        const T wv = wk[kh * g.k_w + kw];
        const int64_t off_w = kw * g.dil_w - g.pad_w;
        int64_t ow_lo, ow_hi;
        valid_range(off_w, g.stride_w, g.in_w, g.out_w, ow_lo, ow_hi);
        for (int64_t oh = oh_lo; oh < oh_hi; ++oh) {
          const T* xrow = x + (oh * g.stride_h + kh * g.dil_h - g.pad_h) * g.in_w;
          T* orow = o + oh * g.out_w;
          if (g.stride_w == 1) {
            for (int64_t ow = ow_lo; ow < ow_hi; ++ow) orow[ow] += wv * xrow[ow + off_w];
          } else {
            for (int64_t ow = ow_lo; ow < ow_hi; ++ow) orow[ow] += wv * xrow[ow * g.stride_w + off_w];
          }
        }
      }
    }
  }
}

template <class T>
void conv2d(const T* in, const T* w, const T* bias, T* out, const ConvGeometry& g) {
  const int64_t plane_cost = std::max<int64_t>(1, g.out_h * g.out_w * (g.in_c / g.groups) * g.k_h * g.k_w);
  parallel_for(g.batch * g.out_c, std::max<int64_t>(1, 65536 / plane_cost), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) conv2d_planes(in, w, bias, out, g, i / g.out_c, i % g.out_c);
  });
}

// fp32 convolution with a 4 (output channels) x 8 (output columns) register block: the
// 32 sums stay in registers while every input channel and kernel tap is added, each input
// value loaded once for 4 channels. The weights are read in place, from 4 rows at once (no
// repacked copy per call: MobileNet's would be megabytes).
constexpr int64_t kOcBlock = 4, kOwBlock = 8;  // conv2d_blocked_rows spells out the 4 channels
constexpr int64_t kIcChunk = 8;
// Output channels per group from which conv2d_gemm beats conv2d_blocked.
constexpr int64_t kGemmMinChannels = 8;
// Kernel widths and strides conv2d_depthwise takes (its tables of tap offsets and phases).
constexpr int64_t kMaxDepthwiseKernel = 64;

struct BlockedConv {
  const float* in;
  const float* w;  // [out_c, in_c / groups, k_h, k_w]
  const float* bias;
  float* out;
  ConvGeometry g;
  int64_t blocks_per_group, n_blocks;
};

// Output rows [begin, end) of the blocked convolution; a row is (n, block, oh).
WICK_HOT_LOOP void conv2d_blocked_rows(const BlockedConv& c, int64_t begin, int64_t end) {
  const ConvGeometry& g = c.g;
  const int64_t in_cg = g.in_c / g.groups, out_cg = g.out_c / g.groups, taps = g.k_h * g.k_w;
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  for (int64_t r = begin; r < end; ++r) {
    const int64_t oh = r % g.out_h, blk = (r / g.out_h) % c.n_blocks, n = r / (g.out_h * c.n_blocks);
    const int64_t grp = blk / c.blocks_per_group, oc0 = grp * out_cg + (blk % c.blocks_per_group) * kOcBlock;
    const int64_t n_oc = std::min(kOcBlock, grp * out_cg + out_cg - oc0);
    const float* xg = c.in + (n * g.in_c + grp * in_cg) * in_plane;
    // A block past the group's last channel repeats that channel; its sums are not stored.
    const float* wrow[kOcBlock];
    for (int64_t j = 0; j < kOcBlock; ++j) wrow[j] = c.w + (oc0 + std::min(j, n_oc - 1)) * in_cg * taps;
    for (int64_t ow0 = 0; ow0 < g.out_w; ow0 += kOwBlock) {
      f32x8 acc[kOcBlock];
      for (int64_t j = 0; j < kOcBlock; ++j) acc[j] = f32x8{} + (c.bias && j < n_oc ? c.bias[oc0 + j] : 0.0f);
      // Input channels in chunks of 8, taps, then the chunk's channels: the inner loop is one
      // vector load, 4 weights and 4 multiply-adds per channel with the bounds settled once
      // per tap, and a chunk's rows stay in L1 across its taps (planes a power of two apart
      // map to the same cache sets, so all 64 channels' rows at once would not).
      for (int64_t ic0 = 0; ic0 < in_cg; ic0 += kIcChunk) {
        const int64_t ic1 = std::min(in_cg, ic0 + kIcChunk);
        for (int64_t kh = 0; kh < g.k_h; ++kh) {
          const int64_t ih = oh * g.stride_h - g.pad_h + kh * g.dil_h;
          if (ih < 0 || ih >= g.in_h) continue;
          for (int64_t kw = 0; kw < g.k_w; ++kw) {
            const int64_t iw0 = ow0 * g.stride_w - g.pad_w + kw * g.dil_w;
            const bool inside = iw0 >= 0 && iw0 + (kOwBlock - 1) * g.stride_w < g.in_w && ow0 + kOwBlock <= g.out_w;
            const float* x0 = xg + ih * g.in_w;
            const int64_t tap = kh * g.k_w + kw;
            const float *w0 = wrow[0] + tap, *w1 = wrow[1] + tap, *w2 = wrow[2] + tap, *w3 = wrow[3] + tap;
            if (inside && g.stride_w == 1) {
              for (int64_t ic = ic0; ic < ic1; ++ic) {
                f32x8 xv;
                WICK_F32X8_LOAD(xv, x0 + ic * in_plane + iw0);
                const int64_t wi = ic * taps;
                acc[0] += w0[wi] * xv;
                acc[1] += w1[wi] * xv;
                acc[2] += w2[wi] * xv;
                acc[3] += w3[wi] * xv;
              }
            } else {
              for (int64_t ic = ic0; ic < ic1; ++ic) {
                const float* xr = x0 + ic * in_plane;
                float xs[kOwBlock];
                if (inside) {  // strided: no bounds to check, still a gather
                  for (int64_t t = 0; t < kOwBlock; ++t) xs[t] = xr[iw0 + t * g.stride_w];
                } else {
                  for (int64_t t = 0; t < kOwBlock; ++t) {
                    const int64_t iw = iw0 + t * g.stride_w;
                    xs[t] = iw >= 0 && iw < g.in_w && ow0 + t < g.out_w ? xr[iw] : 0.0f;
                  }
                }
                f32x8 xv;
                WICK_F32X8_LOAD(xv, xs);
                const int64_t wi = ic * taps;
                acc[0] += w0[wi] * xv;
                acc[1] += w1[wi] * xv;
                acc[2] += w2[wi] * xv;
                acc[3] += w3[wi] * xv;
              }
            }
          }
        }
      }
      const int64_t n_ow = std::min(kOwBlock, g.out_w - ow0);
      for (int64_t j = 0; j < n_oc; ++j) {
        float* orow = c.out + (n * g.out_c + oc0 + j) * out_plane + oh * g.out_w + ow0;
        if (n_ow == kOwBlock) {
          WICK_F32X8_STORE(orow, acc[j]);
        } else {
          float ys[kOwBlock];
          WICK_F32X8_STORE(ys, acc[j]);
          for (int64_t t = 0; t < n_ow; ++t) orow[t] = ys[t];
        }
      }
    }
  }
}

void conv2d_blocked(const float* in, const float* w, const float* bias, float* out, ConvGeometry g) {
  // A 1x1 convolution with stride 1 and no padding reads no neighbours: its planes are one
  // long row, so the 8-column blocks run full over H*W pixels instead of leaving most of a
  // block empty on MobileNet's 7- and 14-wide planes.
  if (g.k_h == 1 && g.k_w == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_h == 0 && g.pad_w == 0) {
    g.in_w = g.out_w = g.out_h * g.out_w;
    g.in_h = g.out_h = 1;
  }
  const int64_t in_cg = g.in_c / g.groups, out_cg = g.out_c / g.groups;
  const int64_t taps = g.k_h * g.k_w;
  const int64_t blocks_per_group = (out_cg + kOcBlock - 1) / kOcBlock;
  const int64_t n_blocks = g.groups * blocks_per_group;
  const BlockedConv c{in, w, bias, out, g, blocks_per_group, n_blocks};
  const int64_t rows = g.batch * n_blocks * g.out_h;
  // Chunks of at least ~64k multiply-adds: smaller ones cost more to hand out than they save.
  const int64_t row_cost = std::max<int64_t>(1, g.out_w * kOcBlock * in_cg * taps);
  parallel_for(rows, std::max<int64_t>(1, 65536 / row_cost),
               [&](int64_t begin, int64_t end) { conv2d_blocked_rows(c, begin, end); });
}

// Transposed convolution scatters each input pixel through the kernel; weight is
// [in_c, out_c / groups, k_h, k_w].
template <class T>
void conv_transpose2d(const T* in, const T* w, const T* bias, T* out, const ConvGeometry& g) {
  const int64_t in_cg = g.in_c / g.groups, out_cg = g.out_c / g.groups;
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t oc = 0; oc < g.out_c; ++oc) {
      T* o = out + (n * g.out_c + oc) * out_plane;
      std::fill(o, o + out_plane, bias ? bias[oc] : T(0));
    }
    for (int64_t ic = 0; ic < g.in_c; ++ic) {
      const int64_t grp = ic / in_cg;
      const T* x = in + (n * g.in_c + ic) * in_plane;
      for (int64_t ocg = 0; ocg < out_cg; ++ocg) {
        T* o = out + (n * g.out_c + grp * out_cg + ocg) * out_plane;
        const T* wk = w + (ic * out_cg + ocg) * g.k_h * g.k_w;
        for (int64_t kh = 0; kh < g.k_h; ++kh) {
          for (int64_t kw = 0; kw < g.k_w; ++kw) {
            const T wv = wk[kh * g.k_w + kw];
            for (int64_t ih = 0; ih < g.in_h; ++ih) {
              const int64_t oh = ih * g.stride_h - g.pad_h + kh * g.dil_h;
              if (oh < 0 || oh >= g.out_h) continue;
              for (int64_t iw = 0; iw < g.in_w; ++iw) {
                const int64_t ow = iw * g.stride_w - g.pad_w + kw * g.dil_w;
                if (ow < 0 || ow >= g.out_w) continue;
                o[oh * g.out_w + ow] += wv * x[ih * g.in_w + iw];
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

// convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding,
//   SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups, *, Tensor(a!) out)
Status convolution_out(ValueTable& values, std::span<const int32_t> args) {
  Tensor *input{}, *weight{}, *bias{}, *out{};
  std::vector<int64_t> stride_v, padding_v, dilation_v, out_pad_v;
  bool transposed = false;
  int64_t groups = 0;
  WICK_RETURN_IF_ERROR(read_args(kOp, values, args, 11, arg(input, "input"), arg(weight, "weight"),
                                 optional_arg(bias, "bias"), arg(stride_v, "stride"), arg(padding_v, "padding"),
                                 arg(dilation_v, "dilation"), arg(transposed, "transposed"),
                                 arg(out_pad_v, "output_padding"), arg(groups, "groups"), arg(out, "out")));

  WICK_RETURN_IF_ERROR(check_floating(kOp, *input, "input"));
  WICK_RETURN_IF_ERROR(check_tensor(kOp, *weight, "weight"));
  WICK_RETURN_IF_ERROR(check_same_dtype(kOp, *input, "input", *weight, "weight"));
  WICK_RETURN_IF_ERROR(check_same_dtype(kOp, *input, "input", *out, "out"));
  if (bias) {
    WICK_RETURN_IF_ERROR(check_tensor(kOp, *bias, "bias"));
    WICK_RETURN_IF_ERROR(check_same_dtype(kOp, *input, "input", *bias, "bias"));
  }
  const int rank = input->dim();
  if (rank != 3 && rank != 4)
    return not_supported(kOp, "input rank " + std::to_string(rank) + ", expected 3 (conv1d) or 4 (conv2d)");
  if (weight->dim() != rank)
    return invalid_arg(kOp, "weight rank " + std::to_string(weight->dim()) + ", expected " + std::to_string(rank) +
                                " for input " + input->shape_string());
  const size_t spatial = static_cast<size_t>(rank - 2);
  WICK_ASSIGN_OR_RETURN(auto stride, expand_param(stride_v, spatial, "stride"));
  WICK_ASSIGN_OR_RETURN(auto padding, expand_param(padding_v, spatial, "padding"));
  WICK_ASSIGN_OR_RETURN(auto dilation, expand_param(dilation_v, spatial, "dilation"));
  std::vector<int64_t> out_pad(spatial, 0);
  if (transposed) {
    WICK_ASSIGN_OR_RETURN(out_pad, expand_param(out_pad_v, spatial, "output_padding"));
  }
  WICK_RETURN_IF_ERROR(check_geometry(kOp, "stride", stride, 1));
  WICK_RETURN_IF_ERROR(check_geometry(kOp, "dilation", dilation, 1));
  WICK_RETURN_IF_ERROR(check_geometry(kOp, "padding", padding, 0));
  WICK_RETURN_IF_ERROR(check_geometry(kOp, "output_padding", out_pad, 0));
  WICK_RETURN_IF_ERROR(check_geometry(kOp, "groups", std::span<const int64_t>(&groups, 1), 1));
  for (size_t i = 0; i < spatial; ++i)
    if (out_pad[i] >= stride[i] && out_pad[i] >= dilation[i])
      return invalid_arg(kOp, "output_padding must be smaller than stride or dilation");

  ConvGeometry g{};
  g.batch = input->size(0);
  g.in_c = input->size(1);
  g.in_h = rank == 4 ? input->size(2) : 1;
  g.in_w = input->size(rank - 1);
  g.k_h = rank == 4 ? weight->size(2) : 1;
  g.k_w = weight->size(rank - 1);
  g.stride_h = rank == 4 ? stride[0] : 1;
  g.stride_w = stride[spatial - 1];
  g.pad_h = rank == 4 ? padding[0] : 0;
  g.pad_w = padding[spatial - 1];
  g.dil_h = rank == 4 ? dilation[0] : 1;
  g.dil_w = dilation[spatial - 1];
  g.groups = groups;
  const int64_t op_h = rank == 4 ? out_pad[0] : 0, op_w = out_pad[spatial - 1];

  if (g.in_c % groups != 0) return invalid_arg(kOp, "input channels " + std::to_string(g.in_c) + " not divisible by groups");
  if (transposed) {
    if (weight->size(0) != g.in_c)
      return invalid_arg(kOp, "weight " + weight->shape_string() + " does not match input channels " + std::to_string(g.in_c));
    g.out_c = weight->size(1) * groups;
    g.out_h = (g.in_h - 1) * g.stride_h - 2 * g.pad_h + g.dil_h * (g.k_h - 1) + op_h + 1;
    g.out_w = (g.in_w - 1) * g.stride_w - 2 * g.pad_w + g.dil_w * (g.k_w - 1) + op_w + 1;
  } else {
    g.out_c = weight->size(0);
    if (g.out_c % groups != 0) return invalid_arg(kOp, "output channels " + std::to_string(g.out_c) + " not divisible by groups");
    if (weight->size(1) * groups != g.in_c)
      return invalid_arg(kOp, "weight " + weight->shape_string() + " expects " + std::to_string(weight->size(1) * groups) +
                                  " input channels, input has " + std::to_string(g.in_c));
    g.out_h = (g.in_h + 2 * g.pad_h - g.dil_h * (g.k_h - 1) - 1) / g.stride_h + 1;
    g.out_w = (g.in_w + 2 * g.pad_w - g.dil_w * (g.k_w - 1) - 1) / g.stride_w + 1;
    if (g.in_h + 2 * g.pad_h < g.dil_h * (g.k_h - 1) + 1 || g.in_w + 2 * g.pad_w < g.dil_w * (g.k_w - 1) + 1)
      return invalid_arg(kOp, "kernel " + weight->shape_string() + " is larger than the padded input " + input->shape_string());
  }
  if (g.out_h <= 0 || g.out_w <= 0) return invalid_arg(kOp, "computed output size is empty for input " + input->shape_string());
  if (bias && (bias->dim() != 1 || bias->size(0) != g.out_c))
    return invalid_arg(kOp, "bias " + bias->shape_string() + ", expected [" + std::to_string(g.out_c) + "]");

  std::vector<int64_t> out_shape = {g.batch, g.out_c};
  if (rank == 4) out_shape.push_back(g.out_h);
  out_shape.push_back(g.out_w);
  WICK_RETURN_IF_ERROR(prepare_output(kOp, *out, out_shape));
  if (out->numel() == 0) return {};

  return visit_compute(compute_type_for(input->dtype), [&](auto tag) -> Status {
    using CT = typename decltype(tag)::type;
    std::vector<CT> si, sw, sb, so;
    const CT* x = elements_as<CT>(*input, si);
    const CT* w = elements_as<CT>(*weight, sw);
    const CT* b = bias ? elements_as<CT>(*bias, sb) : nullptr;
    CT* y = output_as<CT>(*out, so);
    if (transposed) conv_transpose2d(x, w, b, y, g);
    else if constexpr (std::is_same_v<CT, float>) {
      // Depthwise layers get their own kernel; wide groups the packed matrix product
      // (conv_gemm.cpp), whose 6-channel blocks narrow groups would leave mostly empty.
      const int64_t in_cg = g.in_c / g.groups, out_cg = g.out_c / g.groups;
      if (in_cg == 1 && g.groups > 1 && g.k_w <= kMaxDepthwiseKernel && g.stride_w <= kMaxDepthwiseKernel)
        conv2d_depthwise(x, w, b, y, g);
      else if (out_cg >= kGemmMinChannels) conv2d_gemm(x, w, b, y, g);
      else if (g.stride_w == 1) conv2d_narrow(x, w, b, y, g);
      else if (out_cg >= 2) conv2d_blocked(x, w, b, y, g);
      else conv2d(x, w, b, y, g);
    } else {
      conv2d(x, w, b, y, g);
    }
    finish_output(*out, so);
    return {};
  });
}

// et_vk conv_with_clamp.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//   SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
//   SymInt groups, Scalar? output_min, Scalar? output_max, *, Tensor(a!) out):
// a convolution whose result is clamped to [output_min, output_max] (None: unbounded).
Status et_vk_conv_with_clamp_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::conv_with_clamp.out";
  KernelArgs a(op, values, args);
  WICK_RETURN_IF_ERROR(a.expect_count(13));
  WICK_ASSIGN_OR_RETURN(auto lo, a.optional_scalar(9, "output_min"));
  WICK_ASSIGN_OR_RETURN(auto hi, a.optional_scalar(10, "output_max"));
  const int32_t conv_args[] = {args[0], args[1], args[2], args[3], args[4], args[5],
                               args[6], args[7], args[8], args[11], args[12]};
  WICK_RETURN_IF_ERROR(convolution_out(values, conv_args).with_context(op));
  WICK_ASSIGN_OR_RETURN(Tensor * out, a.tensor(11, "out"));
  if (out->dtype != ScalarType::kFloat) return not_supported(op, "out must be float32");
  const float l = lo ? static_cast<float>(lo->to_double()) : -INFINITY;
  const float h = hi ? static_cast<float>(hi->to_double()) : INFINITY;
  float* y = out->data_as<float>();
  for (int64_t i = 0, n = out->numel(); i < n; ++i) y[i] = std::min(std::max(y[i], l), h);
  return {};
}

}  // namespace wick::cpu
