// gpu/wgsl_registry: every shader embedded from src/gpu and src/webgpu compiles.
#include <gtest/gtest.h>

#ifdef WICK_HAVE_WEBGPU

#include <string>

#include "gpu/pipeline.h"
#include "gpu/wgsl_registry.h"
#include "gpu_test_util.h"

namespace wick::gpu {
namespace {

TEST(GpuWgslRegistry, NamesAreSortedAndFound) {
  std::vector<std::string_view> names = wgsl_names();
  for (size_t i = 1; i < names.size(); ++i) EXPECT_LT(names[i - 1], names[i]);
  for (std::string_view name : names) EXPECT_FALSE(find_wgsl(name).empty()) << name;
  EXPECT_TRUE(find_wgsl("").empty());
}

// Compiles each shader module (not pipelines: entry points and override constants are the
// caller's business). Shaders that enable a feature this device lacks are skipped.
TEST(GpuWgslRegistry, EveryEmbeddedShaderCompiles) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  PipelineCache cache(device);
  std::string failures;
  int compiled = 0, skipped = 0;
  for (std::string_view name : wgsl_names()) {
    std::string_view text = find_wgsl(name);
    if ((text.find("enable f16;") != std::string_view::npos &&
         !device->has_feature(Feature::kShaderF16)) ||
        (text.find("enable subgroups;") != std::string_view::npos &&
         !device->has_feature(Feature::kSubgroups))) {
      ++skipped;
      continue;
    }
    Status s = cache.prepare_shader(std::string(name));
    if (s.ok()) {
      ++compiled;
    } else {
      failures += "\n" + s.message();
    }
  }
  std::printf("[ wgsl     ] %d compiled, %d skipped (feature missing)\n", compiled, skipped);
  EXPECT_TRUE(failures.empty()) << failures;
  EXPECT_TRUE(device->check().ok());
}

}  // namespace
}  // namespace wick::gpu

#endif  // WICK_HAVE_WEBGPU
