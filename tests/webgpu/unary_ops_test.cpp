// Randomized tests of the elementwise unary kernel (unary.wgsl) and aten.where.self
// (where.wgsl) against direct CPU computations. Tolerance: |got - want| <= 1e-5 + 1e-5|want|
// (the fixtures' tolerance) unless stated.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "single_op.h"

namespace wick {
namespace {

const std::vector<std::vector<int64_t>> kShapes = {{1}, {7}, {3, 1, 5}, {2, 3, 4, 5}, {1, 1, 1}, {1031}, {70001}};

struct UnaryCase {
  const char* name;
  std::function<float(float)> ref;
  double lo, hi;  // input range
};

double tol(float want) { return 1e-5 + 1e-5 * std::fabs(want); }  // the fixtures' tolerance


// Builds [x, extra..., out] for `name` and checks every element against `ref`.
void check_unary(const char* name, std::function<std::vector<int>(test::VkGraphBuilder&)> extra,
                 std::function<float(float)> ref, double lo, double hi, uint32_t seed) {
  std::mt19937 rng(seed);
  for (const auto& shape : kShapes) {
    test::VkGraphBuilder b;
    int x = b.input(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, shape);
    std::vector<int> args = {x};
    for (int id : extra(b)) args.push_back(id);
    args.push_back(out);
    b.op(name, args);
    b.output(out);
    Tensor t = test::random_tensor(ScalarType::kFloat, shape, rng, lo, hi);
    auto r = b.run({Value::make_tensor(t)});
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().to_string();
    const Tensor& got = (*r)[0].tensor;
    ASSERT_EQ(got.sizes, shape) << name;
    for (int64_t i = 0; i < got.numel(); ++i) {
      const float want = ref(t.data_as<float>()[i]);
      ASSERT_NEAR(got.data_as<float>()[i], want, tol(want)) << name << " at " << i << " x=" << t.data_as<float>()[i];
    }
  }
}

std::vector<int> no_args(test::VkGraphBuilder&) { return {}; }

TEST(WebGpuUnaryOp, MathAndActivationsRandomShapes) {
  const std::vector<UnaryCase> cases = {
      {"aten.relu.default", [](float x) { return x > 0 ? x : 0.f; }, -3, 3},
      {"aten.sigmoid.default", [](float x) { return 1.f / (1.f + std::exp(-x)); }, -20, 20},
      {"aten.tanh.default", [](float x) { return std::tanh(x); }, -20, 20},
      {"aten.exp.default", [](float x) { return std::exp(x); }, -10, 10},
      {"aten.sqrt.default", [](float x) { return std::sqrt(x); }, 0, 100},
      {"aten.rsqrt.default", [](float x) { return 1.f / std::sqrt(x); }, 0.01, 100},
      {"aten.neg.default", [](float x) { return -x; }, -3, 3},
      {"aten.abs.default", [](float x) { return std::fabs(x); }, -3, 3},
      {"aten.sin.default", [](float x) { return std::sin(x); }, -30, 30},
      {"aten.cos.default", [](float x) { return std::cos(x); }, -30, 30},
      {"aten.hardswish.default", [](float x) { return x * std::min(std::max(x + 3.f, 0.f), 6.f) / 6.f; }, -5, 5},
      {"aten.silu.default", [](float x) { return x / (1.f + std::exp(-x)); }, -8, 8},
      {"aten.round.default", [](float x) { return std::nearbyint(x); }, -5, 5},
      // gelu with approximate = None (the exact erf form; erf accuracy < 1e-6 absolute).
      {"aten.gelu.default", [](float x) { return 0.5f * x * (1.f + static_cast<float>(std::erf(x / std::sqrt(2.0)))); }, -6, 6},
  };
  uint32_t seed = 11;
  for (const auto& c : cases) {
    const bool gelu = std::string(c.name) == "aten.gelu.default";
    check_unary(c.name, gelu ? std::function<std::vector<int>(test::VkGraphBuilder&)>([](test::VkGraphBuilder& b) {
      return std::vector<int>{b.none()};
    }) : no_args, c.ref, c.lo, c.hi, seed++);
  }
}

TEST(WebGpuUnaryOp, ErfIsAccurateAcrossItsRange) {
  // gelu(x) / x recovers erf to within 1e-6 on a dense grid (x != 0).
  const int n = 4001;
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {n});
  int out = b.tensor(ScalarType::kFloat, {n});
  b.op("aten.gelu.default", {x, b.none(), out});
  b.output(out);
  Tensor t = Tensor::make_owned(ScalarType::kFloat, {n});
  for (int i = 0; i < n; ++i) t.data_as<float>()[i] = -8.f + 16.f * static_cast<float>(i) / (n - 1);
  auto r = b.run({Value::make_tensor(t)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  for (int i = 0; i < n; ++i) {
    const double xv = t.data_as<float>()[i];
    const double want = 0.5 * xv * (1 + std::erf(xv / std::sqrt(2.0)));
    EXPECT_NEAR((*r)[0].tensor.data_as<float>()[i], want, 1e-6 + 2e-6 * std::fabs(want)) << "x=" << xv;
  }
}

TEST(WebGpuUnaryOp, ParameterizedOps) {
  check_unary("aten.hardtanh.default", [](test::VkGraphBuilder& b) { return std::vector<int>{b.double_value(-0.5), b.int_value(1)}; },
              [](float x) { return std::min(std::max(x, -0.5f), 1.f); }, -3, 3, 21);
  check_unary("aten.leaky_relu.default", [](test::VkGraphBuilder& b) { return std::vector<int>{b.double_value(0.2)}; },
              [](float x) { return x >= 0 ? x : 0.2f * x; }, -3, 3, 22);
  check_unary("aten.clamp.default", [](test::VkGraphBuilder& b) { return std::vector<int>{b.double_value(-1.25), b.double_value(0.75)}; },
              [](float x) { return std::min(std::max(x, -1.25f), 0.75f); }, -3, 3, 23);
  check_unary("aten.clamp.default", [](test::VkGraphBuilder& b) { return std::vector<int>{b.none(), b.int_value(0)}; },
              [](float x) { return std::min(x, 0.f); }, -3, 3, 24);
  check_unary("aten.clamp.default", [](test::VkGraphBuilder& b) { return std::vector<int>{b.double_value(0.5), b.none()}; },
              [](float x) { return std::max(x, 0.5f); }, -3, 3, 25);
  check_unary("aten.pow.Tensor_Scalar", [](test::VkGraphBuilder& b) { return std::vector<int>{b.int_value(2)}; },
              [](float x) { return x * x; }, -3, 3, 26);
  check_unary("aten.pow.Tensor_Scalar", [](test::VkGraphBuilder& b) { return std::vector<int>{b.int_value(3)}; },
              [](float x) { return std::pow(x, 3.f); }, -3, 3, 27);
  check_unary("aten.pow.Tensor_Scalar", [](test::VkGraphBuilder& b) { return std::vector<int>{b.double_value(-2.0)}; },
              [](float x) { return std::pow(x, -2.f); }, -3, -0.5, 28);
  check_unary("aten.pow.Tensor_Scalar", [](test::VkGraphBuilder& b) { return std::vector<int>{b.double_value(1.5)}; },
              [](float x) { return std::pow(x, 1.5f); }, 0.1, 4, 29);
}

TEST(WebGpuUnaryOp, LogicalNotGivesBool) {
  std::mt19937 rng(5);
  for (ScalarType in_type : {ScalarType::kBool, ScalarType::kFloat}) {
    test::VkGraphBuilder b;
    int x = b.input(in_type, {3, 17});
    int out = b.tensor(ScalarType::kBool, {3, 17});
    b.op("aten.logical_not.default", {x, out});
    b.output(out);
    Tensor t = test::random_tensor(in_type, {3, 17}, rng, -1, 1);
    if (in_type == ScalarType::kFloat)
      for (int64_t i = 0; i < t.numel(); i += 3) t.data_as<float>()[i] = 0;
    auto r = b.run({Value::make_tensor(t)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    for (int64_t i = 0; i < t.numel(); ++i)
      EXPECT_EQ((*r)[0].tensor.data_as<uint8_t>()[i], test::at_f(t, i) == 0 ? 1 : 0) << i;
  }
}

// Maps an output flat index to an operand index through broadcasting.
int64_t bcast_index(const std::vector<int64_t>& in, const std::vector<int64_t>& out, int64_t flat) {
  std::vector<int64_t> coord(out.size());
  for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
    coord[static_cast<size_t>(d)] = flat % out[static_cast<size_t>(d)];
    flat /= out[static_cast<size_t>(d)];
  }
  int64_t idx = 0;
  const size_t off = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) idx = idx * in[d] + (in[d] == 1 ? 0 : coord[d + off]);
  return idx;
}

TEST(WebGpuUnaryOp, WhereBroadcastsThreeOperands) {
  struct Case { std::vector<int64_t> c, a, b, out; };
  const std::vector<Case> cases = {
      {{1}, {1}, {1}, {1}},
      {{5}, {5}, {5}, {5}},
      {{3, 1}, {1, 4}, {4}, {3, 4}},
      {{2, 1, 3, 1}, {5, 1, 1}, {1, 3, 7}, {2, 5, 3, 7}},
      {{1, 1, 1}, {3, 9, 1}, {1}, {3, 9, 1}},
      {{1031}, {1}, {1031}, {1031}},
  };
  std::mt19937 rng(9);
  for (const Case& c : cases) {
    test::VkGraphBuilder b;
    int cond = b.input(ScalarType::kBool, c.c);
    int x = b.input(ScalarType::kFloat, c.a);
    int y = b.input(ScalarType::kFloat, c.b);
    int out = b.tensor(ScalarType::kFloat, c.out);
    b.op("aten.where.self", {cond, x, y, out});
    b.output(out);
    Tensor tc = test::random_tensor(ScalarType::kBool, c.c, rng, 0, 1);
    Tensor ta = test::random_tensor(ScalarType::kFloat, c.a, rng);
    Tensor tb = test::random_tensor(ScalarType::kFloat, c.b, rng);
    auto r = b.run({Value::make_tensor(tc), Value::make_tensor(ta), Value::make_tensor(tb)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    const Tensor& got = (*r)[0].tensor;
    ASSERT_EQ(got.sizes, c.out);
    for (int64_t i = 0; i < got.numel(); ++i) {
      const bool sel = tc.data_as<uint8_t>()[bcast_index(c.c, c.out, i)] != 0;
      const float want = sel ? ta.data_as<float>()[bcast_index(c.a, c.out, i)] : tb.data_as<float>()[bcast_index(c.b, c.out, i)];
      ASSERT_EQ(got.data_as<float>()[i], want) << i;
    }
  }
}

// Each thread handles kElementsPerThread (4) words a grid's width apart: sizes around the
// 256-thread x 4-word step and an attention-mask shape ([1,2,67,131] with a [1,2,67,1]
// condition, as Whisper's where), every word checked, so a skipped or doubled one fails.
TEST(WebGpuUnaryOp, ManyElementsPerThreadCoverEveryWord) {
  std::mt19937 rng(13);
  for (int64_t n : {1, 3, 1023, 1024, 1025, 4097, 70001}) {
    Tensor t = test::random_tensor(ScalarType::kFloat, {n}, rng, -1, 1);
    for (int64_t i = 0; i < n; i += 3) t.data_as<float>()[i] = 0;
    test::VkGraphBuilder b;
    int x = b.input(ScalarType::kFloat, {n});
    int nz = b.tensor(ScalarType::kBool, {n});
    int eq = b.tensor(ScalarType::kBool, {n});
    b.op("aten.logical_not.default", {x, nz});
    b.op("aten.eq.Scalar", {x, b.double_value(0.0), eq});
    b.output(nz);
    b.output(eq);
    auto r = b.run({Value::make_tensor(t)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t want = t.data_as<float>()[i] == 0 ? 1 : 0;
      ASSERT_EQ((*r)[0].tensor.data_as<uint8_t>()[i], want) << "logical_not n=" << n << " at " << i;
      ASSERT_EQ((*r)[1].tensor.data_as<uint8_t>()[i], want) << "eq n=" << n << " at " << i;
    }
  }
  const std::vector<int64_t> shape = {1, 2, 67, 131}, cshape = {1, 2, 67, 1};
  Tensor tc = test::random_tensor(ScalarType::kBool, cshape, rng, 0, 1);
  Tensor ta = test::random_tensor(ScalarType::kFloat, shape, rng);
  Tensor tb = test::random_tensor(ScalarType::kFloat, shape, rng);
  test::VkGraphBuilder b;
  int cond = b.input(ScalarType::kBool, cshape);
  int x = b.input(ScalarType::kFloat, shape);
  int y = b.input(ScalarType::kFloat, shape);
  int out = b.tensor(ScalarType::kFloat, shape);
  b.op("aten.where.self", {cond, x, y, out});
  b.output(out);
  auto r = b.run({Value::make_tensor(tc), Value::make_tensor(ta), Value::make_tensor(tb)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const Tensor& got = (*r)[0].tensor;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const bool sel = tc.data_as<uint8_t>()[i / 131] != 0;
    ASSERT_EQ(got.data_as<float>()[i], sel ? ta.data_as<float>()[i] : tb.data_as<float>()[i]) << "where at " << i;
  }
}

TEST(WebGpuUnaryOp, WhereWithIncompatibleShapesFails) {
  test::VkGraphBuilder b;
  int cond = b.input(ScalarType::kBool, {3, 4});
  int x = b.input(ScalarType::kFloat, {3, 4});
  int y = b.input(ScalarType::kFloat, {5});
  int out = b.tensor(ScalarType::kFloat, {3, 4});
  b.op("aten.where.self", {cond, x, y, out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kBool, {3, 4})),
                  Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {3, 4})),
                  Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {5}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("broadcast"), std::string::npos) << r.status().message();
}

TEST(WebGpuUnaryOp, WrongArgumentCountFailsAtBuild) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {3});
  int out = b.tensor(ScalarType::kFloat, {3});
  b.op("aten.hardtanh.default", {x, out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {3}))});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidProgram) << r.status().to_string();
}

}  // namespace
}  // namespace wick
