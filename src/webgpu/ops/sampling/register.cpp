// aten.grid_sampler_2d -> grid_sampler_2d.wgsl: bilinear or nearest sampling with zeros or
// border padding, either align_corners. (ExecuTorch's Vulkan partitioner delegates only
// bilinear + border + align_corners; the rest is here for programs that carry it anyway.)
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

constexpr uint32_t kWorkgroup = 256;

struct GridParams {
  uint32_t n, c, h_in, w_in, h_out, w_out, total, flags;
};
static_assert(sizeof(GridParams) == gpu::wgsl_size::grid_sampler_params_Params);

// [input [N, C, H, W], grid [N, Ho, Wo, 2], interpolation_mode, padding_mode, align_corners, out]
Status grid_sampler_2d(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *in = a.tensor(0), *grid = a.tensor(1), *out = a.out();
  const int64_t interp = a.integer(2), padding = a.integer(3);
  const bool align = a.flag(4);
  WICK_RETURN_IF_ERROR(a.expect_float({in, grid, out}, "input, grid and out must be float"));
  if (interp != 0 && interp != 1)
    return a.unsupported("interpolation_mode " + std::to_string(interp) + " (0 bilinear, 1 nearest only)");
  if (padding != 0 && padding != 1)
    return a.unsupported("padding_mode " + std::to_string(padding) + " (0 zeros, 1 border only)");
  if (in->rank() != 4 || grid->rank() != 4 || out->rank() != 4) return a.invalid("input, grid and out must be 4-D");
  if (out->buffer == in->buffer || out->buffer == grid->buffer) return a.unsupported("output aliases an input");
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::grid_sampler_2d).set("wg_size", kWorkgroup).set("mode", static_cast<uint32_t>(interp)), sizeof(GridParams),
      {in->buffer.get(), grid->buffer.get(), out->buffer.get(), kParamsSlot}));
  const uint32_t flags = (align ? 1u : 0u) | (padding == 1 ? 2u : 0u);
  return g.add_step([=, &g]() -> Status {
    const auto& id = in->dims;
    const auto& gd = grid->dims;
    if (gd[0] != id[0] || gd[3] != 2)
      return op_error(ErrorCode::kInvalidArgument, name,
                      "grid " + shape_to_string(gd) + " must be [N, Ho, Wo, 2] for input " + shape_to_string(id));
    std::vector<int64_t> shape = {id[0], id[1], gd[1], gd[2]};
    WICK_RETURN_IF_ERROR(set_output_dims(name, out, shape));
    GridParams p{static_cast<uint32_t>(id[0]), static_cast<uint32_t>(id[1]), static_cast<uint32_t>(id[2]),
                 static_cast<uint32_t>(id[3]), static_cast<uint32_t>(gd[1]), static_cast<uint32_t>(gd[2]),
                 static_cast<uint32_t>(shape_numel(shape)), flags};
    return kernel.launch(g, p, p.total, kWorkgroup);
  });
}

}  // namespace

void append_sampling_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {{"aten.grid_sampler_2d.default", "T T I I B -> T", grid_sampler_2d}});
}

}  // namespace wick::webgpu
