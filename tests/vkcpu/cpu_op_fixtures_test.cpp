// Every op fixture of tests/fixtures/ops (exported on the device machine by scripts/export_ops
// with the real toolchain) on the CPU executor of VK00 graphs (src/vkcpu), the path a host
// without a WebGPU adapter takes: among them the int8 q8ta_* kernels (kernels/cpu/q8ta.cpp),
// the delegate's quantize / dequantize (whose dtype argument the serializer writes as None),
// and torchao's 8da4w flow (kernels/cpu/quantized_8da4w.cpp, up to the tiny 8da4w Llama),
// compared with the PyTorch references within each manifest's tolerance.
// tests/webgpu/op_fixtures_test.cpp runs the same fixtures on WebGPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "backends/choice.h"
#include "runtime/program.h"
#include "test_util.h"

namespace wick {
namespace {

std::string ops_dir() { return test::source_dir() + "/tests/fixtures/ops"; }

std::vector<std::string> op_fixtures() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(ops_dir(), ec))
    if (e.is_directory() && std::filesystem::exists(e.path() / "manifest.json")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class CpuOpFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuOpFixture, MatchesEagerReference) {
  auto choice = use_backend(DelegateTarget::kCpu);
  ASSERT_TRUE(choice.ok()) << choice.status().to_string();
  ASSERT_EQ(choice->target, DelegateTarget::kCpu);
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture_at(ops_dir() + "/" + GetParam(), "ops/" + GetParam(), &f));
  test::expect_fixture_matches(f);
}

INSTANTIATE_TEST_SUITE_P(All, CpuOpFixture, ::testing::ValuesIn(op_fixtures()),
                         [](const auto& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace wick
