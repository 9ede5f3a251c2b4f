// A lost device turns into an error on the next call, and the next load gets a new device;
// a backend registered again with other options keeps a healthy device, not a lost one.
#include <gtest/gtest.h>

#include "gpu/device.h"
#include "runtime/program.h"
#include "test_util.h"
#include "webgpu/backend.h"

namespace wick {
namespace {

// The ops/add fixture and its program (each test loads the method on the backend registered
// at the time).
void load_add(test::Fixture& f, std::shared_ptr<Program>& program) {
  ASSERT_TRUE(test::load_fixture("ops/add", &f));
  auto loaded = Program::load_file(f.pte());
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  program = *loaded;
}

// A forward call of `method` gives the fixture's first case.
void expect_first_case(Method& method, const test::Fixture& f) {
  auto out = method.forward(f.cases[0].inputs);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_TRUE(test::values_close((*out)[0], f.cases[0].outputs[0], f.atol, f.rtol));
}

TEST(WebGpuDelegate, LostDeviceIsAnErrorAndALaterLoadWorks) {
  ASSERT_TRUE(webgpu::register_webgpu_backend().ok());
  test::Fixture f;
  std::shared_ptr<Program> program;
  ASSERT_NO_FATAL_FAILURE(load_add(f, program));
  auto method = program->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  auto ok = (*method)->forward(f.cases[0].inputs);
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();

  auto device = webgpu::backend_device();
  ASSERT_TRUE(device);
  wgpuDeviceForceLoss(device->handle(), WGPUDeviceLostReason_Unknown, WGPUStringView{"test", 4});
  auto lost = (*method)->forward(f.cases[0].inputs);
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().code(), ErrorCode::kDeviceLost) << lost.status().to_string();

  auto again = program->load_method("forward");
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_NE(webgpu::backend_device().get(), device.get());
  expect_first_case(**again, f);
}

TEST(WebGpuDelegate, ReRegisteringWithOtherOptionsKeepsAHealthyDevice) {
  ASSERT_TRUE(webgpu::register_webgpu_backend().ok());
  auto first = webgpu::backend_device();
  ASSERT_TRUE(first);
  // Other options make a new backend; it takes over the device (and its compiled pipelines).
  webgpu::BackendOptions copies;
  copies.alias_views = false;
  ASSERT_TRUE(webgpu::register_webgpu_backend(copies).ok());
  EXPECT_EQ(webgpu::backend_device().get(), first.get());
  test::Fixture f;
  std::shared_ptr<Program> program;
  ASSERT_NO_FATAL_FAILURE(load_add(f, program));
  auto method = program->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  expect_first_case(**method, f);
  // A lost device is not taken over: the next registration creates a new one.
  wgpuDeviceForceLoss(first->handle(), WGPUDeviceLostReason_Unknown, WGPUStringView{"test", 4});
  ASSERT_TRUE(webgpu::register_webgpu_backend().ok());
  auto fresh = webgpu::backend_device();
  ASSERT_TRUE(fresh);
  EXPECT_NE(fresh.get(), first.get());
  EXPECT_FALSE(fresh->is_lost());
}

}  // namespace
}  // namespace wick
