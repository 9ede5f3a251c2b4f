// webgpu/llm_fusion.h: SwiGLU (sigmoid, mul, mul) becomes one silu_mul dispatch, with the
// same values as the three ops (checked against a direct computation, 1e-6 relative), and
// is left alone when an intermediate is used elsewhere.
#include <gtest/gtest.h>

#include <cmath>

#include "single_op.h"

namespace wick {
namespace {

float silu_mul(float g, float u) { return (g * (1.0f / (1.0f + std::exp(-g)))) * u; }

// g, u -> s = sigmoid(g); t = g * s (operands in `swap` order); o = t * u [; extra = t + u].
void check(bool swap, bool t_used_again, size_t want_dispatches) {
  const std::vector<int64_t> shape = {1, 3, 1000};
  test::VkGraphBuilder b;
  int g = b.input(ScalarType::kFloat, shape);
  int u = b.input(ScalarType::kFloat, shape);
  int s = b.tensor(ScalarType::kFloat, shape);
  int t = b.tensor(ScalarType::kFloat, shape);
  int o = b.tensor(ScalarType::kFloat, shape);
  b.op("aten.sigmoid.default", {g, s});
  b.op("aten.mul.Tensor", swap ? std::vector<int>{s, g, t} : std::vector<int>{g, s, t});
  b.op("aten.mul.Tensor", swap ? std::vector<int>{u, t, o} : std::vector<int>{t, u, o});
  b.output(o);
  if (t_used_again) {
    int e = b.tensor(ScalarType::kFloat, shape);
    int one = b.double_value(1.0);
    b.op("aten.add.Tensor", {t, u, one, e});
    b.output(e);
  }
  std::mt19937 rng(3);
  Tensor tg = test::random_tensor(ScalarType::kFloat, shape, rng, -6, 6);
  Tensor tu = test::random_tensor(ScalarType::kFloat, shape, rng, -2, 2);
  auto r = b.run({Value::make_tensor(tg), Value::make_tensor(tu)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(b.dispatches, want_dispatches);
  const Tensor& out = (*r)[0].tensor;
  ASSERT_EQ(out.sizes, shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    const float want = silu_mul(tg.data_as<float>()[i], tu.data_as<float>()[i]);
    ASSERT_NEAR(out.data_as<float>()[i], want, 1e-6 * (1 + std::fabs(want))) << i;
  }
}

TEST(LlmFusion, SwiGluIsOneDispatch) {
  // b.dispatches counts the output's staging copy too.
  check(false, false, 2);
  check(true, false, 2);
}

// Not the SwiGLU fusion; sigmoid + mul become one elementwise chain (chain_fusion.h), t
// being read twice ends it: chain, mul, add and two output copies.
TEST(LlmFusion, IntermediateUsedElsewhereIsNotFused) { check(false, true, 5); }

}  // namespace
}  // namespace wick
