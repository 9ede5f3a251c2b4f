// `wick run --profile` on the WebGPU delegate prints host rows: every CPU op and every
// delegate call of the step with its wall time, each delegate call split into phases
// (upload, prepare, encode, submit, wait for the GPU, readback). The rows must cover the
// program (3 delegates and the 3 CPU ops between them in ops/sdpa, the pattern of
// transformers' attention) and add up: phases within their call, calls within the step.
// By default the step runs 6 times: the first call on its own (it pays the one-time
// costs), then the medians of the other 5, host rows and GPU table alike.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>

#include "test_util.h"

#ifdef WICK_CLI_PATH
namespace wick {
namespace {

// The host rows of one section (a call, or the medians of several): 3 delegate calls and
// 3 CPU ops, the rows within the step's total. `add_up`: a call's phases fit in the call
// (one call's own figures; medians are taken figure by figure, so there each phase only
// stays below its call).
void check_host_section(const std::string& text, const std::string& header, bool add_up) {
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex(header + R"(: forward ([\d.]+) ms wall on the webgpu backend, (\d+) calls)")))
      << text;
  const double forward_ms = std::stod(m[1]);
  EXPECT_EQ(std::stoi(m[2]), 6) << text;

  const std::regex delegate_row(
      R"(\n +\d+ +([\d.]+)  delegate \d+  \[upload ([\d.]+) ms [\d.]+ MiB \| prepare ([\d.]+) \| encode ([\d.]+) \| )"
      R"(submit ([\d.]+) x(\d+) \| wait ([\d.]+), GPU ([\d.]+) \| readback ([\d.]+) ms [\d.]+ MiB \| (\d+) dispatches\])");
  int delegates = 0;
  double rows_ms = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), delegate_row); it != std::sregex_iterator(); ++it) {
    const std::smatch& d = *it;
    const double call_ms = std::stod(d[1]);
    double phases = 0;
    for (int k : {2, 3, 4, 5, 7, 9}) {
      phases += std::stod(d[k]);
      EXPECT_LE(std::stod(d[k]), call_ms + 0.001) << d.str();
    }
    // Each phase is printed rounded to 1 us; the call also checks the device and builds
    // error contexts, so the phases fit inside it.
    if (add_up) {
      EXPECT_LE(phases, call_ms + 0.006) << d.str();
    }
    EXPECT_GT(std::stoi(d[10]), 0) << d.str();
    EXPECT_EQ(std::stoi(d[6]), 1) << d.str();  // profiled calls submit one command buffer
    rows_ms += call_ms;
    ++delegates;
  }
  EXPECT_EQ(delegates, 3) << text;

  const std::regex op_row(R"(\n +\d+ +([\d.]+)  (aten::[\w.]+)\n)");
  int ops = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), op_row); it != std::sregex_iterator(); ++it) {
    rows_ms += std::stod((*it)[1]);
    ++ops;
  }
  EXPECT_EQ(ops, 3) << text;  // any(-1) and the two mul.Scalar outside the delegates

  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(\n +total +([\d.]+)  )"))) << text;
  const double total_ms = std::stod(m[1]);
  if (add_up) {
    EXPECT_NEAR(total_ms, rows_ms, 0.001 * 6 + 1e-9) << text;
    EXPECT_LE(total_ms, forward_ms + 0.001) << text;
  }
  EXPECT_NE(text.find("host: 3 delegate calls"), std::string::npos) << text;
}

TEST(WickCliProfile, FirstCallAndMediansOfLaterCalls) {
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture("ops/sdpa", &f));
  std::string flags;
  for (const auto& in : f.manifest["cases"][0]["inputs"]) {
    std::string shape;
    for (auto d : in["shape"]) shape += (shape.empty() ? "" : ",") + std::to_string(d.get<int64_t>());
    flags += " --input " + f.dir + "/" + in["file"].get<std::string>() + ":" + in["dtype"].get<std::string>() + ":" + shape;
  }
  const auto dir = std::filesystem::temp_directory_path() / ("wick_cli_profile_" + std::to_string(::getpid()));
  // Unfused (runtime/fuse_runs.cpp would make the three delegates and two of the host
  // ops one call): this checks the rows of several delegate calls and CPU ops. The default
  // --profile-runs: the first call, then the medians of 5 more.
  test::CommandResult r = test::run_command("WICK_FUSE_DELEGATES=0 " + std::string(WICK_CLI_PATH) + " run " + f.pte() +
                                            " --backend webgpu --profile" + flags + " --output-dir " + dir.string());
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.code, 0) << r.out;

  const size_t first = r.out.find("step 0 first call: forward");
  const size_t medians = r.out.find("\nstep 0: forward");
  ASSERT_NE(first, std::string::npos) << r.out;
  ASSERT_NE(medians, std::string::npos) << r.out;
  ASSERT_LT(first, medians) << r.out;
  EXPECT_NE(r.out.find("(median of 5 calls after the first)"), std::string::npos) << r.out;
  check_host_section(r.out.substr(first, medians - first), "step 0 first call", true);
  const size_t table = r.out.find("\n#", medians);
  ASSERT_NE(table, std::string::npos) << r.out;
  check_host_section(r.out.substr(medians, table - medians), "step 0", false);

  // The GPU's per-dispatch table follows: medians with the first call's time beside them.
  std::smatch m;
  EXPECT_TRUE(std::regex_search(r.out, m, std::regex(R"(#\s+op kernel\s+gpu us\s+first us)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, m, std::regex(R"(total: \d+ dispatches, [\d.]+ us GPU time \(median of 5 calls after the first; the first call [\d.]+ us\))")))
      << r.out;
}

// `wick bench` (no timestamps) prints each delegate call's host phases as means over the
// timed runs only: with ops/sdpa's three delegates unfused, each run makes 3 calls, and the
// phases of one run's calls fit in its mean wall time (the warm-up's first call, which
// compiles the pipelines, would not: it is left out of the means).
TEST(WickCliProfile, BenchPrintsHostPhasesOfTheTimedCalls) {
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture("ops/sdpa", &f));
  test::CommandResult r = test::run_command("WICK_FUSE_DELEGATES=0 " + std::string(WICK_CLI_PATH) + " bench " + f.pte() +
                                            " --backend webgpu --runs 8 --warmup 2");
  ASSERT_EQ(r.code, 0) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(over 8 runs \(2 warm-up\); mean ([\d.]+) ms)"))) << r.out;
  const double wall_ms = std::stod(m[1]);
  ASSERT_TRUE(std::regex_search(
      r.out, m,
      std::regex(R"(per delegate call \(mean of (\d+)\): upload ([\d.]+) ms, prepare ([\d.]+), encode ([\d.]+), )"
                 R"(submit ([\d.]+), wait for the GPU ([\d.]+), readback ([\d.]+); sum ([\d.]+) ms)")))
      << r.out;
  EXPECT_EQ(std::stoi(m[1]), 3 * 8) << r.out;
  double phases = 0;
  for (int k = 2; k <= 7; ++k) phases += std::stod(m[k]);
  EXPECT_NEAR(phases, std::stod(m[8]), 0.004) << r.out;
  EXPECT_GT(std::stod(m[6]), 0.0) << r.out;  // the GPU's work is waited for
  EXPECT_LE(3 * std::stod(m[8]), wall_ms + 0.01) << "three calls' phases exceed a run's wall time\n" << r.out;
}

// One call (--profile-runs 1) prints the rows as before, and a convolution's row has its
// FLOPs: ops/conv2d_3x3_s1_p1 is 8 -> 16 channels, 3x3, on a 16x16 plane with padding 1:
// 2 * 16*16*16 * 8*3*3 = 589,824 FLOPs.
TEST(WickCliProfile, OneCallWithConvolutionFlops) {
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture("ops/conv2d_3x3_s1_p1", &f));
  const auto& in = f.manifest["cases"][0]["inputs"][0];
  std::string shape;
  for (auto d : in["shape"]) shape += (shape.empty() ? "" : ",") + std::to_string(d.get<int64_t>());
  const auto dir = std::filesystem::temp_directory_path() / ("wick_cli_profile1_" + std::to_string(::getpid()));
  test::CommandResult r = test::run_command(std::string(WICK_CLI_PATH) + " run " + f.pte() + " --backend webgpu --profile-runs 1 --input " +
                                            f.dir + "/" + in["file"].get<std::string>() + ":float32:" + shape +
                                            " --output-dir " + dir.string());
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find("first call"), std::string::npos) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(\n0 +aten\.convolution\.default \w+ +[\d.]+ +([\d.]+) +[\d.]+\n)"))) << r.out;
  EXPECT_EQ(m[1], "0.0006") << r.out;
  EXPECT_NE(r.out.find("conv/matmul/attention: 1 ops, 0.001 GFLOP"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, m, std::regex(R"(total: 1 dispatches, [\d.]+ us GPU time\n)"))) << r.out;
  // Several steps are profiled once each: repeating one would change what the next sees.
  r = test::run_command(std::string(WICK_CLI_PATH) + " run " + f.pte() + " --backend webgpu --profile-runs 3 --input x.bin:float32:1 --step --input x.bin:float32:1 --output-dir " + dir.string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("--profile-runs repeats a step"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace wick
#endif  // WICK_CLI_PATH
