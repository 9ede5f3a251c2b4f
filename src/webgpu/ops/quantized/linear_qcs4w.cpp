// et_vk.linear_qcs4w -> linear_qcs4w.wgsl: fp32 activations times 4-bit per-channel symmetric
// weights (shared/spec/ops.md §5.3), as ExecuTorch's Vulkan pass fuse_quantized_ops.py emits
// it for dequantize_per_channel(int4-range int8 weight) + linear: [x, weight, scales, out].
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

constexpr uint32_t kWorkgroup = 64;

struct Qcs4wParams {
  uint32_t m, n, k, row_bytes;
};
static_assert(sizeof(Qcs4wParams) == gpu::wgsl_size::linear_qcs4w_params_Params);

// [x, weight, weight_scales, out]
Status linear_qcs4w(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *w = a.tensor(1), *scales = a.tensor(2), *y = a.out();
  if (!x->is_float() || !scales->is_float() || !y->is_float())
    return a.unsupported("input, scales and output must be float");
  if (w->elem != Elem::kPackedBytes || w->rank() != 2)
    return a.unsupported("weight must be a uint8 [N, K / 2] tensor");
  if (x->rank() < 1 || y->rank() != x->rank()) return a.invalid("input and output ranks differ");
  const int64_t k = x->max_dims.back(), n = y->max_dims.back(), row_bytes = w->max_dims[1];
  if (k <= 0 || w->max_dims[0] < n || row_bytes != (k + 1) / 2)
    return a.invalid("weight " + shape_to_string(w->max_dims) + " does not hold N=" +
                                                      std::to_string(n) + ", K=" + std::to_string(k));
  if (scales->max_numel() < n)
    return a.invalid("scales " + shape_to_string(scales->max_dims) + " shorter than N=" + std::to_string(n));
  if (y->buffer == x->buffer) return a.unsupported("output aliases the input");
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::linear_qcs4w).set("wg_size", kWorkgroup), sizeof(Qcs4wParams),
      {x->buffer.get(), w->buffer.get(), scales->buffer.get(), y->buffer.get(), kParamsSlot}));
  return g.add_step([=, &g]() -> Status {
    WICK_ASSIGN_OR_RETURN(const int64_t m, set_linear_output(name, x, k, n, y));
    const Qcs4wParams p{static_cast<uint32_t>(m), static_cast<uint32_t>(n), static_cast<uint32_t>(k),
                        static_cast<uint32_t>(row_bytes)};
    return kernel.launch(g, p, static_cast<uint64_t>(p.m) * p.n, kWorkgroup);
  });
}

}  // namespace

void append_linear_qcs4w_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {{"et_vk.linear_qcs4w.default", "T T T -> T", linear_qcs4w}});
}

}  // namespace wick::webgpu
