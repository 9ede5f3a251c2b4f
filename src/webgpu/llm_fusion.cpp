#include "webgpu/llm_fusion.h"

#include <string>

#include "webgpu/graph.h"
#include "webgpu/llm_gemv_fusion.h"
#include "wgsl/wick_gpu_shaders.h"

namespace wick::webgpu {

namespace {

constexpr uint32_t kWorkgroup = 256;

struct SiluMulParams {
  uint32_t n, pad0, pad1, pad2;
};

}  // namespace

LlmFusions plan_llm_fusions(const vkgraph::Plan& plan, const std::vector<bool>& skip_in, uint32_t max_storage_buffers) {
  LlmFusions f;
  std::vector<bool> skip = skip_in;
  plan_gemv_fusions(plan, skip, max_storage_buffers, f);
  const size_t n = plan.values.size();
  // Appearances of each value as an argument (ValueList members included); graph outputs count.
  std::vector<int> uses(n, 0);
  std::vector<int> producer(n, -1);  // the op whose last argument (its output) the value is
  auto count = [&](int32_t id) {
    if (id >= 0 && static_cast<size_t>(id) < n) ++uses[static_cast<size_t>(id)];
  };
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    for (int32_t id : plan.ops[i].args) {
      count(id);
      if (id >= 0 && static_cast<size_t>(id) < n && plan.values[static_cast<size_t>(id)].kind == vkgraph::ValueKind::kValueList)
        for (int32_t item : plan.values[static_cast<size_t>(id)].items) count(item);
    }
    if (!plan.ops[i].args.empty() && plan.ops[i].args.back() >= 0 && static_cast<size_t>(plan.ops[i].args.back()) < n)
      producer[static_cast<size_t>(plan.ops[i].args.back())] = static_cast<int>(i);
  }
  for (int32_t id : plan.output_ids) count(id), count(id);  // never fused away
  auto is_float_tensor = [&](int32_t id) {
    if (id < 0 || static_cast<size_t>(id) >= n) return false;
    const vkgraph::ValueDecl& v = plan.values[static_cast<size_t>(id)];
    return v.kind == vkgraph::ValueKind::kTensor && !v.tensor.is_constant() && vkgraph::vk_is_float(v.tensor.dtype);
  };
  auto same_dims = [&](int32_t a, int32_t b) {
    return plan.values[static_cast<size_t>(a)].tensor.dims == plan.values[static_cast<size_t>(b)].tensor.dims;
  };
  for (size_t k = 0; k < plan.ops.size(); ++k) {
    const vkgraph::OpCall& mul2 = plan.ops[k];
    if (skip[k] || mul2.name != "aten.mul.Tensor" || mul2.args.size() != 3) continue;
    for (int side = 0; side < 2; ++side) {
      const int32_t t = mul2.args[static_cast<size_t>(side)], u = mul2.args[static_cast<size_t>(1 - side)], o = mul2.args[2];
      if (!is_float_tensor(t) || !is_float_tensor(u) || !is_float_tensor(o) || uses[static_cast<size_t>(t)] != 2) continue;
      const int j = producer[static_cast<size_t>(t)];
      if (j < 0 || skip[static_cast<size_t>(j)] || plan.ops[static_cast<size_t>(j)].name != "aten.mul.Tensor" ||
          plan.ops[static_cast<size_t>(j)].args.size() != 3)
        continue;
      const vkgraph::OpCall& mul1 = plan.ops[static_cast<size_t>(j)];
      bool matched = false;
      for (int s_side = 0; s_side < 2 && !matched; ++s_side) {
        const int32_t s = mul1.args[static_cast<size_t>(s_side)], g = mul1.args[static_cast<size_t>(1 - s_side)];
        if (!is_float_tensor(s) || !is_float_tensor(g) || uses[static_cast<size_t>(s)] != 2) continue;
        const int i = producer[static_cast<size_t>(s)];
        if (i < 0 || skip[static_cast<size_t>(i)] || plan.ops[static_cast<size_t>(i)].name != "aten.sigmoid.default" ||
            plan.ops[static_cast<size_t>(i)].args.size() != 2 || plan.ops[static_cast<size_t>(i)].args[0] != g)
          continue;
        if (!same_dims(g, u) || !same_dims(g, o) || !same_dims(g, t) || !same_dims(g, s)) continue;
        f.skipped.push_back(static_cast<size_t>(i));
        f.skipped.push_back(static_cast<size_t>(j));
        f.replaced[k] = [g, u, o](Graph& graph) { return build_silu_mul(graph, g, u, o); };
        f.extra_uses[k] = {g, u};
        matched = true;
      }
      if (matched) break;
    }
  }
  return f;
}

Status build_silu_mul(Graph& g, int32_t gate_id, int32_t up_id, int32_t out_id) {
  const char* name = "silu_mul (fused sigmoid, mul, mul)";
  WICK_ASSIGN_OR_RETURN(GpuTensor * gate, g.tensor(gate_id, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * up, g.tensor(up_id, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(out_id, name));
  if (!gate->is_float() || !up->is_float() || !out->is_float())
    return Status(ErrorCode::kInternal, std::string(name) + ": float tensors only");
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(gpu::PipelineKey(gpu::shaders::silu_mul).set("wg_size", kWorkgroup)));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(SiluMulParams), name));
  gpu::Dispatch d;
  d.pipeline = pipeline;
  d.bindings = {{0, gate->buffer.get()}, {1, up->buffer.get()}, {2, out->buffer.get()}, {3, params->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t index, g.add_dispatch(std::move(d)));
  return g.add_step([=, &g]() -> Status {
    if (gate->dims != up->dims)
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": gate " + shape_to_string(gate->dims) + " and up " +
                                                     shape_to_string(up->dims) + " differ");
    if (gate->numel() > out->max_numel())
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": result does not fit the output");
    out->dims = gate->dims;
    SiluMulParams p{static_cast<uint32_t>(gate->numel()), 0, 0, 0};
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(index, static_cast<uint64_t>(p.n), kWorkgroup);
  });
}

}  // namespace wick::webgpu
