// `wick generate` argument handling: --help, and every bad argument a clear one-line
// error before any model runs (these need no GPU; runs on fixtures are in
// tests/llm/runner_test.cpp, through the same Runner).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

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

}  // namespace
}  // namespace wick
#endif
