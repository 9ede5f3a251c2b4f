// Graph-build-time fusions around the 4-bit GEMVs of an LLM decode step (M == 1, static
// token count), so a transformer layer costs 7 dispatches instead of 15:
//   rms_norm -> q, k, v linear_q4gsw on its output        -> one q4gsw_gemv_qkv dispatch
//   rms_norm -> gate, up linear_q4gsw -> sigmoid/mul/mul  -> one q4gsw_gemv_swiglu dispatch
//   linear_q4gsw -> [flat copy] -> add(residual, ., 1)    -> one q4gsw_gemv_fused dispatch
//   rms_norm -> one linear_q4gsw (the LM head)            -> one q4gsw_gemv_fused dispatch
// The norm folds in because its rstd is one scalar per row: y = rstd * W (x * norm_weight),
// computed by every workgroup in the pass over x that the dot products make anyway.
// Every pattern needs its intermediates used nowhere else, constant weights, no bias, and
// shapes the kernels take (K % 32, k_packed % 16, group size % 32); otherwise the ops stay
// as they are. Fusions move writes and reads to the fused op's chain index: LlmFusions's
// extra_uses carries them to the memory plan.
#pragma once

#include <cstdint>
#include <vector>

#include "webgpu/llm_fusion.h"

namespace wick::webgpu {

// Adds the GEMV fusions to `f` and marks their ops in `skip`. `max_storage_buffers`: the
// device's per-stage limit; the q/k/v kernel needs 11 and is not used below that.
void plan_gemv_fusions(const vkgraph::Plan& plan, std::vector<bool>& skip, uint32_t max_storage_buffers, LlmFusions& f);

}  // namespace wick::webgpu
