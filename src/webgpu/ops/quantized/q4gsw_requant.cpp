// et_vk.q4gsw_requant -> q4gsw_requant.wgsl: the straight-through re-quantization step of
// 4-bit fine-tuning, fp32 latent weights [N, K] -> packed q4gsw bytes [N, (K + 1) / 2] with
// the frozen group scales [K / group_size (rounded up), N_pad]:
// [latent, scales, group_size, out]. The uint8 result is an activation, so one byte per
// i32 word (webgpu/graph.h).
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

constexpr uint32_t kWorkgroup = 64;

struct RequantParams {
  uint32_t n, k, k_packed, group_size, scale_row, pad0, pad1, pad2;
};
static_assert(sizeof(RequantParams) == gpu::wgsl_size::q4gsw_requant_params_RequantParams);

Status q4gsw_requant(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *latent = a.tensor(0), *scales = a.tensor(1), *y = a.out();
  const int64_t group_size = a.integer(2);
  if (!latent->is_float() || !scales->is_float()) return a.unsupported("latent and scales must be float");
  if (y->elem != Elem::kI32 || (y->vk_dtype != vk::VkDataType::UINT8 && y->vk_dtype != vk::VkDataType::INT8))
    return a.unsupported("output must be a non-constant uint8 tensor");
  if (latent->rank() != 2 || scales->rank() != 2 || y->rank() != 2)
    return a.invalid("expected latent [N, K], scales [groups, N], output [N, (K + 1) / 2]");
  const int64_t n = latent->max_dims[0], k = latent->max_dims[1];
  if (group_size <= 0) return a.invalid("group_size must be positive");
  if (n <= 0 || k <= 0 || y->max_dims[0] != n || y->max_dims[1] != (k + 1) / 2)
    return a.invalid("output " + shape_to_string(y->max_dims) + " is not [N, (K + 1) / 2] for latent " +
                                                      shape_to_string(latent->max_dims));
  if (scales->max_dims[0] * group_size < k || scales->max_dims[1] < n)
    return a.invalid("scales " + shape_to_string(scales->max_dims) + " do not cover K=" +
                                                      std::to_string(k) + ", N=" + std::to_string(n));
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::q4gsw_requant).set("wg_size", kWorkgroup), sizeof(RequantParams),
      {latent->buffer.get(), scales->buffer.get(), y->buffer.get(), kParamsSlot}));
  RequantParams p{static_cast<uint32_t>(n), static_cast<uint32_t>(k), static_cast<uint32_t>((k + 1) / 2),
                  static_cast<uint32_t>(group_size), static_cast<uint32_t>(scales->max_dims[1]), 0, 0, 0};
  return g.add_step([=, &g]() -> Status {
    if (latent->dims != latent->max_dims)
      return op_error(ErrorCode::kNotSupported, name, "latent " + shape_to_string(latent->dims) + " is not its serialized shape");
    y->dims = y->max_dims;
    return kernel.launch(g, p, static_cast<uint64_t>(p.n) * p.k_packed, kWorkgroup);
  });
}

}  // namespace

void append_q4gsw_requant_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {{"et_vk.q4gsw_requant.default", "T T I -> T", q4gsw_requant}});
}

}  // namespace wick::webgpu
