// Wick's own buffer plan for a graph's transient tensors, in which flat copies (views,
// clones, squeezes: ops/shape's flat_copy_args) share their input's buffer and cost no
// dispatch.
//
// The exporter's plan (mem_obj_id) assumes every view_copy writes a fresh tensor, and
// often reuses a view's input memory for the next op's result while the view is still
// read, so aliasing on top of it is rarely safe. This plan groups each flat copy's output
// with its input (one group, one buffer, live from the first member's producer to the
// last member's last reader) and packs the groups' lifetimes into buffers greedily.
// Only tensors the exporter itself planned as shareable (mem_obj_id >= 0) take part, graph
// inputs (live from before the first op: the upload) and outputs (live past the last: the
// readback) included; persistent state (mem_obj_id < 0: own buffers) keeps its buffers.
// Views are found by ops/shape's buffer_views (flat copies, order-keeping permutes, zero
// pads, aligned range views); tensors written in place (in_place_args) alias nothing.
// Graph::plan_transient_buffers builds the inputs of this plan. With GraphOptions::
// joint_memory_plan that plan is provisional (placeholder buffers for the fusion passes),
// and graph_memory.cpp packs the final groups (views and in-place cats as offsets, lifetimes
// of the ops that run) with plan_memory again; without it, fusion.cpp moves a fused conv's
// output out of a buffer it would clobber.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace wick::webgpu {

struct PlannedTensor {
  uint64_t bytes = 0;
  size_t first = 0, last = 0;  // op indices of its producer and its last reader
};

struct MemoryPlan {
  std::vector<int> slot;              // per tensor: its buffer
  std::vector<uint64_t> slot_bytes;   // per buffer
  size_t aliased = 0;                 // alias pairs honoured
};

// The argument positions an operator writes in place (besides its output, the last):
// KV-cache updates and optimizer steps. Such tensors never alias another.
std::vector<size_t> in_place_args(std::string_view op);

// `aliases`: (input, output) tensor index pairs of flat copies, in op order.
MemoryPlan plan_memory(const std::vector<PlannedTensor>& tensors, const std::vector<std::pair<size_t, size_t>>& aliases);

}  // namespace wick::webgpu
