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
  auto program = Program::load_file(f.pte());
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto method = (*program)->load_method(f.method);
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  ASSERT_FALSE(f.cases.empty());
  for (size_t c = 0; c < f.cases.size(); ++c) {
    // Stateful fixtures run their cases in order on one method; others too (no state).
    auto outputs = (*method)->forward(f.cases[c].inputs);
    ASSERT_TRUE(outputs.ok()) << "case " << c << ": " << outputs.status().to_string();
    ASSERT_EQ(outputs->size(), f.cases[c].outputs.size());
    for (size_t o = 0; o < outputs->size(); ++o)
      EXPECT_TRUE(test::values_close((*outputs)[o], f.cases[c].outputs[o], f.atol, f.rtol))
          << f.rel << " case " << c << " output " << o;
  }
}

INSTANTIATE_TEST_SUITE_P(All, CpuFixture,
                         ::testing::ValuesIn(test::fixtures_in_groups({"cpu", "ops_undelegated"})),
                         [](const auto& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace wick
