// Convolution fusion as a pass (fusion.cpp says which patterns): it reads a graph whose
// values exist (create_values: tensors, their buffers as the memory plan shares them,
// host copies of constants) and returns a plan. It allocates nothing and changes nothing;
// Graph::build_ops applies the plan (a buffer per slot, the skipped ops, the per-conv
// fusions the conv builders read through Graph::conv_fusion()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "vkgraph/vk_plan.h"
#include "webgpu/graph.h"

namespace wick::webgpu {

struct ConvFusionPlan {
  std::vector<bool> skip;              // per chain op: folded into a conv, or a dead copy
  std::map<size_t, ConvFusion> convs;  // per chain index of a convolution
  // Fused conv outputs that cannot stay in the buffer the memory plan gave them (the conv
  // writes them earlier than the plan expects): slot k is a storage buffer of
  // slot_bytes[k], shared by the outputs slot_of maps to k, whose lifetimes do not overlap.
  std::vector<uint64_t> slot_bytes;
  std::map<int32_t, size_t> slot_of;  // value id -> slot
  size_t fused_ops = 0, dead_ops = 0;
};

ConvFusionPlan plan_conv_fusions(const vkgraph::Plan& plan, const Graph& graph);

}  // namespace wick::webgpu
