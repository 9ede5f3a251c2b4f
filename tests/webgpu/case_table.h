// Case tables for value-parameterized tests: a row struct with a `const char* name` gives the
// gtest name of its test (CaseName), the seed of its random data (case_rng: each row's data
// independent of the rows before it) and, through a one-line PrintTo beside the row type,
// what gtest and ctest's listing show for the row (its name, not its bytes).
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace wick::test {

// INSTANTIATE_TEST_SUITE_P(..., ::testing::ValuesIn(kRows), test::CaseName()).
struct CaseName {
  template <typename Row>
  std::string operator()(const ::testing::TestParamInfo<Row>& info) const {
    return info.param.name;
  }
};

// A generator seeded by the row's name.
inline std::mt19937 case_rng(const char* name) {
  const std::string s = name;
  std::seed_seq seq(s.begin(), s.end());
  return std::mt19937(seq);
}

}  // namespace wick::test
