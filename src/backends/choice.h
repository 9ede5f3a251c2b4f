// Picks and registers the executor of Vulkan-delegated parts ("VulkanBackend"): the
// WebGPU delegate, or the CPU executor of VK00 graphs (vkcpu/). `auto` takes WebGPU when
// an adapter can be opened and the CPU otherwise, so every program runs on every host.
//
//   auto choice = wick::use_backend(wick::DelegateTarget::kAuto);
//   if (choice.ok()) printf("backend: %s\n", wick::delegate_target_name(choice->target));
#pragma once

#include <string>

#include "core/status.h"
#include "runtime/backend.h"

namespace wick {

struct BackendChoiceOptions {
  bool profile = false;  // per-op timings (GPU timestamps on WebGPU, wall times on the CPU)
  bool f16_weights = false;  // WebGPU: webgpu::BackendOptions::f16_weights (the CPU ignores it)
};

struct BackendChoice {
  DelegateTarget target = DelegateTarget::kCpu;  // kWebGpu or kCpu, never kAuto
  std::string reason;  // why auto fell back to the CPU (the WebGPU error), else empty
};

// `webgpu` fails when no adapter exists (or the build has no WebGPU); `cpu` and `auto`
// always succeed. Methods loaded afterwards use the registered executor.
Result<BackendChoice> use_backend(DelegateTarget preference, const BackendChoiceOptions& options = {});
// Whether this build has the WebGPU delegate at all.
bool webgpu_available_in_build();

}  // namespace wick
