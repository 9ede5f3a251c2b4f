// et_vk.embedding_q4gsw -> embedding_q4gsw.wgsl: rows of a 4-bit group-wise quantized
// embedding table (shared/spec/ops.md §5.2; ExecuTorch's embedding_q4gsw_impl in
// backends/vulkan/custom_ops_lib.py): weight uint8 [vocab, dim / 2], scales fp32
// [vocab, groups] (not transposed, unlike linear_q4gsw's), indices of any shape.
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

constexpr uint32_t kWorkgroup = 256;

struct EmbedQ4Params {
  uint32_t total, dim, vocab, row_bytes, groups, group_size, linear, pad0;
};
static_assert(sizeof(EmbedQ4Params) == gpu::wgsl_size::embedding_q4gsw_params_Params);

// [weight, weight_scales, group_size, indices, is_linear_weight, out]
Status embedding_q4gsw(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *w = a.tensor(0), *scales = a.tensor(1), *indices = a.tensor(3), *out = a.out();
  const int64_t group_size = a.integer(2);
  const bool linear = a.integer_or(4, 0) != 0;
  if (w->elem != Elem::kPackedBytes || w->rank() != 2)
    return a.unsupported("weight must be a uint8 [vocab, dim / 2] tensor");
  if (!scales->is_float() || !out->is_float()) return a.unsupported("scales and out must be float");
  if (indices->elem != Elem::kI32 || indices->vk_dtype == vk::VkDataType::BOOL)
    return a.unsupported("indices must be integer");
  const int64_t vocab = w->max_dims[0], row_bytes = w->max_dims[1], dim = out->max_dims.empty() ? 0 : out->max_dims.back();
  if (group_size <= 0) return a.invalid("group_size " + std::to_string(group_size) + " must be positive");
  if (dim <= 0 || dim > 2 * row_bytes)
    return a.invalid("output " + shape_to_string(out->max_dims) + " does not end in a dim the weight " +
                                                      shape_to_string(w->max_dims) + " holds");
  const int64_t groups = scales->rank() == 2 ? scales->max_dims[1] : 0;
  if (scales->rank() != 2 || scales->max_dims[0] < vocab || groups * group_size < dim)
    return a.invalid("scales " + shape_to_string(scales->max_dims) + " do not cover [" +
                                                      std::to_string(vocab) + ", " + std::to_string(dim) + " / " +
                                                      std::to_string(group_size) + "]");
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::embedding_q4gsw).set("wg_size", kWorkgroup), sizeof(EmbedQ4Params),
      {w->buffer.get(), scales->buffer.get(), indices->buffer.get(), out->buffer.get(), kParamsSlot}));
  const EmbedQ4Params base{0,
                           static_cast<uint32_t>(dim),
                           static_cast<uint32_t>(vocab),
                           static_cast<uint32_t>(row_bytes),
                           static_cast<uint32_t>(groups),
                           static_cast<uint32_t>(group_size),
                           linear ? 1u : 0u,
                           0};
  return g.add_step([=, &g]() -> Status {
    std::vector<int64_t> shape = indices->dims;
    shape.push_back(dim);
    WICK_RETURN_IF_ERROR(set_output_dims(name, out, shape));
    EmbedQ4Params p = base;
    p.total = static_cast<uint32_t>(shape_numel(shape));
    return kernel.launch(g, p, p.total, kWorkgroup);
  });
}

}  // namespace

void append_embedding_q4gsw_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {{"et_vk.embedding_q4gsw.default", "T T I T B? -> T", embedding_q4gsw}});
}

}  // namespace wick::webgpu
