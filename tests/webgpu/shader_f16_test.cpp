// The shader-f16 path (`enable f16;` arithmetic), which needs an adapter with shader-f16:
// Mesa's lavapipe here, not SwiftShader. These tests (suite ShaderF16*) run only in the
// ctest test wick_gpu_tests_lavapipe_f16 (tests/CMakeLists.txt: VK_ICD_FILENAMES names
// lavapipe), and they fail, never skip, on an adapter without shader-f16.
#include <gtest/gtest.h>

#include <string>

#include "gpu/device.h"
#include "gpu/gpu_test_util.h"

namespace wick {
namespace {

// The adapter these tests run on: every f16 test below means nothing without it.
TEST(ShaderF16, AdapterHasShaderF16) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  std::string features;
  for (const std::string& f : device->feature_names()) features += " " + f;
  std::printf("[ adapter  ] %s; features:%s\n", device->adapter_info().summary().c_str(), features.c_str());
  ASSERT_TRUE(device->has_feature(gpu::Feature::kShaderF16))
      << device->adapter_info().summary() << " has no shader-f16 (features:" << features
      << "); run these tests on Mesa's lavapipe: VK_ICD_FILENAMES=$WICK_LAVAPIPE_ICD (scripts/env.sh), "
         "or `ctest -R lavapipe`";
}

}  // namespace
}  // namespace wick
