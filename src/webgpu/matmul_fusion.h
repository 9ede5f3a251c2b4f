// Matmul epilogue fusion as a pass (matmul_fusion.cpp says which patterns): the elementwise
// ops that follow a linear / mm / bmm / addmm (GELU, a layer scale, a residual add, ...) are
// applied by the product as it stores its result (MatmulEpilogue in graph.h), so a
// transformer block's linear costs one dispatch and its intermediates are never written.
// Reads the graph, changes nothing; Graph::apply_matmul_epilogues applies it after the conv
// and attention fusions and before the elementwise chains (GraphOptions::fuse_matmul_epilogue;
// WICK_FUSE_MATMUL_EPILOGUE=0 turns it off for A/B timings).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "vkgraph/vk_plan.h"
#include "webgpu/graph.h"

namespace wick::webgpu {

struct MatmulFusionPlan {
  std::map<size_t, MatmulEpilogue> epilogues;  // per chain index of a matrix product
  // Fused outputs that cannot stay in the buffer the memory plan gave them: slot k is a
  // storage buffer of slot_bytes[k], shared by the outputs slot_of maps to k.
  std::vector<uint64_t> slot_bytes;
  std::map<int32_t, size_t> slot_of;  // value id -> slot
};

// Ops already skipped (conv fusions, dead copies, fused attention) are never absorbed.
MatmulFusionPlan plan_matmul_epilogues(const vkgraph::Plan& plan, const Graph& graph);

}  // namespace wick::webgpu
