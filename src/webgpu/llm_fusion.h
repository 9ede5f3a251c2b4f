// Graph-build-time fusions of the op patterns ExecuTorch's LLM export leaves in every
// transformer layer, so a decoded token costs fewer dispatches.
//
// Found now: SwiGLU, `s = sigmoid(g); t = mul(g, s); o = mul(t, u)` (either operand order)
// with s and t used nowhere else and g, u, o of one shape -> one silu_mul dispatch at the
// last mul (ops/elementwise/silu_mul.wgsl), where the GEMV fusions (llm_gemv_fusion.h),
// which fold SwiGLU into the gate/up GEMV, did not apply.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <vector>

#include "core/status.h"
#include "vkgraph/vk_plan.h"

namespace wick::webgpu {

class Graph;

struct LlmFusions {
  std::vector<size_t> skipped;                                 // chain ops folded into a later one
  std::map<size_t, std::function<Status(Graph&)>> replaced;  // chain op -> the fused builder run there
  // Values the fused op at a chain index reads there although the original op did not:
  // their lifetimes must reach it (the memory plan adds these uses).
  std::map<size_t, std::vector<int32_t>> extra_uses;
};

// `skip`: ops already folded elsewhere (fusion.cpp) are left alone. Only valid with a
// memory plan that honours extra_uses (Graph::plan_transient_buffers). The GEMV fusions
// (llm_gemv_fusion.h) are planned first; `max_storage_buffers` is the device's per-stage limit.
LlmFusions plan_llm_fusions(const vkgraph::Plan& plan, const std::vector<bool>& skip, uint32_t max_storage_buffers = 8);

// out = silu(gate) * up (same shapes, f32).
Status build_silu_mul(Graph& g, int32_t gate, int32_t up, int32_t out);

}  // namespace wick::webgpu
