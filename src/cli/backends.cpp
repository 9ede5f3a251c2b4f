// Which delegates the CLI can run. The WebGPU backend registers as "VulkanBackend",
// the id ExecuTorch's Vulkan partitioner writes into the .pte.
#include <cstdio>

#include "cli/commands.h"

#ifdef WICK_HAVE_WEBGPU_DELEGATE
#include "webgpu/backend.h"
#endif

namespace wick::cli {

bool select_backend(const std::string& name, bool profile) {
  if (name == "cpu") return true;
  if (name == "webgpu") {
#ifdef WICK_HAVE_WEBGPU_DELEGATE
    Status s = webgpu::register_webgpu_backend(webgpu::BackendOptions{profile});
    if (!s.ok()) {
      std::fprintf(stderr, "wick: %s\n", s.to_string().c_str());
      return false;
    }
    return true;
#else
    (void)profile;
    // Without the delegate, CPU-only programs still run; delegated ones fail at load
    // with an error naming the missing backend.
    return true;
#endif
  }
  std::fprintf(stderr, "wick: unknown backend '%s' (expected cpu or webgpu)\n", name.c_str());
  return false;
}

void print_profile() {
#ifdef WICK_HAVE_WEBGPU_DELEGATE
  webgpu::print_last_profile(stdout);
#endif
}

void print_backend_summary() {
#ifdef WICK_HAVE_WEBGPU_DELEGATE
  webgpu::print_last_graph_summary(stdout);
#endif
}

}  // namespace wick::cli
