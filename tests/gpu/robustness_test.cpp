// gpu::DeviceOptions::robust_buffer_access: Dawn's robustness on (the default, as in every
// browser) clamps a storage index past its binding to the binding's last element; off (the
// disable_robustness toggle) the shader reads where the index points. The read stays inside
// the buffer (only the binding is shorter), so both devices give a defined value.
// Shader: tests/gpu/wgsl/index_past_range.wgsl.
#include <gtest/gtest.h>

#ifdef WICK_HAVE_WEBGPU

#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/command.h"
#include "gpu/device.h"
#include "gpu/pipeline.h"
#include "gpu_test_util.h"

namespace wick::gpu {
namespace {

// src holds 0, 1, 2, ... 63; its binding covers the first 4; the shader reads index 6.
Result<uint32_t> read_past_binding(std::shared_ptr<Device> device) {
  std::vector<uint32_t> values(64);
  std::iota(values.begin(), values.end(), 0u);
  WICK_ASSIGN_OR_RETURN(Buffer src, Buffer::create_storage(device, values.size() * 4, "src"));
  WICK_ASSIGN_OR_RETURN(Buffer dst, Buffer::create_storage(device, 16, "dst"));
  WICK_ASSIGN_OR_RETURN(Buffer at, Buffer::create_uniform(device, 16, "at"));
  WICK_RETURN_IF_ERROR(src.write(values.data(), values.size() * 4));
  const uint32_t index[4] = {6, 0, 0, 0};
  WICK_RETURN_IF_ERROR(at.write(index, sizeof index));
  PipelineCache cache(device, [](std::string_view name) { return test::find_wgsl(name); });
  WICK_ASSIGN_OR_RETURN(auto pipeline, cache.get(PipelineKey("index_past_range")));
  Dispatch d;
  d.pipeline = pipeline;
  d.bindings = {{.binding = 0, .buffer = &src, .offset = 0, .size = 16},
                {.binding = 1, .buffer = &dst},
                {.binding = 2, .buffer = &at}};
  d.x = 1;
  CommandList list(device);
  WICK_RETURN_IF_ERROR(list.add(std::move(d)).status());
  WICK_RETURN_IF_ERROR(list.submit().status());
  uint32_t out = 0;
  WICK_RETURN_IF_ERROR(dst.read(&out, 4));
  return out;
}

TEST(GpuRobustness, OnClampsAnIndexPastTheBinding) {
  ASSERT_EQ(std::getenv("WICK_ROBUSTNESS"), nullptr) << "WICK_ROBUSTNESS overrides the option under test";
  WICK_GPU_DEVICE_OR_FAIL(device);
  ASSERT_TRUE(device->options().robust_buffer_access);
  Result<uint32_t> got = read_past_binding(device);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got.value(), 3u) << "clamped to the binding's last element";
}

TEST(GpuRobustness, OffReadsWhereTheIndexPoints) {
  ASSERT_EQ(std::getenv("WICK_ROBUSTNESS"), nullptr) << "WICK_ROBUSTNESS overrides the option under test";
  DeviceOptions options;
  options.robust_buffer_access = false;
  Result<std::shared_ptr<Device>> device = Device::create(options);
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  ASSERT_FALSE(device.value()->options().robust_buffer_access);
  Result<uint32_t> got = read_past_binding(device.value());
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got.value(), 6u) << "the unclamped element";
}

}  // namespace
}  // namespace wick::gpu

#endif  // WICK_HAVE_WEBGPU
