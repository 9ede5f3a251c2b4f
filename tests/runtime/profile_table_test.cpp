// The profile table of several calls (`wick run --profile-runs`): each row's median over
// the calls after the first, the first call's time beside it, and TFLOP/s from the op's
// FLOPs and the median of its dispatches' time.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "runtime/profile_table.h"

namespace wick {
namespace {

std::string printed(void (*print)(std::FILE*, const std::vector<std::vector<ProfileRow>>&, const ProfileWords&),
                    const std::vector<std::vector<ProfileRow>>& runs) {
  std::FILE* f = std::tmpfile();
  print(f, runs, {"op kernel", "gpu us", "dispatches", "GPU time"});
  std::rewind(f);
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, f)) text += buf;
  std::fclose(f);
  return text;
}

ProfileRow row(const char* label, uint64_t us, double flops = 0, uint64_t op_us = 0) {
  return ProfileRow{label, us * 1000, flops, op_us * 1000};
}

TEST(ProfileTable, MediansOfTheCallsAfterTheFirst) {
  // The first call is slow (one-time costs) and left out of the medians.
  const std::vector<std::vector<ProfileRow>> runs = {
      {row("a.mm mm", 900, 4e9, 900), row("a.add binary", 50)},
      {row("a.mm mm", 300, 4e9, 300), row("a.add binary", 10)},
      {row("a.mm mm", 100, 4e9, 100), row("a.add binary", 30)},
      {row("a.mm mm", 200, 4e9, 200), row("a.add binary", 20)},
  };
  size_t used = 0;
  const std::vector<ProfileRow> m = median_rows(runs, &used);
  EXPECT_EQ(used, 3u);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].ns, 200000u);
  EXPECT_EQ(m[0].op_ns, 200000u);
  EXPECT_EQ(m[1].ns, 20000u);
  EXPECT_EQ(m[0].flops, 4e9);

  const std::string text = printed(print_profile_runs, runs);
  EXPECT_NE(text.find("first us"), std::string::npos) << text;
  EXPECT_NE(text.find("GFLOP"), std::string::npos) << text;
  // 4 GFLOP in the median 200 us: 20 TFLOP/s; the first call's 900 us beside the median.
  EXPECT_NE(text.find("200.00       900.00    4.0000    20.00"), std::string::npos) << text;
  EXPECT_NE(text.find("total: 2 dispatches, 220.00 us GPU time (median of 3 calls after the first; the first call 950.00 us)"),
            std::string::npos)
      << text;
}

TEST(ProfileTable, OneCallPrintsTheTableAsBefore) {
  const std::string text = printed(print_profile_runs, {{row("a.add binary", 12)}});
  EXPECT_EQ(text.find("first us"), std::string::npos) << text;
  EXPECT_EQ(text.find("GFLOP"), std::string::npos) << text;
  EXPECT_NE(text.find("total: 1 dispatches, 12.00 us GPU time\n"), std::string::npos) << text;
}

TEST(ProfileTable, FlopSummaryOfTheLargestOps) {
  std::FILE* f = std::tmpfile();
  print_flop_summary(f, {row("c.conv conv", 100, 3e9, 150), row("c.relu unary", 40), row("c.mm mm", 10, 1e9, 10)}, 1);
  std::rewind(f);
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, f)) text += buf;
  std::fclose(f);
  // Both counted ops: 4 GFLOP in 160 us (25 TFLOP/s); the largest alone: 3 GFLOP in 150 us.
  EXPECT_NE(text.find("conv/matmul/attention: 2 ops, 4.000 GFLOP in 160.00 us (25.00 TFLOP/s)"), std::string::npos) << text;
  EXPECT_NE(text.find("largest 1 by FLOPs: 3.000 GFLOP in 150.00 us (20.00 TFLOP/s)"), std::string::npos) << text;
  EXPECT_NE(text.find("c.conv conv"), std::string::npos) << text;
  EXPECT_EQ(text.find("c.mm mm"), std::string::npos) << text;
}

}  // namespace
}  // namespace wick
