// Randomized tests of the comparison, logical and rounded-division ops of binary.wgsl
// (gt/ge.Tensor, lt.Scalar, logical_or, bitwise_or, div.Tensor_mode) against a direct CPU
// computation with PyTorch's semantics. Comparisons and integer results must match exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "single_op.h"

namespace wick {
namespace {

// Element `flat` of `t` read through PyTorch broadcasting onto `out_shape`.
float bcast_at(const Tensor& t, const std::vector<int64_t>& out_shape, int64_t flat) {
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

// Integer-valued floats in [-3, 3]: comparisons see many ties, the edge the ops differ on.
Tensor small_ints_as_float(std::vector<int64_t> shape, std::mt19937& rng) {
  Tensor t = Tensor::make_owned(ScalarType::kFloat, std::move(shape));
  std::uniform_int_distribution<int> u(-3, 3);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = static_cast<float>(u(rng));
  return t;
}

struct Shapes {
  std::vector<int64_t> a, b, out;
};
const std::vector<Shapes> kShapes = {
    {{1}, {1}, {1}}, {{37}, {37}, {37}}, {{3, 1, 5}, {1, 4, 5}, {3, 4, 5}}, {{2, 3, 4, 5}, {5}, {2, 3, 4, 5}},
    {{4, 1}, {1, 9}, {4, 9}}, {{1100}, {1}, {1100}},
};

// Runs `name` on two tensors and checks every output element against `want`, exactly.
void check_binary_exact(const std::string& name, const Tensor& ta, const Tensor& tb, ScalarType out_dtype,
                        const std::vector<int64_t>& out_shape, const std::function<double(float, float)>& want) {
  test::VkGraphBuilder b;
  int x = b.input(ta.dtype, ta.sizes);
  int y = b.input(tb.dtype, tb.sizes);
  int out = b.tensor(out_dtype, out_shape);
  b.op(name, {x, y, out});
  b.output(out);
  auto r = b.run({Value::make_tensor(ta), Value::make_tensor(tb)});
  ASSERT_TRUE(r.ok()) << name << ": " << r.status().to_string();
  const Tensor& got = (*r)[0].tensor;
  ASSERT_EQ(got.sizes, out_shape) << name;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const float xa = bcast_at(ta, out_shape, i), xb = bcast_at(tb, out_shape, i);
    ASSERT_EQ(test::at_f(got, i), want(xa, xb)) << name << " at " << i << ": " << xa << ", " << xb;
  }
}

TEST(WebGpuCompareOps, GtGeTensorBroadcastWithTies) {
  std::mt19937 rng(11);
  for (const Shapes& s : kShapes) {
    Tensor ta = small_ints_as_float(s.a, rng), tb = small_ints_as_float(s.b, rng);
    check_binary_exact("aten.gt.Tensor", ta, tb, ScalarType::kBool, s.out, [](float x, float y) { return x > y; });
    check_binary_exact("aten.ge.Tensor", ta, tb, ScalarType::kBool, s.out, [](float x, float y) { return x >= y; });
  }
  // Continuous values too (no ties), and int32 operands.
  Tensor fa = test::random_tensor(ScalarType::kFloat, {6, 7}, rng), fb = test::random_tensor(ScalarType::kFloat, {7}, rng);
  check_binary_exact("aten.gt.Tensor", fa, fb, ScalarType::kBool, {6, 7}, [](float x, float y) { return x > y; });
  Tensor ia = test::random_tensor(ScalarType::kInt, {50}, rng, -4, 4), ib = test::random_tensor(ScalarType::kInt, {50}, rng, -4, 4);
  check_binary_exact("aten.ge.Tensor", ia, ib, ScalarType::kBool, {50}, [](float x, float y) { return x >= y; });
}

TEST(WebGpuCompareOps, LtScalar) {
  std::mt19937 rng(12);
  for (double scalar : {0.0, -1.0, 0.3}) {
    test::VkGraphBuilder b;
    int x = b.input(ScalarType::kFloat, {4, 33});
    int out = b.tensor(ScalarType::kBool, {4, 33});
    b.op("aten.lt.Scalar", {x, b.double_value(scalar), out});
    b.output(out);
    Tensor t = small_ints_as_float({4, 33}, rng);
    t.data_as<float>()[5] = 0.29f;  // just below 0.3
    auto r = b.run({Value::make_tensor(t)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    for (int64_t i = 0; i < t.numel(); ++i)
      ASSERT_EQ((*r)[0].tensor.data_as<uint8_t>()[i], t.data_as<float>()[i] < static_cast<float>(scalar) ? 1 : 0)
          << "lt " << scalar << " at " << i;
  }
}

TEST(WebGpuLogicalOps, LogicalOrAndBitwiseOr) {
  std::mt19937 rng(13);
  for (const Shapes& s : kShapes) {
    Tensor ba = test::random_tensor(ScalarType::kBool, s.a, rng), bb = test::random_tensor(ScalarType::kBool, s.b, rng);
    auto or_fn = [](float x, float y) { return (x != 0 || y != 0) ? 1.0 : 0.0; };
    check_binary_exact("aten.logical_or.default", ba, bb, ScalarType::kBool, s.out, or_fn);
    check_binary_exact("aten.bitwise_or.Tensor", ba, bb, ScalarType::kBool, s.out, or_fn);
  }
  // logical_or of floats: nonzero is true.
  Tensor fa = small_ints_as_float({40}, rng), fb = small_ints_as_float({40}, rng);
  check_binary_exact("aten.logical_or.default", fa, fb, ScalarType::kBool, {40},
                     [](float x, float y) { return (x != 0 || y != 0) ? 1.0 : 0.0; });
  // bitwise_or of int32, including negatives.
  Tensor ia = test::random_tensor(ScalarType::kInt, {3, 20}, rng, -300, 300);
  Tensor ib = test::random_tensor(ScalarType::kInt, {20}, rng, -300, 300);
  check_binary_exact("aten.bitwise_or.Tensor", ia, ib, ScalarType::kInt, {3, 20}, [](float x, float y) {
    return static_cast<double>(static_cast<int32_t>(x) | static_cast<int32_t>(y));
  });
}

Result<Tensor> run_div_mode(const Tensor& ta, const Tensor& tb, const char* mode, ScalarType out_dtype,
                            const std::vector<int64_t>& out_shape) {
  test::VkGraphBuilder b;
  int x = b.input(ta.dtype, ta.sizes);
  int y = b.input(tb.dtype, tb.sizes);
  int out = b.tensor(out_dtype, out_shape);
  b.op("aten.div.Tensor_mode", {x, y, mode ? b.string_value(mode) : b.none(), out});
  b.output(out);
  WICK_ASSIGN_OR_RETURN(auto outs, b.run({Value::make_tensor(ta), Value::make_tensor(tb)}));
  return outs[0].tensor;
}

TEST(WebGpuDivMode, FloatTruncFloorAndNone) {
  std::mt19937 rng(14);
  for (const Shapes& s : kShapes) {
    Tensor ta = test::random_tensor(ScalarType::kFloat, s.a, rng, -20, 20);
    Tensor tb = test::random_tensor(ScalarType::kFloat, s.b, rng, 0.3, 4);
    for (int64_t i = 0; i < tb.numel(); i += 2) tb.data_as<float>()[i] *= -1;  // both signs
    for (const char* mode : {"trunc", "floor", static_cast<const char*>(nullptr)}) {
      auto r = run_div_mode(ta, tb, mode, ScalarType::kFloat, s.out);
      ASSERT_TRUE(r.ok()) << (mode ? mode : "None") << ": " << r.status().to_string();
      for (int64_t i = 0; i < r->numel(); ++i) {
        const double q = static_cast<double>(bcast_at(ta, s.out, i)) / bcast_at(tb, s.out, i);
        const double want = !mode ? q : mode[0] == 't' ? std::trunc(q) : std::floor(q);
        const double got = r->data_as<float>()[i];
        if (!mode) {
          ASSERT_NEAR(got, want, 1e-5 * (1 + std::fabs(want))) << "div at " << i;
        } else if (std::fabs(q - std::round(q)) > 1e-4 * (1 + std::fabs(q))) {
          // Rounded: exact, except where f32 division may land on the other side of an integer.
          ASSERT_EQ(got, want) << mode << " at " << i << " q=" << q;
        }
      }
    }
  }
}

TEST(WebGpuDivMode, IntTruncFloorExactIncludingNegativesAndExactQuotients) {
  std::mt19937 rng(15);
  Tensor ta = test::random_tensor(ScalarType::kInt, {8, 25}, rng, -1000, 1000);
  Tensor tb = test::random_tensor(ScalarType::kInt, {25}, rng, -9, 10);
  for (int64_t i = 0; i < tb.numel(); ++i)
    if (tb.data_as<int32_t>()[i] == 0) tb.data_as<int32_t>()[i] = 3;
  // Exact multiples (6 / 3, -6 / 3, ...) where a float path can round the wrong way.
  for (int64_t j = 0; j < 25; ++j) ta.data_as<int32_t>()[j] = tb.data_as<int32_t>()[j] * (static_cast<int32_t>(j) - 12);
  for (const char* mode : {"trunc", "floor"}) {
    auto r = run_div_mode(ta, tb, mode, ScalarType::kInt, {8, 25});
    ASSERT_TRUE(r.ok()) << mode << ": " << r.status().to_string();
    for (int64_t i = 0; i < r->numel(); ++i) {
      const int32_t x = ta.data_as<int32_t>()[i], y = tb.data_as<int32_t>()[i % 25];
      int32_t want = x / y;
      if (mode[0] == 'f' && x % y != 0 && ((x < 0) != (y < 0))) want -= 1;
      ASSERT_EQ(r->data_as<int32_t>()[i], want) << mode << " " << x << " / " << y;
    }
  }
}

TEST(WebGpuDivMode, UnknownRoundingModeIsNamed) {
  std::mt19937 rng(16);
  Tensor t = test::random_tensor(ScalarType::kFloat, {4}, rng);
  auto r = run_div_mode(t, t, "ceil", ScalarType::kFloat, {4});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("rounding_mode \"ceil\""), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("aten.div.Tensor_mode"), std::string::npos) << r.status().message();
}

// A bool constant of a VK00 graph holding a byte other than 0 or 1 (a hostile blob: the CPU
// executor's kernels read bools through bool pointers) fails the build naming the element;
// the same constant with 0 / 1 runs.
TEST(WebGpuLogicalOps, BoolConstantWithOtherBytesIsAnError) {
  std::mt19937 rng(17);
  Tensor a = test::random_tensor(ScalarType::kBool, {8}, rng);
  for (uint8_t byte : {uint8_t{1}, uint8_t{2}}) {
    Tensor c = test::random_tensor(ScalarType::kBool, {8}, rng);
    static_cast<uint8_t*>(c.data)[5] = byte;
    test::VkGraphBuilder b;
    int x = b.input(ScalarType::kBool, {8});
    int out = b.tensor(ScalarType::kBool, {8});
    b.op("aten.logical_or.default", {x, b.constant(c), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(a)});
    if (byte == 1) {
      EXPECT_TRUE(r.ok()) << r.status().to_string();
      continue;
    }
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("bool constant element 5 holds the byte 2"), std::string::npos)
        << r.status().message();
  }
}

}  // namespace
}  // namespace wick
