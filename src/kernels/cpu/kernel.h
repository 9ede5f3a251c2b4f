// The CPU kernel calling convention.
//
// A kernel receives the method's value table and the argument value indices exactly as
// the .pte KernelCall lists them: every schema argument in schema order (defaults
// materialised), then the outputs. Out-variants therefore see `out` twice, e.g.
// aten::add.out -> [self, other, alpha, out, out].
//
// Kernels resize their outputs (Tensor::resize, which enforces the memory plan's
// bounds), compute, and return an error naming the operator on bad input.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "core/status.h"
#include "runtime/kernel_registry.h"
#include "runtime/value.h"

namespace wick::cpu {

using KernelFn = ::wick::KernelFn;  // runtime/kernel_registry.h

struct KernelEntry {
  const char* name;  // "aten::add.out": operator name + '.' + overload
  KernelFn fn;
};

// Every CPU kernel Wick has (kernels/cpu/registry.cpp).
std::span<const KernelEntry> all_kernels();
// nullptr when there is no kernel of that name.
KernelFn find_kernel(std::string_view name);
// Adds every kernel of all_kernels() to `registry` (the runtime's: wick::kernel_registry()),
// which is how Program::load_method finds them. Entry points call it once; again is harmless.
Status register_cpu_kernels(KernelRegistry& registry);

}  // namespace wick::cpu
