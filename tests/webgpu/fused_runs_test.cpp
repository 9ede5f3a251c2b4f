// Delegate runs fused across host operators (runtime/fuse_runs.cpp, vkgraph/merge_plans.h):
// the tiny Whisper encoder, exported with transformers' default SDPA attention, has five
// VulkanBackend delegates with aten.mul.Scalar and aten.any.dim on the CPU between them.
// Fused, it is one delegate call; unfused (WICK_FUSE_DELEGATES=0) it is five. Plus the two operators the fusion moves onto the GPU,
// against direct computations: any.dim exactly, mul.Scalar within 1 ulp-ish (1e-6 rel).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "runtime/program.h"
#include "single_op.h"
#include "test_util.h"
#include "webgpu/backend.h"

namespace wick {
namespace {

void require_backend() {
  Status s = webgpu::register_webgpu_backend();
  ASSERT_TRUE(s.ok()) << "no WebGPU device: " << s.to_string();
}

// Delegate calls of the loaded method. That the fused method matches PyTorch is
// DelegateFixture's run of the same fixture (delegate_fixtures_test.cpp): fusion is on by
// default, so it runs the fused graph; a forward here would only repeat it (~8 s in CI).
size_t delegate_calls(const test::Fixture& f) {
  auto program = Program::load_file(f.pte());
  EXPECT_TRUE(program.ok()) << program.status().to_string();
  if (!program.ok()) return 0;
  auto method = (*program)->load_method(f.method);
  EXPECT_TRUE(method.ok()) << method.status().to_string();
  return method.ok() ? (*method)->delegate_calls() : 0;
}

TEST(FusedRuns, WhisperSdpaEncoderIsOneDelegate) {
  require_backend();
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture("demos/whisper_tiny_encoder", &f));
  EXPECT_EQ(delegate_calls(f), 1u);
  ASSERT_EQ(setenv("WICK_FUSE_DELEGATES", "0", 1), 0);
  EXPECT_EQ(delegate_calls(f), 5u);
  unsetenv("WICK_FUSE_DELEGATES");
}

TEST(FusedRunOps, AnyDimMatchesDirect) {
  require_backend();
  std::mt19937 rng(7);
  struct Case {
    std::vector<int64_t> shape;
    int64_t dim;
    bool keepdim;
  };
  for (const Case& c : std::vector<Case>{{{1, 4, 37, 53}, -1, true}, {{3, 5, 7}, 1, false}, {{6, 300}, 0, true}}) {
    Tensor x = *Tensor::allocate(ScalarType::kBool, c.shape);
    // Sparse trues, and whole rows of false, so that both answers occur.
    for (int64_t i = 0; i < x.numel(); ++i) x.data_as<uint8_t>()[i] = (rng() % 97) == 0;
    test::VkGraphBuilder b;
    const int in = b.input(ScalarType::kBool, c.shape);
    std::vector<int64_t> out_shape = c.shape;
    const size_t d = static_cast<size_t>(c.dim < 0 ? c.dim + static_cast<int64_t>(c.shape.size()) : c.dim);
    if (c.keepdim) out_shape[d] = 1;
    else out_shape.erase(out_shape.begin() + static_cast<std::ptrdiff_t>(d));
    const int out = b.tensor(ScalarType::kBool, out_shape);
    b.op("aten.any.dim", {in, b.int_value(c.dim), b.bool_value(c.keepdim), out});
    b.output(out);
    auto got = b.run({Value::make_tensor(x)});
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    const Tensor& y = (*got)[0].tensor;
    ASSERT_EQ(y.sizes, out_shape);
    // Direct: outer x reduced x inner.
    int64_t outer = 1, inner = 1;
    for (size_t k = 0; k < d; ++k) outer *= c.shape[k];
    for (size_t k = d + 1; k < c.shape.size(); ++k) inner *= c.shape[k];
    const int64_t n = c.shape[d];
    int trues = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        bool any = false;
        for (int64_t r = 0; r < n; ++r) any |= x.data_as<uint8_t>()[(o * n + r) * inner + i] != 0;
        trues += any;
        ASSERT_EQ(test::at_f(y, o * inner + i) != 0, any) << "row " << o << "," << i;
      }
    EXPECT_GT(trues, 0);
    EXPECT_LT(trues, outer * inner);
  }
}

TEST(FusedRunOps, AnyDimRefusesFloats) {
  require_backend();
  test::VkGraphBuilder b;
  const int in = b.input(ScalarType::kFloat, {2, 3});
  const int out = b.tensor(ScalarType::kBool, {2, 1});
  b.op("aten.any.dim", {in, b.int_value(-1), b.bool_value(true), out});
  b.output(out);
  std::mt19937 rng(1);
  auto got = b.run({Value::make_tensor(test::random_tensor(ScalarType::kFloat, {2, 3}, rng))});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("aten.any.dim"), std::string::npos) << got.status().to_string();
}

TEST(FusedRunOps, MulScalarMatchesDirect) {
  require_backend();
  std::mt19937 rng(3);
  Tensor x = test::random_tensor(ScalarType::kFloat, {3, 129, 17}, rng);
  test::VkGraphBuilder b;
  const int in = b.input(ScalarType::kFloat, {3, 129, 17});
  const int out = b.tensor(ScalarType::kFloat, {3, 129, 17});
  b.op("aten.mul.Scalar", {in, b.double_value(0.3535533905932738), out});
  b.output(out);
  auto got = b.run({Value::make_tensor(x)});
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  const Tensor& y = (*got)[0].tensor;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double want = static_cast<double>(x.data_as<float>()[i]) * 0.3535533905932738;
    ASSERT_NEAR(y.data_as<float>()[i], want, 1e-6 * (1 + std::abs(want))) << i;
  }
}

}  // namespace
}  // namespace wick
