// The per-operator fixtures of issue 14 (tests/fixtures/ops/<name>/, made on the device
// machine by scripts/export_ops/export_ops.py with the real ExecuTorch toolchain and
// VulkanPartitioner, PyTorch eager references) run through Program -> Method on the WebGPU
// delegate and compared within each manifest's tolerance (comparisons and integers exact).
// These live in the repository, not in ../shared/fixtures, so delegate_fixtures_test.cpp
// (which walks the shared index) does not see them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "runtime/program.h"
#include "test_util.h"
#include "webgpu/backend.h"

namespace wick {
namespace {

std::string op_fixtures_dir() { return test::source_dir() + "/tests/fixtures/ops"; }

std::vector<std::string> op_fixture_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(op_fixtures_dir(), ec))
    if (e.is_directory() && std::filesystem::exists(e.path() / "manifest.json")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class OpFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(OpFixture, MatchesEagerReference) {
  Status s = webgpu::register_webgpu_backend();
  ASSERT_TRUE(s.ok()) << "no WebGPU device: " << s.to_string();
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture_at(op_fixtures_dir() + "/" + GetParam(), "ops/" + GetParam(), &f));
  test::expect_fixture_matches(f);
}

INSTANTIATE_TEST_SUITE_P(All, OpFixture, ::testing::ValuesIn(op_fixture_names()),
                         [](const auto& info) { return test::param_name(info.param); });
// Before the fixtures are brought back from the device machine the suite is empty.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpFixture);

}  // namespace
}  // namespace wick
