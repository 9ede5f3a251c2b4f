// The int8 op fixtures of tests/fixtures/ops (q8ta_*, exported on the device machine by
// scripts/export_ops with the real toolchain) on the CPU executor of VK00 graphs (src/vkcpu),
// the path a host without a WebGPU adapter takes: the et_vk.q8ta_* kernels of
// kernels/cpu/q8ta.cpp and the delegate's quantize / dequantize (whose dtype argument the
// serializer writes as None), compared with the PyTorch references within each manifest's
// tolerance. tests/webgpu/op_fixtures_test.cpp runs the same fixtures on WebGPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "backends/choice.h"
#include "runtime/program.h"
#include "test_util.h"

namespace wick {
namespace {

std::string ops_dir() { return test::source_dir() + "/tests/fixtures/ops"; }

std::vector<std::string> q8ta_fixtures() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(ops_dir(), ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("q8ta_", 0) == 0 && std::filesystem::exists(e.path() / "manifest.json")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

class CpuQ8taFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuQ8taFixture, MatchesEagerReference) {
  auto choice = use_backend(DelegateTarget::kCpu);
  ASSERT_TRUE(choice.ok()) << choice.status().to_string();
  ASSERT_EQ(choice->target, DelegateTarget::kCpu);
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture_at(ops_dir() + "/" + GetParam(), "ops/" + GetParam(), &f));
  test::expect_fixture_matches(f);
}

INSTANTIATE_TEST_SUITE_P(All, CpuQ8taFixture, ::testing::ValuesIn(q8ta_fixtures()),
                         [](const auto& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace wick
