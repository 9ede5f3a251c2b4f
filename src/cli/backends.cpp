// Which executor runs the Vulkan-delegated parts ("VulkanBackend", the id ExecuTorch's
// Vulkan partitioner writes into the .pte): --backend auto (the default: WebGPU when an
// adapter exists, else the CPU), webgpu or cpu. Parts outside delegates always run on the
// portable CPU kernels.
#include <cstdio>

#include "backends/choice.h"
#include "cli/commands.h"
#include "vkcpu/backend.h"

#ifdef WICK_HAVE_WEBGPU_DELEGATE
#include "webgpu/backend.h"
#endif

namespace wick::cli {

namespace {
std::string& chosen() {
  static std::string c;
  return c;
}
std::string& reason() {
  static std::string r;
  return r;
}
}  // namespace

bool select_backend(const std::string& name, bool profile, bool f16_weights) {
  auto target = parse_delegate_target(name);
  if (!target.ok()) {
    std::fprintf(stderr, "wick: %s\n", target.status().message().c_str());
    return false;
  }
  auto choice = use_backend(*target, BackendChoiceOptions{profile, f16_weights});
  if (!choice.ok()) {
    std::fprintf(stderr, "wick: %s\n", choice.status().to_string().c_str());
    return false;
  }
  if (f16_weights && choice->target == DelegateTarget::kCpu)
    std::fprintf(stderr, "wick: --f16 applies to the WebGPU delegate; the CPU executor computes in f32\n");
  chosen() = delegate_target_name(choice->target);
  reason() = choice->reason;
  return true;
}

const std::string& chosen_backend() { return chosen(); }

std::string backend_line() {
  std::string line = "backend: " + chosen();
  if (!reason().empty()) line += " (auto: " + reason() + ")";
  return line;
}

namespace {
// What the chosen executor kept of its last run: the CPU executor's, else the WebGPU
// delegate's where this build has one.
using Printer = void (*)(std::FILE*);
void print_from_chosen(Printer cpu, Printer webgpu) {
  if (chosen() == "cpu") cpu(stdout);
  else if (webgpu) webgpu(stdout);
}
#ifdef WICK_HAVE_WEBGPU_DELEGATE
constexpr Printer kWebgpuProfile = webgpu::print_last_profile, kWebgpuSummary = webgpu::print_last_graph_summary;
#else
constexpr Printer kWebgpuProfile = nullptr, kWebgpuSummary = nullptr;
#endif
}  // namespace

void print_profile() { print_from_chosen(vkcpu::print_last_profile, kWebgpuProfile); }

std::vector<webgpu::DelegateCallTimes> take_delegate_call_times() {
#ifdef WICK_HAVE_WEBGPU_DELEGATE
  if (chosen() != "cpu") return webgpu::take_delegate_call_times();
#endif
  return {};
}

std::vector<ProfileRow> take_profile_rows() {
#ifdef WICK_HAVE_WEBGPU_DELEGATE
  if (chosen() != "cpu") return webgpu::take_last_profile_rows();
#endif
  return vkcpu::take_last_profile_rows();
}

const ProfileWords& profile_words() {
#ifdef WICK_HAVE_WEBGPU_DELEGATE
  if (chosen() != "cpu") return webgpu::profile_words();
#endif
  return vkcpu::profile_words();
}

void reset_backend_call_totals() {
#ifdef WICK_HAVE_WEBGPU_DELEGATE
  if (chosen() != "cpu") webgpu::reset_call_totals();
#endif
}

void print_backend_summary() { print_from_chosen(vkcpu::print_last_graph_summary, kWebgpuSummary); }

}  // namespace wick::cli
