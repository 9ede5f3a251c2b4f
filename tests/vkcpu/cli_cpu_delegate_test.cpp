// `wick run --backend cpu` on every delegated fixture: the CLI path of a host without
// WebGPU, outputs compared with the PyTorch references (all cases as --step calls on one
// loaded method, so KV caches carry over). Also: `auto` falls back to the CPU and says so
// when no adapter can be opened, and inspect reports the backend.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "runtime/tensor_io.h"
#include "test_util.h"

#ifdef WICK_CLI_PATH
namespace wick {
namespace {

test::CommandResult wick_cli(const std::string& args, const std::string& env = "") {
  return test::run_command(env + std::string(WICK_CLI_PATH) + " " + args);
}
// stdout only (Dawn prints its Vulkan loader warnings on stderr), for --json.
test::CommandResult wick_cli_stdout(const std::string& args, const std::string& env = "") {
  return test::run_command("{ " + env + std::string(WICK_CLI_PATH) + " " + args + " 2>/dev/null; }");
}

// No Vulkan driver for Dawn to find: WebGPU has no adapter.
const char* kNoAdapter = "VK_ICD_FILENAMES=/nonexistent.json VK_DRIVER_FILES=/nonexistent.json ";

std::string input_flags(const test::Fixture& f, size_t c) {
  std::string flags;
  for (const auto& in : f.manifest["cases"][c]["inputs"]) {
    std::string shape;
    for (auto d : in["shape"]) shape += (shape.empty() ? "" : ",") + std::to_string(d.get<int64_t>());
    flags += " --input " + f.dir + "/" + in["file"].get<std::string>() + ":" + in["dtype"].get<std::string>() + ":" + shape;
  }
  return flags;
}

std::string tmpdir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("wick_cpu_cli_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

class CliCpuDelegate : public ::testing::TestWithParam<std::string> {};

TEST_P(CliCpuDelegate, RunMatchesReference) {
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture(GetParam(), &f));
  const auto& ref_info = f.manifest["reference"];
  const bool ill_conditioned = ref_info.contains("max_abs_err_fp32_vs_fp64") &&
                               ref_info["max_abs_err_fp32_vs_fp64"].is_number() &&
                               ref_info["max_abs_err_fp32_vs_fp64"].get<double>() > 100 * f.atol;
  const std::string dir = tmpdir(test::param_name(GetParam()));
  std::string flags;
  for (size_t c = 0; c < f.cases.size(); ++c) flags += (c ? " --step" : "") + input_flags(f, c);
  test::CommandResult r = wick_cli("run " + f.pte() + " --backend cpu" + flags + " --output-dir " + dir);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("backend: cpu"), std::string::npos) << r.out;
  for (size_t c = 0; c < f.cases.size(); ++c) {
    const std::string step_dir = f.cases.size() == 1 ? dir : dir + "/step_" + std::to_string(c);
    std::ifstream js(step_dir + "/outputs.json");
    ASSERT_TRUE(js) << "missing outputs.json in " << step_dir;
    nlohmann::json outs = nlohmann::json::parse(js);
    ASSERT_EQ(outs.size(), f.cases[c].outputs.size());
    for (size_t o = 0; o < outs.size(); ++o) {
      const Tensor& ref = f.cases[c].outputs[o].tensor;
      EXPECT_EQ(outs[o]["dtype"], dtype_name(ref.dtype));
      EXPECT_EQ(outs[o]["shape"].get<std::vector<int64_t>>(), ref.sizes);
      auto got = read_raw_tensor(step_dir + "/" + outs[o]["file"].get<std::string>(), ref.dtype, ref.sizes);
      ASSERT_TRUE(got.ok()) << got.status().to_string();
      if (!ill_conditioned) {  // demos/dfine_tiny: shapes only, as its notes say
        EXPECT_TRUE(test::values_close(*got, f.cases[c].outputs[o], f.atol, f.rtol)) << GetParam() << " case " << c;
      }
    }
  }
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(All, CliCpuDelegate,
                         ::testing::ValuesIn(test::fixtures_in_groups({"ops", "models", "demos", "pretrained"})),
                         [](const auto& info) { return test::param_name(info.param); });

TEST(CliBackendChoice, AutoFallsBackToTheCpuWithoutAnAdapter) {
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture("models/mlp", &f));
  const std::string dir = tmpdir("auto");
  test::CommandResult r = wick_cli("run " + f.pte() + input_flags(f, 0) + " --output-dir " + dir, kNoAdapter);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("backend: cpu (auto: "), std::string::npos) << r.out;
  auto got = read_raw_tensor(dir + "/output_0.bin", ScalarType::kFloat, f.cases[0].outputs[0].tensor.sizes);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_TRUE(test::values_close(*got, f.cases[0].outputs[0], f.atol, f.rtol));
  std::filesystem::remove_all(dir);
  // Asked for by name, WebGPU without an adapter is an error, not a silent fallback.
  r = wick_cli("run " + f.pte() + input_flags(f, 0) + " --backend webgpu --output-dir " + dir, kNoAdapter);
  EXPECT_NE(r.code, 0) << r.out;
  std::filesystem::remove_all(dir);
}

TEST(CliBackendChoice, InspectSaysWhichBackendRunsTheDelegates) {
  const std::string pte = test::fixtures_dir() + "/models/mlp/model.pte";
  test::CommandResult r = wick_cli("inspect " + pte + " --backend cpu");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("delegates: backend: cpu"), std::string::npos) << r.out;
  r = wick_cli_stdout("inspect " + pte + " --json", kNoAdapter);
  ASSERT_EQ(r.code, 0) << r.out;
  nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["backend"], "cpu");
  // A program without delegates needs no backend choice.
  r = wick_cli_stdout("inspect " + test::fixtures_dir() + "/cpu/mlp_cpu/model.pte --json", kNoAdapter);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["backend"].is_null());
}

TEST(CliBackendChoice, UnknownBackendIsAnError) {
  const std::string pte = test::fixtures_dir() + "/models/mlp/model.pte";
  test::CommandResult r = wick_cli("run " + pte + " --backend vulkan --output-dir /tmp/x");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.out.find("unknown backend 'vulkan' (expected auto, webgpu or cpu)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace wick
#endif
