// The WebGPU delegate's embedded shaders (webgpu/wgsl_shaders.h, gpu/wgsl_registry.h): every one compiles.
#include <gtest/gtest.h>

#ifdef WICK_HAVE_WEBGPU

#include <string>

#include "gpu/pipeline.h"
#include "gpu/wgsl_registry.h"
#include "gpu_test_util.h"
#include "webgpu/wgsl_shaders.h"
#include "wgsl/wick_gpu_shaders.h"

namespace wick::gpu {
namespace {

using webgpu::find_wgsl;
using webgpu::wgsl_names;

TEST(GpuWgslRegistry, NamesAreSortedAndFound) {
  std::vector<std::string_view> names = wgsl_names();
  for (size_t i = 1; i < names.size(); ++i) EXPECT_LT(names[i - 1], names[i]);
  for (std::string_view name : names) EXPECT_FALSE(find_wgsl(name).empty()) << name;
  EXPECT_TRUE(find_wgsl("").empty());
}

// Modules (*.inc.wgsl) are expanded into the shaders that include them, once each, and
// are not shaders themselves; the generated constants name registered shaders.
TEST(GpuWgslRegistry, ModulesAreExpandedAtEmbedTime) {
  for (std::string_view name : wgsl_names()) {
    std::string_view text = find_wgsl(name);
    EXPECT_EQ(text.find("//#include"), std::string_view::npos) << name;
    EXPECT_EQ(name.find(".inc"), std::string_view::npos) << name;
  }
  std::string_view pw = find_wgsl(shaders::conv2d_pw.name);
  ASSERT_FALSE(pw.empty());
  EXPECT_NE(pw.find("fn epilogue_step("), std::string_view::npos);
  // conv2d_pw includes dispatch.inc.wgsl itself and through conv2d_common: one copy.
  size_t first = pw.find("fn flat_workgroup(");
  ASSERT_NE(first, std::string_view::npos);
  EXPECT_EQ(pw.find("fn flat_workgroup(", first + 1), std::string_view::npos);
  EXPECT_FALSE(find_wgsl(shaders::matmul_tiled.name).empty());
}

// Compiles each shader module (not pipelines: entry points and override constants are the
// caller's business). Shaders that enable a feature this device lacks are skipped.
TEST(GpuWgslRegistry, EveryEmbeddedShaderCompiles) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  PipelineCache cache(device, find_wgsl);
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
