// The runtime's kernel registry (runtime/kernel_registry.h): what the CPU kernels register
// into and Program::load_method resolves KernelCalls against.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/cpu/kernel.h"
#include "runtime/kernel_registry.h"

namespace wick {
namespace {

Status kernel_a(ValueTable&, std::span<const int32_t>) { return {}; }
Status kernel_b(ValueTable&, std::span<const int32_t>) { return Status(ErrorCode::kInternal, "b"); }

TEST(KernelRegistry, AddFindAndConflicts) {
  KernelRegistry r;
  EXPECT_EQ(r.find("x::a.out"), nullptr);
  ASSERT_TRUE(r.add("x::a.out", kernel_a).ok());
  EXPECT_EQ(r.find("x::a.out"), kernel_a);
  // The same kernel again is harmless (registration may run twice)...
  EXPECT_TRUE(r.add("x::a.out", kernel_a).ok());
  // ...another kernel under a taken name is refused, and the first stays.
  Status clash = r.add("x::a.out", kernel_b);
  EXPECT_EQ(clash.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(clash.message().find("x::a.out"), std::string::npos) << clash.message();
  EXPECT_EQ(r.find("x::a.out"), kernel_a);
  EXPECT_FALSE(r.add("", kernel_a).ok());
  EXPECT_FALSE(r.add("x::c.out", nullptr).ok());
  ASSERT_TRUE(r.add("x::0.out", kernel_b).ok());
  EXPECT_EQ(r.names(), (std::vector<std::string>{"x::0.out", "x::a.out"}));
  EXPECT_EQ(r.size(), 2u);
}

// tests/test_main.cpp registers the CPU kernels into the process registry, as every entry
// point does: each of them must be found there under its name, and nothing else.
TEST(KernelRegistry, ProcessRegistryHoldsEveryCpuKernel) {
  std::span<const cpu::KernelEntry> all = cpu::all_kernels();
  EXPECT_EQ(kernel_registry().size(), all.size());
  for (const cpu::KernelEntry& e : all) EXPECT_EQ(kernel_registry().find(e.name), e.fn) << e.name;
  // Registering again changes nothing.
  EXPECT_TRUE(cpu::register_cpu_kernels(kernel_registry()).ok());
  EXPECT_EQ(kernel_registry().size(), all.size());
}

}  // namespace
}  // namespace wick
