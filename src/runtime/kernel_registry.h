// The operators a method's KernelCalls can run: a table from operator name to kernel,
// owned by the runtime and filled by the kernel libraries above it.
//
// The runtime never names a kernel library. Whoever sets a process up (the CLI's main,
// the C API, the test mains, the examples) registers the kernels it links, once:
//
//   wick::cpu::register_cpu_kernels(wick::kernel_registry());   // kernels/cpu/register.h
//
// An explicit call rather than static registration objects: a static library drops an
// object file that nothing references, registrars and all, and the order of static
// initialisation across files is unspecified. A method loaded before any registration
// fails with kOperatorMissing naming the operator and saying that the registry is empty.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "runtime/value.h"

namespace wick {

// The kernel calling convention (kernels/cpu/kernel.h says what the arguments hold).
using KernelFn = Status (*)(ValueTable& values, std::span<const int32_t> args);

class KernelRegistry {
 public:
  // Adds `fn` under `name` ("aten::add.out"). Registering the same function under the same
  // name again does nothing, so registration may run twice; a different function under a
  // name already taken is an error (kInvalidArgument) and leaves the first.
  Status add(std::string_view name, KernelFn fn);
  // nullptr when no kernel has that name.
  KernelFn find(std::string_view name) const;
  std::vector<std::string> names() const;  // sorted
  size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, KernelFn, std::less<>> kernels_;
};

// The process's registry, which Program::load_method resolves KernelCalls against.
// Never destroyed (a method may be torn down during static destruction).
KernelRegistry& kernel_registry();

}  // namespace wick
