// et_vk.q8ta_conv2d, q8ta_conv2d_pw, q8ta_conv2d_dw, q8ta_conv2d_transposed -> q8ta_conv2d.wgsl
// (w_layout 0, 0, 1, 2). Arguments as quantized_convolution.py emits them (ops.md §2.11):
//   [x, input_scale, input_zero_point, weights, weight_sums, weight_scales, output_scale,
//    output_zero_point, bias?, kernel_size, stride, padding, (output_padding,) dilation,
//    groups, activation, out]
// weight_sums is for integer kernels that fold the input zero point afterwards; here each
// product subtracts it, so it is not read. Static shapes (the Vulkan ops do not resize).
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "webgpu/ops/q8ta/q8ta_args.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

using q8ta::fail;

constexpr uint32_t kWorkgroup = 64;

struct Q8ConvParams {
  uint32_t n, ic, ih, iw, oc, oh, ow, kh, kw, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups;
  uint32_t w_row, scale_period, has_bias, relu;
  int32_t in_zp, out_zp;
  float in_scale, out_inv_scale;
};
static_assert(sizeof(Q8ConvParams) == gpu::wgsl_size::q8ta_params_ConvParams);

enum Layout : uint32_t { kIm2col = 0, kDepthwise = 1, kTransposed = 2 };

Result<std::pair<int64_t, int64_t>> pair_arg(Graph& g, int32_t id, const char* name, const char* what, int64_t lo) {
  WICK_ASSIGN_OR_RETURN(std::vector<int64_t> v, g.int_list(id, name));
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2 || v[0] < lo || v[1] < lo)
    return fail(ErrorCode::kInvalidProgram, name, std::string(what) + " " + shape_to_string(v) + " is not 2 values >= " +
                                                      std::to_string(lo));
  return std::pair<int64_t, int64_t>{v[0], v[1]};
}

// variant = Layout. [x, in_scale, in_zp, weight, weight_sums, weight_scales, out_scale,
// out_zp, bias?, kernel_size, stride, padding, (output_padding,) dilation, groups,
// activation?, out]
Status build_conv(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  const Layout layout = a.variant_as<Layout>();
  const bool transposed = layout == kTransposed;
  GpuTensor *x = a.tensor(0), *w = a.tensor(3), *scales = a.tensor(5), *bias = a.tensor(8);
  WICK_ASSIGN_OR_RETURN(q8ta::QParams qi, q8ta::read_qparams(g, a.id(1), a.id(2), name, "input"));
  WICK_ASSIGN_OR_RETURN(q8ta::QParams qo, q8ta::read_qparams(g, a.id(6), a.id(7), name, "output"));
  WICK_ASSIGN_OR_RETURN(auto kernel, pair_arg(g, a.id(9), name, "kernel_size", 1));
  WICK_ASSIGN_OR_RETURN(auto stride, pair_arg(g, a.id(10), name, "stride", 1));
  WICK_ASSIGN_OR_RETURN(auto pad, pair_arg(g, a.id(11), name, "padding", 0));
  std::pair<int64_t, int64_t> out_pad{0, 0};
  const size_t at = transposed ? 13 : 12;
  if (transposed) {
    WICK_ASSIGN_OR_RETURN(out_pad, pair_arg(g, a.id(12), name, "output_padding", 0));
  }
  WICK_ASSIGN_OR_RETURN(auto dil, pair_arg(g, a.id(at), name, "dilation", 1));
  const int64_t groups = a.integer(at + 1);
  const std::string& act = a.str(at + 2);
  const bool relu = act == "relu";
  if (a.has(at + 2) && !relu && act != "none") return a.unsupported("activation \"" + act + "\"");
  GpuTensor* y = a.out();

  WICK_RETURN_IF_ERROR(q8ta::check_int8_activation(*x, name, "input"));
  WICK_RETURN_IF_ERROR(q8ta::check_int8_activation(*y, name, "output"));
  WICK_RETURN_IF_ERROR(q8ta::check_int8_weight(*w, name));
  if (x->rank() != 4 || y->rank() != 4) return fail(ErrorCode::kNotSupported, name, "input and output must be 4-D (NCHW)");
  const auto& xd = x->max_dims;
  const auto& yd = y->max_dims;
  const int64_t ic = xd[1], oc = yd[1];
  if (groups <= 0 || ic % groups != 0 || oc % groups != 0)
    return fail(ErrorCode::kInvalidProgram, name, "groups " + std::to_string(groups) + " do not divide " +
                                                      std::to_string(ic) + " input and " + std::to_string(oc) + " output channels");
  // The output size the exporter planned must be the convolution's.
  int64_t want_h, want_w;
  if (transposed) {
    want_h = (xd[2] - 1) * stride.first - 2 * pad.first + dil.first * (kernel.first - 1) + out_pad.first + 1;
    want_w = (xd[3] - 1) * stride.second - 2 * pad.second + dil.second * (kernel.second - 1) + out_pad.second + 1;
  } else {
    want_h = (xd[2] + 2 * pad.first - dil.first * (kernel.first - 1) - 1) / stride.first + 1;
    want_w = (xd[3] + 2 * pad.second - dil.second * (kernel.second - 1) - 1) / stride.second + 1;
  }
  if (yd[0] != xd[0] || yd[2] != want_h || yd[3] != want_w)
    return fail(ErrorCode::kInvalidProgram, name, "output " + shape_to_string(yd) + " does not match the convolution of " +
                                                      shape_to_string(xd) + " (expected H " + std::to_string(want_h) +
                                                      ", W " + std::to_string(want_w) + ")");
  const int64_t icg = ic / groups, taps = kernel.first * kernel.second;
  int64_t w_row;
  if (layout == kDepthwise) {
    if (groups != ic || ic != oc)
      return fail(ErrorCode::kInvalidProgram, name, "depthwise needs groups = input channels = output channels");
    if (w->rank() != 3 || w->max_dims[0] != kernel.first || w->max_dims[1] != kernel.second || w->max_dims[2] < oc)
      return fail(ErrorCode::kInvalidProgram, name, "weights " + shape_to_string(w->max_dims) + " are not [KH, KW, OC_pad]");
    w_row = w->max_dims[2];
  } else {
    if (w->rank() != 2 || w->max_dims[0] < oc || w->max_dims[1] < taps * icg)
      return fail(ErrorCode::kInvalidProgram, name, "weights " + shape_to_string(w->max_dims) + " are not [OC, KH*KW*IC/groups (padded)] = [" +
                                                        std::to_string(oc) + ", " + std::to_string(taps * icg) + "]");
    w_row = w->max_dims[1];
  }
  // Transposed weights are quantized along their OC-per-group axis: one scale per column.
  const int64_t scale_period = transposed ? oc / groups : oc;
  WICK_RETURN_IF_ERROR(q8ta::check_channel_vector(scales, scale_period, name, "weight_scales"));
  WICK_RETURN_IF_ERROR(q8ta::check_channel_vector(bias, oc, name, "bias"));
  if (y->buffer == x->buffer) return fail(ErrorCode::kNotSupported, name, "output aliases the input");

  WICK_ASSIGN_OR_RETURN(const KernelDispatch dispatch, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::q8ta_conv2d).set("wg_size", kWorkgroup).set("w_layout", static_cast<uint32_t>(layout)), sizeof(Q8ConvParams),
      {x->buffer.get(), w->buffer.get(), scales->buffer.get(), bias ? bias->buffer.get() : scales->buffer.get(), y->buffer.get(), kParamsSlot}));
  auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
  Q8ConvParams p{u(shape_numel(yd)), u(ic), u(xd[2]), u(xd[3]), u(oc), u(yd[2]), u(yd[3]), u(kernel.first),
                 u(kernel.second), u(stride.first), u(stride.second), u(pad.first), u(pad.second), u(dil.first),
                 u(dil.second), u(groups), u(w_row), u(scale_period), bias ? 1u : 0u, relu ? 1u : 0u,
                 qi.zp, qo.zp, qi.scale, qo.inv_scale};
  return g.add_step([=, &g]() -> Status {
    if (x->dims != x->max_dims)
      return fail(ErrorCode::kNotSupported, name, "input " + shape_to_string(x->dims) + " is not its serialized shape " +
                                                      shape_to_string(x->max_dims) + " (static shapes only)");
    y->dims = y->max_dims;
    return dispatch.launch(g, p, p.n, kWorkgroup);
  });
}

}  // namespace

void append_q8ta_conv_ops(std::vector<OpEntry>& ops) {
  // The scale and zero-point arguments are checked by q8ta::read_qparams.
  constexpr const char* kConv = "T * * T * T * * T? L L L L I S? -> T";
  ops.insert(ops.end(), {
      {"et_vk.q8ta_conv2d.default", kConv, build_conv, kIm2col},
      {"et_vk.q8ta_conv2d_pw.default", kConv, build_conv, kIm2col},
      {"et_vk.q8ta_conv2d_dw.default", kConv, build_conv, kDepthwise},
      {"et_vk.q8ta_conv2d_transposed.default", "T * * T * T * * T? L L L L L I S? -> T", build_conv, kTransposed},
  });
}

}  // namespace wick::webgpu
