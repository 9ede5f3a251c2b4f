#include "runtime/backend.h"

#include <mutex>

namespace wick {

namespace {
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
// Never destroyed: backends may hold GPU devices whose drivers are already unloaded by
// the time static destructors run at exit.
std::vector<std::shared_ptr<Backend>>& registry() {
  static auto* r = new std::vector<std::shared_ptr<Backend>>();
  return *r;
}
}  // namespace

void register_backend(std::shared_ptr<Backend> backend) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& r = registry();
  for (auto& b : r) {
    if (b->id() == backend->id()) {
      b = std::move(backend);
      return;
    }
  }
  r.push_back(std::move(backend));
}

void unregister_backend(std::string_view id) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& r = registry();
  for (auto it = r.begin(); it != r.end(); ++it) {
    if ((*it)->id() == id) {
      r.erase(it);
      return;
    }
  }
}

std::shared_ptr<Backend> find_backend(std::string_view id) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  for (auto& b : registry())
    if (b->id() == id) return b;
  return nullptr;
}

Result<DelegateTarget> parse_delegate_target(std::string_view name) {
  if (name == "auto") return DelegateTarget::kAuto;
  if (name == "webgpu") return DelegateTarget::kWebGpu;
  if (name == "cpu") return DelegateTarget::kCpu;
  return Status(ErrorCode::kInvalidArgument, "unknown backend '" + std::string(name) + "' (expected auto, webgpu or cpu)");
}

const char* delegate_target_name(DelegateTarget target) {
  switch (target) {
    case DelegateTarget::kWebGpu: return "webgpu";
    case DelegateTarget::kCpu: return "cpu";
    default: return "auto";
  }
}

}  // namespace wick
