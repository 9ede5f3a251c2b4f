// The WebGPU delegate's registration, asserted at the start of a test that runs programs on
// it: without an adapter the test fails, naming why, rather than passing on the CPU.
#pragma once

#include <gtest/gtest.h>

#include "webgpu/backend.h"

namespace wick::test {

inline void require_backend() {
  Status s = webgpu::register_webgpu_backend();
  ASSERT_TRUE(s.ok()) << "no WebGPU device: " << s.to_string();
}

}  // namespace wick::test
