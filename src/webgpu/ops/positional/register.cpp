// Position-dependent ops of vision models:
//   et_vk.apply_rotary_emb_interleaved  EdgeTAM's pair-interleaved RoPE (rope_interleaved.wgsl)
//   et_vk.grid_priors                   anchor centers of a feature map (grid_priors.wgsl)
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"

namespace wick::webgpu {

namespace {

constexpr uint32_t kWorkgroup = 256;

struct RopeParams {
  uint32_t pairs, n, c, pad0;
};

// [x [B, N, C], freqs_cis (any rank, N * C elements), out]
Status apply_rotary_emb_interleaved(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *freqs = a.tensor(1), *out = a.out();
  WICK_RETURN_IF_ERROR(a.expect_float({x, freqs, out}, "x, freqs_cis and out must be float"));
  if (x->rank() != 3) return a.unsupported("x must be [B, N, C], got " + shape_to_string(x->max_dims));
  if (out->buffer == x->buffer || out->buffer == freqs->buffer) return a.unsupported("output aliases an input");
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey("rope_interleaved").set("wg_size", kWorkgroup), sizeof(RopeParams),
      {x->buffer.get(), freqs->buffer.get(), out->buffer.get(), kParamsSlot}));
  return g.add_step([=, &g]() -> Status {
    const int64_t n = x->dims[1], c = x->dims[2];
    if (c % 2 != 0) return op_error(ErrorCode::kInvalidArgument, name, "C = " + std::to_string(c) + " is odd");
    if (freqs->numel() != n * c)
      return op_error(ErrorCode::kInvalidArgument, name,
                      "freqs_cis " + shape_to_string(freqs->dims) + " does not hold N x C = " + std::to_string(n) + " x " +
                          std::to_string(c) + " values");
    WICK_RETURN_IF_ERROR(set_output_dims(name, out, x->dims));
    RopeParams p{static_cast<uint32_t>(x->numel() / 2), static_cast<uint32_t>(n), static_cast<uint32_t>(c), 0};
    return kernel.launch(g, p, p.pairs, kWorkgroup);
  });
}

struct PriorsParams {
  uint32_t hw, w;
  float stride, offset;
};

// [self (only its last two dims are read), stride (Int), offset (Double), out [H * W, 2]]
Status grid_priors(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *out = a.out();
  const double stride = a.scalar(1), offset = a.scalar(2);
  WICK_RETURN_IF_ERROR(a.expect_float({out}, "out must be float"));
  if (x->rank() < 2) return a.invalid("self must have at least 2 dims");
  if (out->rank() != 2 || out->max_dims[1] != 2) return a.invalid("out must be [H * W, 2], got " + shape_to_string(out->max_dims));
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey("grid_priors").set("wg_size", kWorkgroup), sizeof(PriorsParams),
      {out->buffer.get(), kParamsSlot}));
  return g.add_step([=, &g]() -> Status {
    const int64_t h = x->dims[x->dims.size() - 2], w = x->dims.back();
    if (h * w > out->max_dims[0])
      return op_error(ErrorCode::kInvalidArgument, name,
                      std::to_string(h) + " x " + std::to_string(w) + " priors do not fit the output " + shape_to_string(out->max_dims));
    out->dims = {h * w, 2};
    PriorsParams p{static_cast<uint32_t>(h * w), static_cast<uint32_t>(w), static_cast<float>(stride),
                   static_cast<float>(offset)};
    return kernel.launch(g, p, p.hw, kWorkgroup);
  });
}

}  // namespace

void append_positional_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"et_vk.apply_rotary_emb_interleaved.default", "T T -> T", apply_rotary_emb_interleaved},
      {"et_vk.grid_priors.default", "T F F -> T", grid_priors},
  });
}

}  // namespace wick::webgpu
