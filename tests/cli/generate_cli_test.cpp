// `wick generate` argument handling: --help, and every bad argument a clear one-line
// error before any model runs (these need no GPU; runs on fixtures are in
// tests/llm/runner_test.cpp, through the same Runner).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_util.h"

#ifdef WICK_CLI_PATH
namespace wick {
namespace {

using CliResult = test::CommandResult;

CliResult generate(const std::string& args) {
  return test::run_command(std::string(WICK_CLI_PATH) + " generate " + args);
}

std::string qwen3() { return test::fixtures_dir() + "/demos/qwen3_tiny_kv/model.pte"; }

TEST(WickGenerate, HelpPrintsUsage) {
  CliResult r = generate("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("usage: wick generate MODEL.pte"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--prompt-tokens"), std::string::npos);
}

TEST(WickGenerate, BadArgumentsAreClearErrors) {
  const std::string m = qwen3();
  struct Case {
    std::string args, message;
    int code;
  } cases[] = {
      {"--prompt-tokens 1", "missing MODEL.pte", 2},
      {m, "give exactly one of --prompt TEXT and --prompt-tokens", 2},
      {m + " --prompt hi --prompt-tokens 1", "give exactly one of", 2},
      {m + " --prompt hi", "--prompt needs --tokenizer", 2},
      {m + " --prompt-tokens 1,,2", "--prompt-tokens expects an integer >= 0, got ''", 2},
      {m + " --prompt-tokens -3", "expects an integer >= 0, got '-3'", 2},
      {m + " --prompt-tokens 1 --max-new-tokens 0", "--max-new-tokens expects an integer >= 1", 2},
      {m + " --prompt-tokens 1 --temperature abc", "--temperature expects a number, got 'abc'", 2},
      {m + " --prompt-tokens 1 --temperature -1", "temperature must be a finite number >= 0", 2},
      {m + " --prompt-tokens 1 --min-p 3", "min_p must be in [0, 1]", 2},
      {m + " --prompt-tokens 1 --repetition-penalty 0", "repetition_penalty must be > 0", 2},
      {m + " --prompt-tokens 1 --greedy --seed 3", "--greedy cannot be combined", 2},
      {m + " --prompt-tokens 1 --chat", "--chat needs --prompt TEXT", 2},
      {m + " --prompt-tokens 1 --bogus", "unexpected argument '--bogus'", 2},
      {m + " --prompt-tokens 1 --max-new-tokens", "--max-new-tokens needs a value", 2},
      {m + " --prompt-tokens 1 --backend tpu", "unknown backend 'tpu'", 1},
      {"/nonexistent/model.pte --prompt-tokens 1", "/nonexistent/model.pte: cannot open file", 1},
      {m + " --tokenizer /nonexistent/tokenizer.json --prompt-tokens 1", "/nonexistent/tokenizer.json", 1},
  };
  for (const Case& c : cases) {
    CliResult r = generate(c.args);
    EXPECT_EQ(r.code, c.code) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << "\n" << r.out;
  }
}

// The default backend is auto, as for `wick run`: with no Vulkan driver (so no WebGPU
// adapter) the delegated program runs on the CPU, the output says so, and the first
// greedy token after the fixture's 5-token prefill is the argmax of PyTorch's logits
// (99, ahead of the next by 36).
TEST(WickGenerate, DefaultBackendIsAutoAndFallsBackToTheCpu) {
  std::ifstream in(test::fixtures_dir() + "/demos/qwen3_tiny_kv/case0_output0.bin", std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 512 * sizeof(float));
  std::vector<float> logits(512);
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(logits.data()));
  const int want = static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());

  const std::string no_gpu = "VK_ICD_FILENAMES=/nonexistent/icd.json ";
  const std::string args = " generate " + qwen3() + " --prompt-tokens 17,301,42,5,99 --max-new-tokens 1 --max-context-len 64";
  CliResult json = test::run_command(no_gpu + WICK_CLI_PATH + args + " --json");
  ASSERT_EQ(json.code, 0) << json.out;
  // The object is the one line of stdout; the Vulkan loader's warnings come before it.
  const size_t at = json.out.rfind("\n{");
  auto j = nlohmann::json::parse(json.out.substr(at == std::string::npos ? 0 : at + 1), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << json.out;
  EXPECT_EQ(j["backend"], "cpu") << json.out;
  EXPECT_EQ(j["tokens"], nlohmann::json::array({want})) << json.out;

  CliResult text = test::run_command(no_gpu + WICK_CLI_PATH + args);
  EXPECT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("wick generate: backend: cpu (auto: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(std::to_string(want)), std::string::npos) << text.out;
}

}  // namespace
}  // namespace wick
#endif
