// Process-wide counts of the WebGPU objects Wick has created, for tests that check a
// steady-state call creates none (bind groups, buffers and pipelines are made when a graph
// is built; a call only records and submits: issue 11's host costs per call).
#pragma once

#include <atomic>
#include <cstdint>

namespace wick::gpu {

struct ObjectCounts {
  uint64_t buffers = 0;      // wgpuDeviceCreateBuffer (tensors, params, staging, timestamps)
  uint64_t bind_groups = 0;  // CommandList::add
  uint64_t pipelines = 0;    // compute pipelines and shader modules
  bool operator==(const ObjectCounts&) const = default;
};

ObjectCounts object_counts();

// For the creating code: one more of each.
void count_buffer_created();
void count_bind_group_created();
void count_pipeline_created();

}  // namespace wick::gpu
