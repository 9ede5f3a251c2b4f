#include "runtime/kernel_registry.h"

namespace wick {

Status KernelRegistry::add(std::string_view name, KernelFn fn) {
  if (name.empty() || fn == nullptr)
    return Status(ErrorCode::kInvalidArgument, "kernel registry: a kernel needs a name and a function");
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = kernels_.try_emplace(std::string(name), fn);
  if (!inserted && it->second != fn)
    return Status(ErrorCode::kInvalidArgument,
                  "kernel registry: '" + std::string(name) + "' is already registered to another kernel");
  return {};
}

KernelFn KernelRegistry::find(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : it->second;
}

std::vector<std::string> KernelRegistry::names() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  out.reserve(kernels_.size());
  for (const auto& [name, fn] : kernels_) out.push_back(name);
  return out;
}

size_t KernelRegistry::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return kernels_.size();
}

KernelRegistry& kernel_registry() {
  static auto* registry = new KernelRegistry();
  return *registry;
}

}  // namespace wick
