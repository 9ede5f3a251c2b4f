// gpu/device: adapter selection, info, features, limits, and out-of-band errors.
#include <gtest/gtest.h>

#ifdef WICK_HAVE_WEBGPU

#include <algorithm>
#include <cstdio>

#include "gpu/buffer.h"
#include "gpu/device.h"
#include "gpu_test_util.h"

namespace wick::gpu {
namespace {

TEST(GpuDevice, CreatesAndDescribesAdapter) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  const AdapterInfo& info = device->adapter_info();
  EXPECT_FALSE(info.device.empty() && info.description.empty());
  EXPECT_NE(info.backend, "Null");
  EXPECT_FALSE(info.summary().empty());
  std::printf("[ adapter  ] %s\n", info.summary().c_str());

  const Limits& limits = device->limits();
  EXPECT_GE(limits.max_storage_buffer_binding_size, uint64_t{128} << 20);
  EXPECT_GE(limits.max_buffer_size, uint64_t{256} << 20);
  EXPECT_GE(limits.max_compute_invocations_per_workgroup, 256u);
  EXPECT_GE(limits.max_compute_workgroups_per_dimension, 65535u);
  EXPECT_GE(limits.max_storage_buffers_per_shader_stage, 8u);

  std::vector<std::string> names = device->feature_names();
  std::string joined;
  for (const std::string& n : names) joined += n + " ";
  std::printf("[ features ] %s\n", joined.c_str());
  // has_feature and feature_names agree.
  for (Feature f : {Feature::kShaderF16, Feature::kTimestampQuery, Feature::kSubgroups}) {
    bool listed = std::find(names.begin(), names.end(), feature_name(f)) != names.end();
    EXPECT_EQ(device->has_feature(f), listed) << feature_name(f);
  }
  EXPECT_TRUE(device->check().ok());
}

TEST(GpuDevice, MissingBackendIsAClearError) {
  // No machine Wick runs on has both Metal and D3D12: one of them is always missing.
#ifdef __APPLE__
  const Backend absent = Backend::kD3D12;
#else
  const Backend absent = Backend::kMetal;
#endif
  DeviceOptions options;
  options.backend = absent;
  Result<std::shared_ptr<Device>> device = Device::create(options);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(device.status().message().find("no WebGPU adapter found"), std::string::npos)
      << device.status().message();
  EXPECT_NE(device.status().message().find("VK_ICD_FILENAMES"), std::string::npos);
}

TEST(GpuDevice, NullBackendOnlyWhenAskedFor) {
  DeviceOptions options;
  options.backend = Backend::kNull;
  Result<std::shared_ptr<Device>> device = Device::create(options);
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  EXPECT_EQ(device.value()->adapter_info().backend, "Null");
}

// Subgroup matrices (Dawn's experimental feature, behind allow_unsafe_apis): asked for only
// with request_subgroup_matrix. Dawn's Null backend offers every feature, so it checks the
// library's number for it (dawn_abi.h: 0x50037 in the legacy library) through the WGSL
// probe; the default adapter (SwiftShader in CI) has none and still opens.
TEST(GpuDevice, SubgroupMatrixOnlyWhenAskedFor) {
  DeviceOptions options;
  options.backend = Backend::kNull;
  auto plain = Device::create(options);
  ASSERT_TRUE(plain.ok()) << plain.status().to_string();
  EXPECT_FALSE(plain.value()->has_feature(Feature::kSubgroupMatrix));
  options.request_subgroup_matrix = true;
  auto with = Device::create(options);
  ASSERT_TRUE(with.ok()) << with.status().to_string();
  EXPECT_TRUE(with.value()->has_feature(Feature::kSubgroupMatrix));

  DeviceOptions real;
  real.request_subgroup_matrix = true;
  auto device = Device::create(real);
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  if (!device.value()->has_feature(Feature::kSubgroupMatrix)) {
    EXPECT_TRUE(device.value()->adapter_info().subgroup_matrix_configs.empty());
  }
}

TEST(GpuDevice, UncapturedErrorIsReportedOnceByTheNextCheck) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  ASSERT_TRUE(device->check().ok());
  wgpuDeviceInjectError(device->handle(), WGPUErrorType_Validation,
                        WGPUStringView{"injected by the test", WGPU_STRLEN});
  Status first = device->check();
  EXPECT_FALSE(first.ok());
  EXPECT_NE(first.message().find("injected by the test"), std::string::npos) << first.message();
  EXPECT_TRUE(device->check().ok());  // reported once, then cleared
}

TEST(GpuDevice, ErrorScopeCapturesAndNames) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  device->push_error_scope();
  wgpuDeviceInjectError(device->handle(), WGPUErrorType_Validation,
                        WGPUStringView{"scoped error", WGPU_STRLEN});
  Status s = device->pop_error_scope("the operation");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("the operation"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("scoped error"), std::string::npos) << s.message();
  EXPECT_TRUE(device->check().ok());  // captured by the scope, not left uncaptured
}

TEST(GpuDevice, LostDeviceReturnsDeviceLostInsteadOfCrashing) {
  Result<std::shared_ptr<Device>> created = Device::create();
  ASSERT_TRUE(created.ok()) << created.status().to_string();
  std::shared_ptr<Device> device = created.value();
  Result<Buffer> before = Buffer::create_storage(device, 64, "before");
  ASSERT_TRUE(before.ok()) << before.status().to_string();

  wgpuDeviceForceLoss(device->handle(), WGPUDeviceLostReason_Unknown,
                      WGPUStringView{"forced by the test", WGPU_STRLEN});
  wgpuInstanceProcessEvents(device->instance());
  EXPECT_TRUE(device->is_lost());
  Status s = device->check();
  EXPECT_EQ(s.code(), ErrorCode::kDeviceLost) << s.to_string();
  EXPECT_NE(s.message().find("forced by the test"), std::string::npos) << s.message();

  Result<Buffer> after = Buffer::create_storage(device, 64, "after");
  EXPECT_EQ(after.status().code(), ErrorCode::kDeviceLost) << after.status().to_string();
  float value = 1.0f;
  EXPECT_EQ(before.value().write(&value, 4).code(), ErrorCode::kDeviceLost);
  EXPECT_EQ(before.value().read(&value, 4).code(), ErrorCode::kDeviceLost);
}

}  // namespace
}  // namespace wick::gpu

#else  // !WICK_HAVE_WEBGPU

TEST(GpuDevice, BuiltWithoutDawn) {
  GTEST_SKIP() << "built without Dawn: run scripts/fetch_dawn.sh and reconfigure";
}

#endif
