#include "gpu/object_counts.h"

namespace wick::gpu {

namespace {
std::atomic<uint64_t> g_buffers{0}, g_bind_groups{0}, g_pipelines{0};
}  // namespace

ObjectCounts object_counts() {
  return ObjectCounts{g_buffers.load(std::memory_order_relaxed), g_bind_groups.load(std::memory_order_relaxed),
                      g_pipelines.load(std::memory_order_relaxed)};
}

void count_buffer_created() { g_buffers.fetch_add(1, std::memory_order_relaxed); }
void count_bind_group_created() { g_bind_groups.fetch_add(1, std::memory_order_relaxed); }
void count_pipeline_created() { g_pipelines.fetch_add(1, std::memory_order_relaxed); }

}  // namespace wick::gpu
