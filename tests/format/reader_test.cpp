// The reader on every real file: all fixtures load and describe themselves, and the
// committed ExecuTorch samples behave as shared/fixtures/samples/README.md says.
#include <gtest/gtest.h>

#include <cstring>

#include "format/pte_file.h"
#include "runtime/program.h"
#include "test_util.h"

namespace wick {
namespace {

class EveryFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryFixture, LoadsAndInspects) {
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture(GetParam(), &f));
  auto program = Program::load_file(f.pte());
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto meta = (*program)->method_meta(f.method);
  ASSERT_TRUE(meta.ok()) << meta.status().to_string();
  const auto& manifest_inputs = f.manifest["cases"][0]["inputs"];
  ASSERT_EQ(meta->inputs.size(), manifest_inputs.size());
  for (size_t i = 0; i < meta->inputs.size(); ++i) {
    ASSERT_EQ(meta->inputs[i].tag, ValueTag::kTensor);
    EXPECT_EQ(dtype_name(meta->inputs[i].tensor.dtype), manifest_inputs[i]["dtype"].get<std::string>());
  }
  EXPECT_EQ(meta->delegates.size(), f.manifest["delegates"].size());
  for (const auto& d : meta->delegates) {
    EXPECT_EQ(d.backend_id, "VulkanBackend");
    EXPECT_GT(d.blob_bytes, 32u);
  }
}

INSTANTIATE_TEST_SUITE_P(All, EveryFixture,
                         ::testing::ValuesIn(test::fixtures_in_groups(
                             {"cpu", "ops", "ops_undelegated", "models", "demos", "pretrained"})),
                         [](const auto& info) { return test::param_name(info.param); });

std::string sample(const char* name) { return test::fixtures_dir() + "/samples/" + name; }

Value float_tensor(std::vector<int64_t> shape, std::vector<float> data) {
  Tensor t = Tensor::make_owned(ScalarType::kFloat, std::move(shape));
  std::memcpy(t.data, data.data(), data.size() * 4);
  return Value::make_tensor(std::move(t));
}

TEST(Samples, AppleAddRunsWithoutExtendedHeader) {
  auto program = Program::load_file(sample("apple_add.pte"));
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  EXPECT_FALSE((*program)->file().header().present);
  auto method = (*program)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  const auto& in = (*method)->meta().inputs;
  ASSERT_EQ(in.size(), 2u);
  int64_t n = shape_numel(in[0].tensor.sizes);
  std::vector<float> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) x[i] = 0.5f * i, y[i] = 3.0f - i;
  auto out = (*method)->forward({float_tensor(in[0].tensor.sizes, x), float_tensor(in[1].tensor.sizes, y)});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const float* o = (*out)[0].tensor.data_as<float>();
  for (int64_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(o[i], x[i] + y[i]);
}

TEST(Samples, ArduinoAddAddsTheConstant) {
  auto program = Program::load_file(sample("arduino_add.pte"));
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  EXPECT_TRUE((*program)->file().header().present);
  auto method = (*program)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  auto out = (*method)->forward({float_tensor({3}, {1.5f, -2.0f, 10.0f})});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const float* o = (*out)[0].tensor.data_as<float>();
  EXPECT_FLOAT_EQ(o[0], 2.5f);
  EXPECT_FLOAT_EQ(o[1], -1.0f);
  EXPECT_FLOAT_EQ(o[2], 11.0f);
}

TEST(Samples, InlineConstantsProgramRuns) {
  auto program = Program::load_file(sample("module_linear_inline_constants.pte"));
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto method = (*program)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  std::vector<Value> inputs;
  for (const auto& m : (*method)->meta().inputs) {
    Tensor t = Tensor::make_owned(m.tensor.dtype, m.tensor.sizes);
    for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = 1.0f;
    inputs.push_back(Value::make_tensor(std::move(t)));
  }
  auto out = (*method)->forward(inputs);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  ASSERT_FALSE(out->empty());
}

TEST(Samples, KeywordSpottingNamesTheMissingOperator) {
  auto program = Program::load_file(sample("arduino_keyword_spotting_cortex_m.pte"));
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto meta = (*program)->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->num_instructions, 16u);
  auto method = (*program)->load_method("forward");
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.status().code(), ErrorCode::kOperatorMissing);
  EXPECT_NE(method.status().message().find("cortex_m::"), std::string::npos) << method.status().message();
}

TEST(Samples, QnnLlamaMetadataRunsAndForwardNamesTheBackend) {
  auto program = Program::load_file(sample("stories260k_qnn.pte"));
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  EXPECT_EQ((*program)->method_names().size(), 29u);
  auto getter = (*program)->load_method("get_max_seq_len");
  ASSERT_TRUE(getter.ok()) << getter.status().to_string();
  auto out = (*getter)->forward({});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].tag, ValueTag::kInt);
  EXPECT_EQ((*out)[0].i, 128);
  auto kv = (*program)->load_method("kv_forward");
  ASSERT_FALSE(kv.ok());
  EXPECT_NE(kv.status().message().find("QnnBackend"), std::string::npos) << kv.status().message();
}

TEST(Reader, UnknownMethodIsNotFound) {
  auto program = Program::load_file(sample("arduino_add.pte"));
  ASSERT_TRUE(program.ok());
  auto m = (*program)->load_method("backward");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(m.status().message().find("backward"), std::string::npos);
}

TEST(Reader, WrongInputsAreRejectedAndTheMethodStaysUsable) {
  auto program = Program::load_file(sample("arduino_add.pte"));
  ASSERT_TRUE(program.ok());
  auto method = (*program)->load_method("forward");
  ASSERT_TRUE(method.ok());
  auto r1 = (*method)->forward({});
  EXPECT_FALSE(r1.ok());
  EXPECT_NE(r1.status().message().find("takes 1 inputs"), std::string::npos) << r1.status().message();
  auto r2 = (*method)->forward({float_tensor({4}, {1, 2, 3, 4})});
  EXPECT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("[3]"), std::string::npos) << r2.status().message();
  Tensor ints = Tensor::make_owned(ScalarType::kInt, {3});
  auto r3 = (*method)->forward({Value::make_tensor(ints)});
  EXPECT_FALSE(r3.ok());
  EXPECT_NE(r3.status().message().find("float32"), std::string::npos) << r3.status().message();
  auto ok = (*method)->forward({float_tensor({3}, {0, 0, 0})});
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  EXPECT_FLOAT_EQ((*ok)[0].tensor.data_as<float>()[0], 1.0f);
}

}  // namespace
}  // namespace wick
