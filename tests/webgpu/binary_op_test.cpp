// Randomized tests of the broadcasting binary kernel against a direct CPU computation.
#include <gtest/gtest.h>

#include <cmath>

#include "single_op.h"

namespace wick {
namespace {

// Reference: walks the output and maps each coordinate back through broadcasting.
float ref_at(const Tensor& t, const std::vector<int64_t>& out_shape, int64_t flat) {
  std::vector<int64_t> coord(out_shape.size());
  for (int d = static_cast<int>(out_shape.size()) - 1; d >= 0; --d) {
    coord[d] = flat % out_shape[d];
    flat /= out_shape[d];
  }
  int64_t idx = 0;
  const size_t off = out_shape.size() - t.sizes.size();
  for (size_t d = 0; d < t.sizes.size(); ++d) idx = idx * t.sizes[d] + (t.sizes[d] == 1 ? 0 : coord[d + off]);
  return test::at_f(t, idx);
}

struct Case {
  std::vector<int64_t> a, b, out;
};

TEST(WebGpuBinaryOp, AddSubMulDivBroadcastRandomShapes) {
  std::mt19937 rng(7);
  const std::vector<Case> cases = {
      {{1}, {1}, {1}},           {{7}, {7}, {7}},
      {{3, 1, 5}, {1, 4, 5}, {3, 4, 5}}, {{2, 3, 4, 5}, {5}, {2, 3, 4, 5}},
      {{1031}, {1}, {1031}},     {{2, 1, 3, 1, 2}, {4, 1, 5, 1}, {2, 4, 3, 5, 2}},
      {{70000}, {70000}, {70000}},
  };
  const char* names[] = {"aten.add.Tensor", "aten.sub.Tensor", "aten.mul.Tensor", "aten.div.Tensor"};
  for (int op = 0; op < 4; ++op) {
    for (const Case& c : cases) {
      test::VkGraphBuilder b;
      int x = b.input(ScalarType::kFloat, c.a);
      int y = b.input(ScalarType::kFloat, c.b);
      int out = b.tensor(ScalarType::kFloat, c.out);
      const double alpha = 0.5;
      if (op < 2) b.op(names[op], {x, y, b.double_value(alpha), out});
      else b.op(names[op], {x, y, out});
      b.output(out);
      Tensor ta = test::random_tensor(ScalarType::kFloat, c.a, rng);
      Tensor tb = test::random_tensor(ScalarType::kFloat, c.b, rng, 0.5, 2.0);
      auto r = b.run({Value::make_tensor(ta), Value::make_tensor(tb)});
      ASSERT_TRUE(r.ok()) << names[op] << ": " << r.status().to_string();
      const Tensor& got = (*r)[0].tensor;
      ASSERT_EQ(got.sizes, c.out);
      for (int64_t i = 0; i < got.numel(); ++i) {
        float xa = ref_at(ta, c.out, i), xb = ref_at(tb, c.out, i);
        float want = op == 0 ? xa + 0.5f * xb : op == 1 ? xa - 0.5f * xb : op == 2 ? xa * xb : xa / xb;
        ASSERT_NEAR(got.data_as<float>()[i], want, 1e-5 + 1e-5 * std::fabs(want)) << names[op] << " at " << i;
      }
    }
  }
}

TEST(WebGpuBinaryOp, ComparisonWithScalarGivesBool) {
  std::mt19937 rng(3);
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {5, 9});
  int out = b.tensor(ScalarType::kBool, {5, 9});
  b.op("aten.gt.Scalar", {x, b.double_value(0.25), out});
  b.output(out);
  Tensor t = test::random_tensor(ScalarType::kFloat, {5, 9}, rng);
  auto r = b.run({Value::make_tensor(t)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  for (int64_t i = 0; i < 45; ++i)
    EXPECT_EQ((*r)[0].tensor.data_as<uint8_t>()[i], t.data_as<float>()[i] > 0.25f ? 1 : 0);
}

TEST(WebGpuBinaryOp, IncompatibleShapesFailAtBuild) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {3, 4});
  int y = b.input(ScalarType::kFloat, {5});
  int out = b.tensor(ScalarType::kFloat, {3, 4});
  b.op("aten.mul.Tensor", {x, y, out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {3, 4})),
                  Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {5}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("broadcast"), std::string::npos) << r.status().message();
}

TEST(WebGpuGraph, UnknownOperatorIsNamedAtLoad) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {3});
  int out = b.tensor(ScalarType::kFloat, {3});
  b.op("aten.frobnicate.default", {x, out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {3}))});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kOperatorMissing);
  EXPECT_NE(r.status().message().find("aten.frobnicate.default"), std::string::npos);
}

}  // namespace
}  // namespace wick
