// Every delegated fixture on the WebGPU delegate (SwiftShader in CI), compared with the
// PyTorch references within the manifest's tolerance. Stateful fixtures run their cases
// in order on one loaded method. Pipelines (SAM2, Whisper) are covered by their decoder
// fixtures, whose inputs are byte-identical to the encoders' reference outputs, and end
// to end by pipeline_fixtures_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "require_backend.h"
#include "runtime/backend.h"
#include "runtime/program.h"
#include "test_util.h"

namespace wick {
namespace {

// Fixtures the delegate cannot run yet; each must fail at load naming an operator.
const std::set<std::string>& not_yet() {
  static const std::set<std::string> s = {
#include "webgpu/not_yet_supported.inc"
  };
  return s;
}

class DelegateFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(DelegateFixture, MatchesReference) {
  test::require_backend();
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture(GetParam(), &f));
  auto program = Program::load_file(f.pte());
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto method = (*program)->load_method(f.method);
  if (not_yet().count(GetParam())) {
    ASSERT_FALSE(method.ok()) << GetParam() << " now loads: remove it from not_yet_supported.inc";
    EXPECT_EQ(method.status().code(), ErrorCode::kOperatorMissing) << method.status().to_string();
    return;
  }
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  // A fixture whose own fp32 and fp64 eager runs disagree far beyond its tolerance
  // (demos/dfine_tiny: 0.44, its notes say to check shapes and finiteness only) is held
  // to exactly that: the right shapes and dtypes, and finite values.
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
        const Tensor& ref = f.cases[c].outputs[o].tensor;
        EXPECT_EQ(got.sizes, ref.sizes);
        ASSERT_EQ(got.dtype, ScalarType::kFloat);
        for (int64_t i = 0; i < got.numel(); ++i) ASSERT_TRUE(std::isfinite(got.data_as<float>()[i])) << i;
        continue;
      }
      EXPECT_TRUE(test::values_close((*outputs)[o], f.cases[c].outputs[o], f.atol, f.rtol))
          << f.rel << " case " << c << " output " << o;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, DelegateFixture,
                         ::testing::ValuesIn(test::fixtures_in_groups({"ops", "models", "demos", "pretrained"})),
                         [](const auto& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace wick
