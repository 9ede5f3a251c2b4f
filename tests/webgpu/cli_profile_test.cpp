// `wick run --profile` on the WebGPU delegate prints host rows: every CPU op and every
// delegate call of the step with its wall time, each delegate call split into phases
// (upload, prepare, encode, submit, wait for the GPU, readback). The rows must cover the
// program (3 delegates and the 3 CPU ops between them in ops/sdpa, the pattern of
// transformers' attention) and add up: phases within their call, calls within the step.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>

#include "test_util.h"

#ifdef WICK_CLI_PATH
namespace wick {
namespace {

TEST(WickCliProfile, HostRowsOfDelegateCallsAndCpuOpsAddUp) {
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
  // ops one call): this checks the rows of several delegate calls and CPU ops.
  test::CommandResult r = test::run_command("WICK_FUSE_DELEGATES=0 " + std::string(WICK_CLI_PATH) + " run " + f.pte() +
                                            " --backend webgpu --profile" + flags + " --output-dir " + dir.string());
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.code, 0) << r.out;

  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(step 0: forward ([\d.]+) ms wall on the webgpu backend, (\d+) calls)")))
      << r.out;
  const double forward_ms = std::stod(m[1]);
  EXPECT_EQ(std::stoi(m[2]), 6) << r.out;

  const std::regex delegate_row(
      R"(\n +\d+ +([\d.]+)  delegate \d+  \[upload ([\d.]+) ms [\d.]+ MiB \| prepare ([\d.]+) \| encode ([\d.]+) \| )"
      R"(submit ([\d.]+) x(\d+) \| wait ([\d.]+), GPU ([\d.]+) \| readback ([\d.]+) ms [\d.]+ MiB \| (\d+) dispatches\])");
  int delegates = 0;
  double rows_ms = 0;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), delegate_row); it != std::sregex_iterator(); ++it) {
    const std::smatch& d = *it;
    const double call_ms = std::stod(d[1]);
    double phases = 0;
    for (int k : {2, 3, 4, 5, 7, 9}) phases += std::stod(d[k]);
    // Each phase is printed rounded to 1 us; the call also checks the device and builds
    // error contexts, so the phases fit inside it.
    EXPECT_LE(phases, call_ms + 0.006) << d.str();
    EXPECT_GT(std::stoi(d[10]), 0) << d.str();
    EXPECT_EQ(std::stoi(d[6]), 1) << d.str();  // profiled calls submit one command buffer
    rows_ms += call_ms;
    ++delegates;
  }
  EXPECT_EQ(delegates, 3) << r.out;

  const std::regex op_row(R"(\n +\d+ +([\d.]+)  (aten::[\w.]+)\n)");
  int ops = 0;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), op_row); it != std::sregex_iterator(); ++it) {
    rows_ms += std::stod((*it)[1]);
    ++ops;
  }
  EXPECT_EQ(ops, 3) << r.out;  // any(-1) and the two mul.Scalar outside the delegates

  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(\n +total +([\d.]+)  )"))) << r.out;
  const double total_ms = std::stod(m[1]);
  EXPECT_NEAR(total_ms, rows_ms, 0.001 * 6 + 1e-9) << r.out;
  EXPECT_LE(total_ms, forward_ms + 0.001) << r.out;
  EXPECT_NE(r.out.find("host: 3 delegate calls"), std::string::npos) << r.out;
  // The GPU's per-dispatch table follows, as before.
  EXPECT_TRUE(std::regex_search(r.out, m, std::regex(R"(total: \d+ dispatches, [\d.]+ us GPU time)"))) << r.out;
}

}  // namespace
}  // namespace wick
#endif  // WICK_CLI_PATH
