// The WebGPU delegate, registered under ExecuTorch's Vulkan backend id "VulkanBackend"
// so that programs lowered with VulkanPartitioner run on it unchanged.
#pragma once

#include <cstdio>
#include <memory>

#include "core/status.h"

namespace wick::gpu {
class Device;
}

namespace wick::webgpu {

struct BackendOptions {
  bool profile = false;  // record per-dispatch GPU times (timestamp queries)
};

// Creates the device (or reuses a healthy one) and registers the backend. Fails with a
// clear error when no WebGPU adapter exists.
Status register_webgpu_backend(const BackendOptions& options = {});
// The device the registered backend uses now (null before registration). A lost device
// is replaced at the next method load.
std::shared_ptr<gpu::Device> backend_device();
// Per-dispatch timings of the registered backend's executions with profiling on since
// the last call (then cleared). The numbers live in the backend, not in the process.
void print_last_profile(std::FILE* out);
// Dispatch count and memory plan of the graphs the registered backend built (`wick bench`).
void print_last_graph_summary(std::FILE* out);

}  // namespace wick::webgpu
