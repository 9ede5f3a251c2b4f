// Shared pieces of the gpu/ tests: one device for the whole run, and the test shaders.
#pragma once

#ifdef WICK_HAVE_WEBGPU

#include <gtest/gtest.h>

#include <memory>
#include <string_view>

#include "gpu/device.h"

namespace wick::gpu::test {

// Defined by the WGSL embedded from tests/gpu/wgsl (cmake/webgpu.cmake).
std::string_view find_wgsl(std::string_view name);

// The process-wide test device. A missing adapter is a test failure, not a skip: CI must
// not go green without having touched a GPU.
inline std::shared_ptr<Device> shared_device() {
  static Result<std::shared_ptr<Device>> device = Device::create();
  if (!device.ok()) {
    ADD_FAILURE() << "WebGPU device creation failed: " << device.status().to_string();
    return nullptr;
  }
  return device.value();
}

}  // namespace wick::gpu::test

// Use at the top of a test body: fails the test and returns when there is no device.
#define WICK_GPU_DEVICE_OR_FAIL(var)                     \
  auto var = ::wick::gpu::test::shared_device();         \
  ASSERT_NE(var, nullptr) << "no WebGPU device (see above)"

#endif  // WICK_HAVE_WEBGPU
