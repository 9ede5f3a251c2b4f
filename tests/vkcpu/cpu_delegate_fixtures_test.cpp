// Every delegated fixture on the CPU executor of VK00 graphs (src/vkcpu), the path a host
// without a WebGPU adapter takes: compared with the PyTorch references within the
// manifest's tolerance, like tests/webgpu/delegate_fixtures_test.cpp does on WebGPU.
// Stateful fixtures (KV caches) run their cases in order on one loaded method.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "backends/choice.h"
#include "runtime/program.h"
#include "test_util.h"

namespace wick {
namespace {

class CpuDelegateFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuDelegateFixture, MatchesReference) {
  auto choice = use_backend(DelegateTarget::kCpu);
  ASSERT_TRUE(choice.ok()) << choice.status().to_string();
  ASSERT_EQ(choice->target, DelegateTarget::kCpu);
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture(GetParam(), &f));
  auto program = Program::load_file(f.pte());
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto method = (*program)->load_method(f.method);
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  // demos/dfine_tiny's own fp32 and fp64 eager runs differ by 0.44 (its notes say to check
  // shapes and finiteness only): such a fixture is held to exactly that.
  const auto& ref_info = f.manifest["reference"];
  const double fp32_vs_fp64 = ref_info.contains("max_abs_err_fp32_vs_fp64") && ref_info["max_abs_err_fp32_vs_fp64"].is_number()
                                  ? ref_info["max_abs_err_fp32_vs_fp64"].get<double>()
                                  : 0.0;
  const bool ill_conditioned = fp32_vs_fp64 > 100 * f.atol;
  for (size_t c = 0; c < f.cases.size(); ++c) {
    auto outputs = (*method)->forward(f.cases[c].inputs);
    ASSERT_TRUE(outputs.ok()) << "case " << c << ": " << outputs.status().to_string();
    ASSERT_EQ(outputs->size(), f.cases[c].outputs.size());
    for (size_t o = 0; o < outputs->size(); ++o) {
      if (ill_conditioned) {
        const Tensor& got = (*outputs)[o].tensor;
        EXPECT_EQ(got.sizes, f.cases[c].outputs[o].tensor.sizes);
        ASSERT_EQ(got.dtype, ScalarType::kFloat);
        for (int64_t i = 0; i < got.numel(); ++i) ASSERT_TRUE(std::isfinite(got.data_as<float>()[i])) << i;
        continue;
      }
      EXPECT_TRUE(test::values_close((*outputs)[o], f.cases[c].outputs[o], f.atol, f.rtol))
          << f.rel << " case " << c << " output " << o;
    }
  }
}

std::vector<std::string> delegated_fixtures() {
  std::vector<std::string> out;
  for (const std::string& rel : test::fixtures_in_groups({"ops", "models", "demos", "pretrained"})) out.push_back(rel);
  return out;
}

INSTANTIATE_TEST_SUITE_P(All, CpuDelegateFixture, ::testing::ValuesIn(delegated_fixtures()),
                         [](const auto& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace wick
