// The subgroup kernels' assumption about the adapter (src/webgpu/wgsl/subgroup_reduce.inc.wgsl):
// a 1-D workgroup of WG invocations is split into subgroups of consecutive
// local_invocation_index values, subgroup k = [k * size, min((k + 1) * size, WG)), lane
// li % size. WebGPU does not promise it (Vulkan leaves SubgroupLocalInvocationId unrelated to
// the local index), every adapter tried does it; this test runs tests/gpu/wgsl/
// subgroup_layout.wgsl on the adapter under test at workgroup sizes that are, are not, and
// are smaller than a multiple of the subgroup size. An adapter without the `subgroups`
// feature fails it: the subgroup kernels are tested only where they can run (SwiftShader:
// 4 lanes, lavapipe: 8).
#include <gtest/gtest.h>

#ifdef WICK_HAVE_WEBGPU

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/command.h"
#include "gpu/device.h"
#include "gpu/pipeline.h"
#include "gpu_test_util.h"

namespace wick::gpu {
namespace {

TEST(GpuSubgroups, WorkgroupsSplitIntoRunsOfConsecutiveInvocations) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  ASSERT_TRUE(device->has_feature(Feature::kSubgroups))
      << device->adapter_info().summary() << " has no `subgroups` feature: the subgroup kernels cannot be tested here";
  const uint32_t min_size = device->adapter_info().subgroup_min_size, max_size = device->adapter_info().subgroup_max_size;
  std::printf("[ subgroup ] %s: sizes %u..%u\n", device->adapter_info().summary().c_str(), min_size, max_size);
  PipelineCache cache(device, [](std::string_view name) { return test::find_wgsl(name); });
  for (uint32_t wg : {1u, 3u, 7u, 13u, 32u, 33u, 96u, 100u, 256u}) {
    auto pipeline = cache.get(PipelineKey("subgroup_layout").set("WG", wg));
    ASSERT_TRUE(pipeline.ok()) << pipeline.status().to_string();
    constexpr uint32_t kGroups = 8;
    auto buffer = Buffer::create_storage(device, kGroups * wg * 16, "layout");
    ASSERT_TRUE(buffer.ok()) << buffer.status().to_string();
    CommandList list(device);
    Dispatch d;
    d.pipeline = *pipeline;
    d.bindings = {{.binding = 0, .buffer = &*buffer}};
    d.x = kGroups;
    ASSERT_TRUE(list.add(std::move(d)).ok());
    ASSERT_TRUE(list.submit().ok());
    std::vector<uint32_t> got(kGroups * wg * 4);
    ASSERT_TRUE(buffer->read(got.data(), got.size() * 4).ok());
    for (uint32_t i = 0; i < kGroups * wg; ++i) {
      const uint32_t li = i % wg, lane = got[4 * i], size = got[4 * i + 1];
      ASSERT_TRUE(size >= 4 && size <= 128 && size >= min_size && size <= max_size) << "WG " << wg << ": size " << size;
      const uint32_t first = li / size * size, last = std::min(first + size, wg) - 1;
      ASSERT_EQ(lane, li % size) << "WG " << wg << ", invocation " << li;
      ASSERT_EQ(got[4 * i + 2], first) << "WG " << wg << ", invocation " << li << ": subgroup's first invocation";
      ASSERT_EQ(got[4 * i + 3], last) << "WG " << wg << ", invocation " << li << ": subgroup's last invocation";
    }
  }
}

}  // namespace
}  // namespace wick::gpu

#endif  // WICK_HAVE_WEBGPU
