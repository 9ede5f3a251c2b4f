// Tests of the creation ops (fill.wgsl): full, full_like, zeros/ones, arange. Values are
// exact (small integers and dyadic fractions).
#include <gtest/gtest.h>

#include <cmath>

#include "single_op.h"

namespace wick {
namespace {

TEST(WebGpuCreationOp, FullWithLiteralAndSymIntSizes) {
  for (const auto& shape : std::vector<std::vector<int64_t>>{{1}, {7}, {3, 1, 5}, {2, 3, 4, 5}, {70001}}) {
    test::VkGraphBuilder b;
    int x = b.input(ScalarType::kFloat, {1});  // graphs need an input; unused
    int out = b.tensor(ScalarType::kFloat, shape);
    b.op("aten.full.default", {b.int_list(shape), b.double_value(-2.5), b.none(), b.none(), b.none(), b.none(), out});
    b.output(out);
    (void)x;
    auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1}))});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_EQ((*r)[0].tensor.sizes, shape);
    for (int64_t i = 0; i < (*r)[0].tensor.numel(); ++i) ASSERT_EQ((*r)[0].tensor.data_as<float>()[i], -2.5f);
  }
  // A size list with a SymInt: the live value (3) sets the shape below the bound [5, 4].
  test::VkGraphBuilder b;
  b.input(ScalarType::kFloat, {1});
  int s = b.symint(3);
  int out = b.tensor(ScalarType::kLong, {5, 4});
  b.op("aten.full.default", {b.value_list({s, b.int_value(4)}), b.int_value(7), b.none(), b.none(), b.none(), b.none(), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1}))});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ((*r)[0].tensor.sizes, (std::vector<int64_t>{3, 4}));
  for (int64_t i = 0; i < 12; ++i) ASSERT_EQ((*r)[0].tensor.data_as<int64_t>()[i], 7);
}

TEST(WebGpuCreationOp, FullLikeFollowsLiveShape) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {4, 6});
  int out = b.tensor(ScalarType::kFloat, {4, 6});
  b.op("aten.full_like.default", {x, b.double_value(0.25), b.none(), b.none(), b.none(), b.none(), b.none(), out});
  int ones = b.tensor(ScalarType::kBool, {4, 6});
  b.op("aten.ones_like.default", {x, b.none(), b.none(), b.none(), b.none(), b.none(), ones});
  b.output(out);
  b.output(ones);
  Tensor in = Tensor::make_owned(ScalarType::kFloat, {2, 3});  // below the bound
  auto r = b.run({Value::make_tensor(in)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ((*r)[0].tensor.sizes, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ((*r)[1].tensor.sizes, (std::vector<int64_t>{2, 3}));
  for (int64_t i = 0; i < 6; ++i) {
    EXPECT_EQ((*r)[0].tensor.data_as<float>()[i], 0.25f);
    EXPECT_EQ((*r)[1].tensor.data_as<uint8_t>()[i], 1);
  }
}

TEST(WebGpuCreationOp, ArangeIntAndFloat) {
  struct Case { double start, end, step; ScalarType dtype; };
  for (const Case& c : {Case{0, 10, 1, ScalarType::kLong}, Case{3, -4, -2, ScalarType::kLong}, Case{0, 1, 1, ScalarType::kLong},
                        Case{-1, 2, 0.25, ScalarType::kFloat}, Case{0.5, 1000.5, 1, ScalarType::kFloat}}) {
    const int64_t n = static_cast<int64_t>(std::ceil((c.end - c.start) / c.step));
    test::VkGraphBuilder b;
    b.input(ScalarType::kFloat, {1});
    int out = b.tensor(c.dtype, {n});
    auto num = [&](double v) { return v == std::floor(v) ? b.int_value(static_cast<int64_t>(v)) : b.double_value(v); };
    b.op("aten.arange.start_step", {num(c.start), num(c.end), num(c.step), b.none(), b.none(), b.none(), b.none(), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1}))});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_EQ((*r)[0].tensor.sizes, (std::vector<int64_t>{n}));
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(test::at_f((*r)[0].tensor, i), static_cast<float>(c.start + i * c.step)) << i;
  }
}

TEST(WebGpuCreationOp, ArangeWithSymIntEnd) {
  test::VkGraphBuilder b;
  b.input(ScalarType::kFloat, {1});
  int end = b.symint(5);
  int out = b.tensor(ScalarType::kLong, {16});
  b.op("aten.arange.start_step", {b.int_value(1), end, b.int_value(1), b.none(), b.none(), b.none(), b.none(), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1}))});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ((*r)[0].tensor.sizes, (std::vector<int64_t>{4}));
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ((*r)[0].tensor.data_as<int64_t>()[i], i + 1);
}

TEST(WebGpuCreationOp, ArangeZeroStepAndOversizeFail) {
  {
    test::VkGraphBuilder b;
    b.input(ScalarType::kFloat, {1});
    int out = b.tensor(ScalarType::kLong, {4});
    b.op("aten.arange.start_step", {b.int_value(0), b.int_value(4), b.int_value(0), b.none(), b.none(), b.none(), b.none(), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1}))});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("step"), std::string::npos) << r.status().message();
  }
  {
    test::VkGraphBuilder b;
    b.input(ScalarType::kFloat, {1});
    int out = b.tensor(ScalarType::kFloat, {2, 2});
    b.op("aten.full.default", {b.int_list({3, 2}), b.int_value(1), b.none(), b.none(), b.none(), b.none(), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1}))});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("does not fit"), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace wick
