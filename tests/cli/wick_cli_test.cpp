// The `wick` command line on real files: run writes outputs that match the references,
// inspect describes, and failures exit non-zero with a one-line error.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <nlohmann/json.hpp>

#include "image/png_io.h"
#include "pte_patch.h"
#include "runtime/tensor_io.h"
#include "test_util.h"

#ifdef WICK_CLI_PATH
namespace wick {
namespace {

using CliResult = test::CommandResult;

CliResult sh(const std::string& args) { return test::run_command(std::string(WICK_CLI_PATH) + " " + args); }

std::string tmpdir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("wick_cli_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

std::string input_flags(const test::Fixture& f, size_t c) {
  std::string flags;
  for (const auto& in : f.manifest["cases"][c]["inputs"]) {
    std::string shape;
    for (auto d : in["shape"]) shape += (shape.empty() ? "" : ",") + std::to_string(d.get<int64_t>());
    flags += " --input " + f.dir + "/" + in["file"].get<std::string>() + ":" + in["dtype"].get<std::string>() + ":" + shape;
  }
  return flags;
}

class CliCpuFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CliCpuFixture, RunMatchesReference) {
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture(GetParam(), &f));
  std::string dir = tmpdir(test::param_name(GetParam()));
  std::string flags;
  for (size_t c = 0; c < f.cases.size(); ++c) flags += (c ? " --step" : "") + input_flags(f, c);
  CliResult r = sh("run " + f.pte() + " --backend cpu" + flags + " --output-dir " + dir);
  ASSERT_EQ(r.code, 0) << r.out;
  for (size_t c = 0; c < f.cases.size(); ++c) {
    std::string step_dir = f.cases.size() == 1 ? dir : dir + "/step_" + std::to_string(c);
    std::ifstream js(step_dir + "/outputs.json");
    ASSERT_TRUE(js) << "missing outputs.json in " << step_dir;
    nlohmann::json outs = nlohmann::json::parse(js);
    ASSERT_EQ(outs.size(), f.cases[c].outputs.size());
    for (size_t o = 0; o < outs.size(); ++o) {
      const Tensor& ref = f.cases[c].outputs[o].tensor;
      EXPECT_EQ(outs[o]["dtype"], dtype_name(ref.dtype));
      auto got = read_raw_tensor(step_dir + "/" + outs[o]["file"].get<std::string>(), ref.dtype, ref.sizes);
      ASSERT_TRUE(got.ok()) << got.status().to_string();
      EXPECT_TRUE(test::values_close(*got, f.cases[c].outputs[o], f.atol, f.rtol)) << GetParam() << " case " << c;
    }
  }
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(All, CliCpuFixture,
                         ::testing::ValuesIn(test::fixtures_in_groups({"cpu", "ops_undelegated"})),
                         [](const auto& info) { return test::param_name(info.param); });

TEST(WickCli, InspectJsonDescribesTheProgram) {
  CliResult r = sh("inspect " + test::fixtures_dir() + "/cpu/mlp_cpu/model.pte --json");
  ASSERT_EQ(r.code, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["methods"].size(), 1u);
  EXPECT_EQ(j["methods"][0]["inputs"][0]["dtype"], "float32");
  EXPECT_EQ(j["methods"][0]["inputs"][0]["shape"], nlohmann::json::array({4, 64}));
  EXPECT_EQ(j["constant_bytes"], 104488);
}

// A Vulkan delegate's graph as inspect reads it from the .pte: the same operators, tensor
// count and largest tensor as the exporter's own dump of it (the fixture's vk_graph_0.json:
// 195 tensors, the largest 262144 elements, 36 convolutions...).
TEST(WickCli, InspectJsonSummarisesVulkanGraphs) {
  CliResult r = sh("inspect " + test::fixtures_dir() + "/demos/realesrgan_tiny/model.pte --json --backend cpu");
  ASSERT_EQ(r.code, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out.substr(r.out.find('{')), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  const nlohmann::json& g = j["methods"][0]["delegates"][0]["graph"];
  EXPECT_EQ(g["tensors"], 195) << g.dump();
  EXPECT_EQ(g["largest_tensor_elements"], 262144);
  EXPECT_EQ(g["largest_tensor_bytes"], 4 * 262144);
  EXPECT_EQ(g["ops"], nlohmann::json({{"aten.add.Tensor", 9}, {"aten.cat.default", 24}, {"aten.convolution.default", 36},
                                      {"aten.leaky_relu.default", 27}, {"aten.mul.Tensor", 8},
                                      {"aten.upsample_nearest2d.vec", 2}, {"et_vk.prepack.default", 8}}));
}

TEST(WickCli, FailuresExitNonZeroWithOneLine) {
  const std::string pte = test::fixtures_dir() + "/cpu/mlp_cpu/model.pte";
  for (const std::string& args :
       {std::string("inspect /nonexistent.pte"), "inspect " + test::fixtures_dir() + "/README.md",
        "run " + pte + " --backend cpu --output-dir /tmp/x",  // no inputs
        "run " + pte + " --backend cpu --input " + pte + ":float32:4,64 --output-dir /tmp/x",  // wrong size
        "run " + pte + " --backend cpu --method nope --output-dir /tmp/x", std::string("frobnicate")}) {
    CliResult r = sh(args);
    EXPECT_NE(r.code, 0) << args;
    EXPECT_FALSE(r.out.empty()) << args;
    if (args != "frobnicate") {
      EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << ": " << r.out;
    }
  }
}

// A directory where a file belongs once aborted with std::bad_alloc (exit 134): ifstream opens
// a directory and reports a size near 2^63. Every file read now names the path and the problem.
TEST(WickCli, DirectoryOrMissingFileIsAClearError) {
  const std::string pte = test::fixtures_dir() + "/cpu/mlp_cpu/model.pte";
  const std::string dir = test::fixtures_dir();
  struct Case {
    std::string args, expect;
  };
  for (const Case& c : {Case{"inspect " + dir, dir + ": is a directory"},
                        Case{"run " + dir + " --backend cpu --output-dir /tmp/x", dir + ": is a directory"},
                        Case{"run " + pte + " --backend cpu --input " + dir + ":float32:4,64 --output-dir /tmp/x",
                             dir + ": is a directory"},
                        Case{"inspect /nonexistent_wick.pte", "/nonexistent_wick.pte: cannot open file: no such file"}}) {
    CliResult r = sh(c.args);
    EXPECT_EQ(r.code, 1) << c.args << ": " << r.out;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << c.args << ": " << r.out;
  }
}

// A method name holding the byte 0xFF passes the flatbuffer verifier (strings are not
// checked for UTF-8), and `inspect --json` once aborted on nlohmann's type_error.316. The
// invalid byte now comes out escaped (core/utf8.h: the text \xFF), the rest of the
// document is intact, and the escaped name selects the method in `run --method`.
TEST(WickCli, InspectJsonSurvivesANameThatIsNotUtf8) {
  test::PtePatch pte("cpu/mlp_cpu/model.pte");
  const flatbuffers::String* name = pte.plan().name();
  ASSERT_EQ(name->str(), "forward");
  std::vector<uint8_t> bytes = pte.bytes;
  bytes[pte.at(name->data()) + 3] = 0xFF;  // "forXard" with X = 0xFF
  const std::string path = tmpdir("utf8") + ".pte";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  CliResult r = sh("inspect " + path + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["methods"][0]["name"], "for\\xFFard");
  EXPECT_EQ(j["methods"][0]["inputs"][0]["shape"], nlohmann::json::array({4, 64}));

  test::Fixture f;
  ASSERT_TRUE(test::load_fixture("cpu/mlp_cpu", &f));
  const std::string dir = tmpdir("utf8_run");
  r = sh("run " + path + " --backend cpu --method 'for\\xFFard'" + input_flags(f, 0) + " --output-dir " + dir);
  std::filesystem::remove(path);
  ASSERT_EQ(r.code, 0) << r.out;
  const Tensor& ref = f.cases[0].outputs[0].tensor;
  auto got = read_raw_tensor(dir + "/output_0.bin", ref.dtype, ref.sizes);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_TRUE(test::values_close(*got, f.cases[0].outputs[0], f.atol, f.rtol));
  std::filesystem::remove_all(dir);
}

TEST(WickCli, EveryCommandAnswersHelp) {
  for (const char* cmd : {"inspect", "run", "bench"}) {
    CliResult r = sh(std::string(cmd) + " --help");
    EXPECT_EQ(r.code, 0) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find(std::string("wick ") + cmd + " MODEL.pte"), std::string::npos) << cmd << ": " << r.out;
  }
  // tokenize/detokenize once answered --help with "unknown argument", exit 1.
  for (const char* cmd : {"tokenize", "detokenize"}) {
    CliResult r = sh(std::string(cmd) + " --help");
    EXPECT_EQ(r.code, 0) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find(std::string("usage: wick ") + cmd + " --tokenizer"), std::string::npos) << cmd << ": " << r.out;
  }
}

// README.md's "Command line" block is what a new user copies: every command it shows must
// exist (answer --help) and every flag on its line must be in that command's usage, so the
// README cannot drift from the binaries (issue 8: examples that do not run as written).
TEST(WickCli, ReadmeCommandLinesMatchTheUsage) {
  std::ifstream f(std::string(WICK_SOURCE_DIR) + "/README.md");
  ASSERT_TRUE(f) << "no README.md";
  bool in_section = false, in_block = false;
  int lines = 0;
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Command line";
    if (!in_section) continue;
    if (line.rfind("```", 0) == 0) {
      if (in_block) break;
      in_block = true;
      continue;
    }
    if (!in_block || line.rfind("build/", 0) != 0) continue;
    const std::string cmd = line.substr(0, line.find('#'));  // the comment may name other flags
    std::smatch m;
    ASSERT_TRUE(std::regex_search(cmd, m, std::regex("^build/(\\S+)(?: ([a-z]+))?"))) << line;
    std::string usage_of;
    CliResult help;
    if (m[1] == "wick") {
      usage_of = "wick " + m[2].str();
      help = sh(m[2].str() + " --help");
    } else {
      ASSERT_EQ(m[1], "wick_upscale") << line;
      if (!std::filesystem::exists(WICK_UPSCALE_PATH)) continue;
      usage_of = "wick_upscale";
      help = test::run_command(std::string(WICK_UPSCALE_PATH) + " --help");
    }
    EXPECT_EQ(help.code, 0) << usage_of << ": " << help.out;
    const std::regex flag("--[a-z][a-z-]*");
    for (auto it = std::sregex_iterator(cmd.begin(), cmd.end(), flag); it != std::sregex_iterator(); ++it)
      EXPECT_NE(help.out.find(it->str()), std::string::npos) << usage_of << " --help lacks " << it->str() << " (README: " << line << ")";
    ++lines;
  }
  EXPECT_GE(lines, 8) << "README.md's Command line block not found";
}

// `--runs abc` once ran once (atoi gave 0, clamped to 1); every count flag is now checked.
TEST(WickCli, BadCountsAreRejected) {
  const std::string pte = test::fixtures_dir() + "/cpu/mlp_cpu/model.pte";
  for (const std::string& flag : {std::string("--runs abc"), std::string("--runs 0"), std::string("--runs -3"),
                                  std::string("--runs 3x"), std::string("--warmup -1"), std::string("--warmup x")}) {
    CliResult r = sh("bench " + pte + " --backend cpu " + flag);
    EXPECT_EQ(r.code, 2) << flag << ": " << r.out;
    EXPECT_NE(r.out.find("takes an integer"), std::string::npos) << flag << ": " << r.out;
  }
  for (const std::string& flag : {std::string("--profile-runs 0"), std::string("--profile-runs x")}) {
    CliResult r = sh("run " + pte + " --backend cpu --output-dir /nonexistent " + flag);
    EXPECT_EQ(r.code, 2) << flag << ": " << r.out;
    EXPECT_NE(r.out.find("takes an integer"), std::string::npos) << flag << ": " << r.out;
  }
}

// --output-format npy writes output_N.npy that read_npy reads back as the reference, and
// a successful run says where it wrote.
TEST(WickCli, RunWritesNpyOnRequestAndSaysSo) {
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture("cpu/mlp_cpu", &f));
  std::string dir = tmpdir("npy");
  CliResult r = sh("run " + f.pte() + " --backend cpu" + input_flags(f, 0) + " --output-dir " + dir +
                   " --output-format npy");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("wrote 1 output (.npy) and outputs.json to " + dir), std::string::npos) << r.out;
  auto v = read_npy(dir + "/output_0.npy");
  ASSERT_TRUE(v.ok()) << v.status().to_string();
  const Tensor& want = f.cases[0].outputs[0].tensor;
  ASSERT_EQ(v->tensor.sizes, want.sizes);
  ASSERT_EQ(v->tensor.dtype, want.dtype);
  EXPECT_TRUE(test::values_close(*v, f.cases[0].outputs[0], f.atol, f.rtol));
  // --profile on the cpu backend once printed nothing: now each step's wall time and each
  // instruction's, by op name (the first call, then the medians of the next 5), and the
  // delegate's ops with their medians beside the first call's times.
  r = sh("run " + f.pte() + " --backend cpu" + input_flags(f, 0) + " --output-dir " + dir + " --profile");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("step 0 first call: forward "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("step 0: forward "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(median of 5 calls after the first)"), std::string::npos) << r.out;
  std::smatch m;
  EXPECT_TRUE(std::regex_search(r.out, m, std::regex(R"(\n +\d+ +\d+\.\d{3}  aten::addmm\.out\n)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, m, std::regex(R"(\n +total +\d+\.\d{3}  )"))) << r.out;
  std::filesystem::remove_all(dir);
  EXPECT_NE(sh("run " + f.pte() + " --backend cpu" + input_flags(f, 0) + " --output-dir " + dir +
               " --output-format png").code, 0);
}

// --output FILE picks the format by its extension: .npy as NumPy, anything else raw.
TEST(WickCli, RunOutputFileExtensionPicksTheFormat) {
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture("cpu/mlp_cpu", &f));
  std::string dir = tmpdir("outfile");
  std::filesystem::create_directories(dir);
  const Tensor& want = f.cases[0].outputs[0].tensor;
  CliResult r = sh("run " + f.pte() + " --backend cpu" + input_flags(f, 0) + " --output " + dir + "/y.npy");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("wrote " + dir + "/y.npy (.npy)"), std::string::npos) << r.out;
  auto v = read_npy(dir + "/y.npy");
  ASSERT_TRUE(v.ok()) << v.status().to_string();
  EXPECT_TRUE(test::values_close(*v, f.cases[0].outputs[0], f.atol, f.rtol));
  r = sh("run " + f.pte() + " --backend cpu" + input_flags(f, 0) + " --output " + dir + "/y.bin");
  ASSERT_EQ(r.code, 0) << r.out;
  auto raw = read_raw_tensor(dir + "/y.bin", want.dtype, want.sizes);
  ASSERT_TRUE(raw.ok()) << raw.status().to_string();
  EXPECT_TRUE(test::values_close(*raw, f.cases[0].outputs[0], f.atol, f.rtol));
  for (const auto& [args, expect] : std::vector<std::pair<std::string, std::string>>{
           {" --output " + dir + "/a.npy --output " + dir + "/b.npy", "2 --output file(s) for 1 output(s)"},
           {" --output " + dir, dir + ": is a directory"},
           {"", "missing --output-dir DIR or --output FILE"}}) {
    r = sh("run " + f.pte() + " --backend cpu" + input_flags(f, 0) + args);
    EXPECT_NE(r.code, 0) << args;
    EXPECT_NE(r.out.find(expect), std::string::npos) << args << ": " << r.out;
  }
  std::filesystem::remove_all(dir);
}

// wick_upscale's checks that need no GPU: each fails fast with a one-line reason. The
// binary is built by the examples (WICK_BUILD_EXAMPLES); without it the test skips.
TEST(WickUpscaleCli, BadArgumentsFailUpFront) {
  if (!std::filesystem::exists(WICK_UPSCALE_PATH)) GTEST_SKIP() << "no " << WICK_UPSCALE_PATH;
  auto up = [](const std::string& args) { return test::run_command(std::string(WICK_UPSCALE_PATH) + " " + args); };
  const std::string png = std::string(WICK_SOURCE_DIR) + "/examples/esrgan/input.png";
  CliResult help = up("--help");
  EXPECT_EQ(help.code, 0) << help.out;
  EXPECT_NE(help.out.find("usage: wick_upscale"), std::string::npos);
  struct Case {
    std::string args, expect;
  };
  for (const Case& c : {Case{png + " /nonexistent_dir/x.png", "/nonexistent_dir does not exist"},
                        Case{png + " /tmp", "/tmp: is a directory"},
                        Case{png + " /tmp/wick_up.png --backend cpu --model /tmp", "/tmp: is a directory"},
                        Case{png + " /tmp/wick_up.png --runs abc", "--runs takes an integer"}}) {
    CliResult r = up(c.args);
    EXPECT_NE(r.code, 0) << c.args;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << c.args << ": " << r.out;
  }
}

// The CLI end to end on the CPU backend (fast, no GPU): a 128x128 photo through the fixed
// 64x64 program in 9 overlapping tiles equals the dynamic-shape program's whole-image run
// to 1/255 after 8-bit rounding (margin 10 >= the receptive field; see
// tests/image/tiled_upscale_model_test.cpp for the float comparison). 128 is the
// dynamic program's largest size; a 200x150 photo would not fit it whole.
TEST(WickUpscaleCli, TiledRunEqualsTheWholeImageRun) {
  if (!std::filesystem::exists(WICK_UPSCALE_PATH)) GTEST_SKIP() << "no " << WICK_UPSCALE_PATH;
  test::Fixture dyn;
  ASSERT_TRUE(test::load_fixture("pretrained/esrgan_slim_x4_dynamic", &dyn));
  const Tensor& in = dyn.cases[1].inputs[0].tensor;  // face128, [1,3,128,128], integers
  ASSERT_EQ(in.sizes, (std::vector<int64_t>{1, 3, 128, 128}));
  image::RgbImage img = image::RgbImage::make(128, 128);
  for (int y = 0; y < 128; ++y)
    for (int x = 0; x < 128; ++x)
      for (int c = 0; c < 3; ++c) img.at(x, y)[c] = static_cast<uint8_t>(in.data_as<float>()[(c * 128 + y) * 128 + x]);
  const std::string dir = tmpdir("upscale_tiled");
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(image::write_png(dir + "/face128.png", img).ok());
  auto up = [&](const std::string& args) { return test::run_command(std::string(WICK_UPSCALE_PATH) + " " + args); };
  CliResult tiled = up(dir + "/face128.png " + dir + "/tiled.png --backend cpu");
  ASSERT_EQ(tiled.code, 0) << tiled.out;
  EXPECT_NE(tiled.out.find("tiles     9 of 64x64 (3 x 3), overlap 24, margin 10"), std::string::npos) << tiled.out;
  CliResult whole = up(dir + "/face128.png " + dir + "/whole.png --backend cpu --model " + dyn.pte() +
                       " --reference " + dir + "/tiled.png");
  EXPECT_EQ(whole.code, 0) << whole.out;  // --reference fails beyond 1/255
  EXPECT_EQ(whole.out.find("tiles "), std::string::npos) << "the dynamic program should take the image whole: " << whole.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace wick
#endif
