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

Status fail(ErrorCode code, const char* name, const std::string& what) {
  return Status(code, std::string(name) + ": " + what);
}

Status q4gsw_requant(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "et_vk.q4gsw_requant.default";
  if (args.size() != 4) return fail(ErrorCode::kInvalidProgram, name, "expected 4 arguments, got " + std::to_string(args.size()));
  WICK_ASSIGN_OR_RETURN(GpuTensor * latent, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * scales, g.tensor(args[1], name));
  WICK_ASSIGN_OR_RETURN(int64_t group_size, g.int_arg(args[2], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * y, g.tensor(args[3], name));
  if (!latent->is_float() || !scales->is_float()) return fail(ErrorCode::kNotSupported, name, "latent and scales must be float");
  if (y->elem != Elem::kI32 || (y->vk_dtype != vk::VkDataType::UINT8 && y->vk_dtype != vk::VkDataType::INT8))
    return fail(ErrorCode::kNotSupported, name, "output must be a non-constant uint8 tensor");
  if (latent->rank() != 2 || scales->rank() != 2 || y->rank() != 2)
    return fail(ErrorCode::kInvalidProgram, name, "expected latent [N, K], scales [groups, N], output [N, (K + 1) / 2]");
  const int64_t n = latent->max_dims[0], k = latent->max_dims[1];
  if (group_size <= 0) return fail(ErrorCode::kInvalidProgram, name, "group_size must be positive");
  if (n <= 0 || k <= 0 || y->max_dims[0] != n || y->max_dims[1] != (k + 1) / 2)
    return fail(ErrorCode::kInvalidProgram, name, "output " + shape_to_string(y->max_dims) + " is not [N, (K + 1) / 2] for latent " +
                                                      shape_to_string(latent->max_dims));
  if (scales->max_dims[0] * group_size < k || scales->max_dims[1] < n)
    return fail(ErrorCode::kInvalidProgram, name, "scales " + shape_to_string(scales->max_dims) + " do not cover K=" +
                                                      std::to_string(k) + ", N=" + std::to_string(n));
  WICK_ASSIGN_OR_RETURN(const KernelDispatch index_k, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::q4gsw_requant).set("wg_size", kWorkgroup), sizeof(RequantParams),
      {latent->buffer.get(), scales->buffer.get(), y->buffer.get(), kParamsSlot}));
  ParamsBlock* params = index_k.params;
  const size_t index = index_k.index;
  RequantParams p{static_cast<uint32_t>(n), static_cast<uint32_t>(k), static_cast<uint32_t>((k + 1) / 2),
                  static_cast<uint32_t>(group_size), static_cast<uint32_t>(scales->max_dims[1]), 0, 0, 0};
  return g.add_step([=, &g]() -> Status {
    if (latent->dims != latent->max_dims)
      return fail(ErrorCode::kNotSupported, name, "latent " + shape_to_string(latent->dims) + " is not its serialized shape");
    y->dims = y->max_dims;
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(index, static_cast<uint64_t>(p.n) * p.k_packed, kWorkgroup);
  });
}

}  // namespace

void append_q4gsw_requant_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {{"et_vk.q4gsw_requant.default", q4gsw_requant}});
}

}  // namespace wick::webgpu
