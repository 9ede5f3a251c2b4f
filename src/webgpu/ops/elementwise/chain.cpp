// A fused elementwise chain (chain_fusion.h) -> elementwise_chain.wgsl: one dispatch over
// the chain's output, its steps as pipeline constants (one pipeline per chain signature).
#include <string>

#include "webgpu/chain_fusion.h"
#include "webgpu/graph.h"
#include "webgpu/ops/elementwise/broadcast.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"

namespace wick::webgpu {

namespace {

struct ChainParams {
  uint32_t n, rank, pad0, pad1;
  std::array<uint32_t, kMaxElementwiseRank> out_dims;
  std::array<std::array<uint32_t, kMaxElementwiseRank>, kMaxChainOperands> strides;
  std::array<float, 2 * kMaxChainSteps> consts;  // per step: constant, alpha
};
static_assert(sizeof(ChainParams) == 16 + 32 + 6 * 32 + 64);

constexpr uint32_t kWorkgroup = 256;

}  // namespace

Status build_elementwise_chain(Graph& g, const ElementwiseChain& chain, const char* name) {
  if (chain.steps.empty() || chain.steps.size() > kMaxChainSteps || chain.operands.empty() ||
      chain.operands.size() > kMaxChainOperands)
    return Status(ErrorCode::kInternal, std::string(name) + ": malformed elementwise chain");
  std::vector<GpuTensor*> ops;
  for (int32_t id : chain.operands) {
    WICK_ASSIGN_OR_RETURN(GpuTensor * t, g.tensor(id, name));
    ops.push_back(t);
  }
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(chain.out_id, name));
  gpu::PipelineKey key(gpu::shaders::elementwise_chain);
  key.set("wg_size", kWorkgroup).set("per", kElementsPerThread).set("nsteps", static_cast<uint32_t>(chain.steps.size()));
  key.set("nops", static_cast<uint32_t>(ops.size()));
  for (size_t k = 0; k < chain.steps.size(); ++k) {
    const ChainStep& s = chain.steps[k];
    const uint32_t word = s.code | (static_cast<uint32_t>(s.operand + 1) << 8) | (s.swapped ? 0x1000u : 0u);
    key.set("s" + std::to_string(k), word);
  }
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(key));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(ChainParams), name));
  gpu::Dispatch d;
  d.pipeline = pipeline;
  for (uint32_t j = 0; j < kMaxChainOperands; ++j)
    d.bindings.push_back({j, (j < ops.size() ? ops[j] : ops[0])->buffer.get()});
  d.bindings.push_back({static_cast<uint32_t>(kMaxChainOperands), out->buffer.get()});
  d.bindings.push_back({static_cast<uint32_t>(kMaxChainOperands + 1), params->buffer()});
  d.label = std::string(name) + " chain" + std::to_string(chain.steps.size()) + " elementwise_chain";
  WICK_ASSIGN_OR_RETURN(size_t index, g.add_dispatch(std::move(d)));

  const std::vector<ChainStep> steps = chain.steps;
  return g.add_step([=, &g]() -> Status {
    const std::vector<int64_t> shape = ops[0]->dims;
    for (size_t j = 1; j < ops.size(); ++j) {
      WICK_ASSIGN_OR_RETURN(auto b, broadcast_shapes(shape, ops[j]->dims));
      if (b != shape)
        return Status(ErrorCode::kInvalidArgument, std::string(name) + ": a fused operand of shape " +
                                                       shape_to_string(ops[j]->dims) + " grows the chain's " +
                                                       shape_to_string(shape));
    }
    WICK_RETURN_IF_ERROR(set_output_dims(name, out, shape));
    ChainParams p{};
    p.n = static_cast<uint32_t>(shape_numel(shape));
    p.rank = static_cast<uint32_t>(shape.size());
    p.out_dims = dims_array(shape);
    for (size_t j = 0; j < ops.size(); ++j) p.strides[j] = broadcast_strides(ops[j]->dims, shape);
    p.rank = coalesce_dims(p.rank, p.out_dims,
                           {&p.strides[0], &p.strides[1], &p.strides[2], &p.strides[3], &p.strides[4], &p.strides[5]});
    for (size_t k = 0; k < steps.size(); ++k) {
      p.consts[2 * k] = steps[k].constant;
      p.consts[2 * k + 1] = steps[k].alpha;
    }
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(index, elementwise_threads(p.n), kWorkgroup);
  });
}

}  // namespace wick::webgpu
