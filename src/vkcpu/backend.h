// The CPU executor of VK00 graphs as a delegate backend, registered under ExecuTorch's
// Vulkan backend id "VulkanBackend" (like the WebGPU one, which it replaces in the
// registry) so that programs lowered with VulkanPartitioner run without a GPU.
#pragma once

#include <cstdio>
#include <vector>

#include "core/status.h"
#include "runtime/profile_table.h"

namespace wick::vkcpu {

struct BackendOptions {
  bool profile = false;  // record per-op wall times
};

// Registers the CPU backend as "VulkanBackend". Always succeeds.
Status register_cpu_backend(const BackendOptions& options = {});
// Per-op times of the most recent executions with profiling on (then cleared).
void print_last_profile(std::FILE* out);
// The same rows, taken (cleared) for the caller: `wick run --profile-runs` keeps one list
// per call and prints their medians with profile_words().
std::vector<ProfileRow> take_last_profile_rows();
const ProfileWords& profile_words();
// Graphs, steps and threads of the graphs built so far (for `wick bench`).
void print_last_graph_summary(std::FILE* out);

}  // namespace wick::vkcpu
