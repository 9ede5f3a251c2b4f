// Every CPU-only fixture (groups `cpu` and `ops_undelegated`) through the library:
// outputs must match PyTorch eager within the manifest's tolerance.
#include <gtest/gtest.h>

#include "runtime/program.h"
#include "test_util.h"

namespace wick {
namespace {

class CpuFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuFixture, MatchesReference) {
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture(GetParam(), &f));
  ASSERT_FALSE(f.cases.empty());
  test::expect_fixture_matches(f);
}

INSTANTIATE_TEST_SUITE_P(All, CpuFixture,
                         ::testing::ValuesIn(test::fixtures_in_groups({"cpu", "ops_undelegated"})),
                         [](const auto& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace wick
