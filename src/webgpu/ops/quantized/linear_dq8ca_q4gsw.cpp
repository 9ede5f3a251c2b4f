// et_vk.linear_dq8ca_q4gsw -> linear_dq8ca_q4gsw.wgsl: 8-bit dynamic per-row activation
// quantization times 4-bit group-wise weights, as the Vulkan pattern quantized_linear.py
// emits it for torchao's 8da4w: [input, input_scales fp32 [M], input_zp int8 [M], weights
// uint8 [N, K/2], weight_sums (unused), weight_scales fp32 [groups, n_pad], group_size,
// bias?, out].
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

constexpr uint32_t kWorkgroup = 64;

// The q4gsw family's uniform (q4gsw_params.inc.wgsl), `aligned` unused here.
struct Dq8Q4Params {
  uint32_t m, n, k, k_packed, group_size, n_pad, has_bias, aligned;
};
static_assert(sizeof(Dq8Q4Params) == gpu::wgsl_size::q4gsw_params_Params);

// [x, input_scales, input_zp, weight, weight_sums, weight_scales, group_size, bias?, out]
Status linear_dq8ca_q4gsw(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *in_scale = a.tensor(1), *in_zp = a.tensor(2), *w = a.tensor(3), *scales = a.tensor(5);
  GpuTensor *bias = a.tensor(7), *y = a.out();
  const int64_t group_size = a.integer(6);
  if (!x->is_float() || !in_scale->is_float() || !scales->is_float() || !y->is_float() || (bias && !bias->is_float()))
    return a.unsupported("input, input_scales, weight_scales, bias and output must be float");
  if (in_zp->elem != Elem::kI32) return a.unsupported("input_zp must be an int8 or int32 tensor");
  if (w->elem != Elem::kPackedBytes || w->rank() != 2)
    return a.unsupported("weights must be a uint8 [N, K / 2] constant");
  if (scales->rank() != 2) return a.invalid("weight_scales must be 2-D");
  if (x->rank() < 1 || y->rank() != x->rank()) return a.invalid("input and output ranks differ");
  const int64_t k = x->max_dims.back(), n = y->max_dims.back(), k_packed = w->max_dims[1];
  const int64_t groups = scales->max_dims[0], n_pad = scales->max_dims[1];
  if (group_size <= 0) return a.invalid("group_size must be positive");
  if (k <= 0 || k_packed * 2 < k || w->max_dims[0] < n)
    return a.invalid("weights " + shape_to_string(w->max_dims) + " do not cover K=" +
                                                      std::to_string(k) + ", N=" + std::to_string(n));
  if (groups * group_size < k || n_pad < n)
    return a.invalid("weight_scales " + shape_to_string(scales->max_dims) + " do not cover K=" +
                                                      std::to_string(k) + ", N=" + std::to_string(n));
  if (bias && bias->max_numel() < n) return a.invalid("bias shorter than N");
  if (y->buffer == x->buffer) return a.unsupported("output aliases the input");
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::linear_dq8ca_q4gsw).set("wg_size", kWorkgroup), sizeof(Dq8Q4Params),
      {x->buffer.get(), w->buffer.get(), scales->buffer.get(), bias ? bias->buffer.get() : scales->buffer.get(), y->buffer.get(), kParamsSlot, in_scale->buffer.get(), in_zp->buffer.get()}));
  Dq8Q4Params base{0, static_cast<uint32_t>(n), static_cast<uint32_t>(k), static_cast<uint32_t>(k_packed),
                   static_cast<uint32_t>(group_size), static_cast<uint32_t>(n_pad), bias ? 1u : 0u, 0};
  return g.add_step([=, &g]() -> Status {
    WICK_ASSIGN_OR_RETURN(const int64_t m, set_linear_output(name, x, k, n, y));
    if (in_scale->numel() < m || in_zp->numel() < m)
      return op_error(ErrorCode::kInvalidArgument, name, "input_scales " + shape_to_string(in_scale->dims) + " / input_zp " +
                                                         shape_to_string(in_zp->dims) + " hold fewer than the " +
                                                         std::to_string(m) + " input rows");
    Dq8Q4Params p = base;
    p.m = static_cast<uint32_t>(m);
    return kernel.launch(g, p, static_cast<uint64_t>(m) * static_cast<uint64_t>(n), kWorkgroup);
  });
}

}  // namespace

void append_linear_dq8ca_q4gsw_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {{"et_vk.linear_dq8ca_q4gsw.default", "T T T T * T I T? -> T", linear_dq8ca_q4gsw}});
}

}  // namespace wick::webgpu
