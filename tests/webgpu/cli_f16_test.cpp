// `wick run --f16` on the exported Linear(64 -> 32) fixture (ops/linear): the linear runs
// the f16-weight kernel (the profile says so) and the output stays
// within f16 rounding of PyTorch's (K = 64 products of inputs in the fixture's range; the
// kernel itself is checked to f32 tolerance in f16_weights_test.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_util.h"

#ifdef WICK_CLI_PATH
namespace wick {
namespace {

std::string input_flags(const test::Fixture& f) {
  std::string flags;
  for (const auto& in : f.manifest["cases"][0]["inputs"]) {
    std::string shape;
    for (auto d : in["shape"]) shape += (shape.empty() ? "" : ",") + std::to_string(d.get<int64_t>());
    flags += " --input " + f.dir + "/" + in["file"].get<std::string>() + ":" + in["dtype"].get<std::string>() + ":" + shape;
  }
  return flags;
}

TEST(WickCliF16, LinearWeightGoesF16AndOutputStaysClose) {
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture("ops/linear", &f));
  const auto out = std::filesystem::temp_directory_path() / ("wick_cli_f16_" + std::to_string(::getpid()) + ".bin");
  test::CommandResult r = test::run_command(std::string(WICK_CLI_PATH) + " run " + f.pte() + " --backend webgpu --f16 --profile" +
                                            input_flags(f) + " --output " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream in(out, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::filesystem::remove(out);
  const Tensor& ref = f.cases[0].outputs[0].tensor;
  ASSERT_EQ(bytes.size(), static_cast<size_t>(ref.numel()) * 4) << r.out;
  std::vector<float> got(static_cast<size_t>(ref.numel()));
  std::memcpy(got.data(), bytes.data(), bytes.size());
  double num = 0, den = 0;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    const double d = double(got[static_cast<size_t>(i)]) - ref.data_as<float>()[i];
    num += d * d;
    den += double(ref.data_as<float>()[i]) * ref.data_as<float>()[i];
  }
  const double rel = std::sqrt(num / den);
  EXPECT_LT(rel, 2e-3) << "relative L2 distance from PyTorch's output";
  EXPECT_GT(rel, 1e-7) << "no f16 rounding visible: was the weight converted?";

  // The linear ran an f16-weight kernel (the profile's dispatch labels): matmul_large_vec4_f16w,
  // or matmul_large_vec4_f16math where the adapter has shader-f16 (lavapipe).
  EXPECT_NE(r.out.find("matmul_large_vec4_f16"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace wick
#endif  // WICK_CLI_PATH
