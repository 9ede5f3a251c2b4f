// main() of wick_tests and wick_gpu_tests: GoogleTest's, after what every entry point of
// Wick does first, registering the kernels the binary links (runtime/kernel_registry.h).
#include <gtest/gtest.h>

#include <cstdio>

#include "kernels/cpu/kernel.h"
#include "runtime/kernel_registry.h"

int main(int argc, char** argv) {
  if (wick::Status s = wick::cpu::register_cpu_kernels(wick::kernel_registry()); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.to_string().c_str());
    return 1;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
