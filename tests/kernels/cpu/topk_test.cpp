#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

Status topk(Harness& h, int32_t x, int64_t k, int64_t dim, bool largest, int32_t v, int32_t i) {
  return h.call("aten::topk.values", {x, h.i(k), h.i(dim), h.b(largest), h.b(true), v, i, h.tensor_list({v, i})});
}

TEST(CpuTopkKernel, LastDimAsInDfine) {
  Harness h;  // demos/dfine_tiny: topk(x[1,100,4,33], 4, -1)
  std::vector<int64_t> s = {1, 100, 4, 33};
  auto x = as_float32(random_values(static_cast<size_t>(numel(s)), -3, 3, 110));
  int32_t tx = h.tensor(ScalarType::kFloat, s, x);
  int32_t v = h.tensor(ScalarType::kFloat, {1, 100, 4, 4}), i = h.tensor(ScalarType::kLong, {1, 100, 4, 4});
  ASSERT_TRUE(topk(h, tx, 4, -1, true, v, i).ok());
  auto gv = h.data(v), gi = h.data(i);
  for (size_t row = 0; row < 400; ++row) {
    std::vector<std::pair<double, int>> line;
    for (int c = 0; c < 33; ++c) line.push_back({x[row * 33 + static_cast<size_t>(c)], c});
    std::sort(line.begin(), line.end(), [](auto a, auto b) { return a.first > b.first; });
    for (size_t j = 0; j < 4; ++j) {
      ASSERT_EQ(gv[row * 4 + j], line[j].first);
      ASSERT_EQ(gi[row * 4 + j], line[j].second);
    }
  }
}

TEST(CpuTopkKernel, InnerDimSmallestTiesAndNaN) {
  Harness h;
  const double nan = std::nan("");
  // dim 0 of [4,2]: columns {5, nan, 5, 1} and {2, 2, 2, -1}.
  int32_t tx = h.tensor(ScalarType::kFloat, {4, 2}, {5, 2, nan, 2, 5, 2, 1, -1});
  int32_t v = h.tensor(ScalarType::kFloat, {3, 2}), i = h.tensor(ScalarType::kLong, {3, 2});
  ASSERT_TRUE(topk(h, tx, 3, 0, true, v, i).ok());
  expect_near_all(h.data(v), {nan, 2, 5, 2, 5, 2}, 0);  // NaN is the largest
  EXPECT_EQ(h.data(i), (std::vector<double>{1, 0, 0, 1, 2, 2}));
  ASSERT_TRUE(topk(h, tx, 3, 0, false, v, i).ok());
  expect_near_all(h.data(v), {1, -1, 5, 2, 5, 2}, 0);
  EXPECT_EQ(h.data(i), (std::vector<double>{3, 3, 0, 0, 2, 1}));
}

TEST(CpuTopkKernel, FlatAsInDfineQueries) {
  Harness h;  // demos/dfine_tiny: topk(scores[1,336], 100, 1)
  auto x = as_float32(random_values(336, 0, 1, 111));
  int32_t tx = h.tensor(ScalarType::kFloat, {1, 336}, x);
  int32_t v = h.tensor(ScalarType::kFloat, {1, 100}), i = h.tensor(ScalarType::kLong, {1, 100});
  ASSERT_TRUE(topk(h, tx, 100, 1, true, v, i).ok());
  auto sorted = x;
  std::sort(sorted.begin(), sorted.end(), std::greater<double>());
  auto gv = h.data(v), gi = h.data(i);
  for (size_t j = 0; j < 100; ++j) {
    ASSERT_EQ(gv[j], sorted[j]);
    ASSERT_EQ(x[static_cast<size_t>(gi[j])], gv[j]);
  }
}

TEST(CpuTopkKernel, EdgeCasesAndErrors) {
  Harness h;
  const char* op = "aten::topk.values";
  int32_t tx = h.tensor(ScalarType::kLong, {3}, {4, 9, 1});
  int32_t v0 = h.tensor(ScalarType::kLong, {0}), i0 = h.tensor(ScalarType::kLong, {0});
  ASSERT_TRUE(topk(h, tx, 0, 0, true, v0, i0).ok());
  int32_t v = h.tensor(ScalarType::kLong, {3}), i = h.tensor(ScalarType::kLong, {3});
  ASSERT_TRUE(topk(h, tx, 3, -1, false, v, i).ok());
  EXPECT_EQ(h.data(v), (std::vector<double>{1, 4, 9}));
  EXPECT_EQ(h.data(i), (std::vector<double>{2, 0, 1}));
  int32_t v4 = h.tensor(ScalarType::kLong, {4}), i4 = h.tensor(ScalarType::kLong, {4});
  EXPECT_OP_ERROR(topk(h, tx, 4, 0, true, v4, i4), op);
  EXPECT_OP_ERROR(topk(h, tx, -1, 0, true, v4, i4), op);
  EXPECT_OP_ERROR(topk(h, tx, 1, 1, true, v, i), op);
  int32_t vf = h.tensor(ScalarType::kFloat, {3}), ii = h.tensor(ScalarType::kInt, {3});
  EXPECT_OP_ERROR(topk(h, tx, 3, 0, true, vf, i), op);
  EXPECT_OP_ERROR(topk(h, tx, 3, 0, true, v, ii), op);
  // A 0-dim input has one element along dim 0/-1.
  int32_t s = h.tensor(ScalarType::kFloat, {}, {2}), sv = h.tensor(ScalarType::kFloat, {}), si = h.tensor(ScalarType::kLong, {});
  ASSERT_TRUE(topk(h, s, 1, -1, true, sv, si).ok());
  EXPECT_EQ(h.data(sv)[0], 2);
}

TEST(CpuTopkKernel, Sort) {
  Harness h;
  int32_t tx = h.tensor(ScalarType::kFloat, {2, 3}, {3, 1, 2, 0, 0, -1});
  int32_t v = h.tensor(ScalarType::kFloat, {2, 3}), i = h.tensor(ScalarType::kLong, {2, 3});
  ASSERT_TRUE(h.call("aten::sort.values", {tx, h.i(-1), h.b(false), v, i, h.tensor_list({v, i})}).ok());
  EXPECT_EQ(h.data(v), (std::vector<double>{1, 2, 3, -1, 0, 0}));
  EXPECT_EQ(h.data(i), (std::vector<double>{1, 2, 0, 2, 0, 1}));
  ASSERT_TRUE(h.call("aten::sort.values_stable", {tx, h.b(true), h.i(1), h.b(true), v, i, h.tensor_list({v, i})}).ok());
  EXPECT_EQ(h.data(v), (std::vector<double>{3, 2, 1, 0, 0, -1}));
  EXPECT_EQ(h.data(i), (std::vector<double>{0, 2, 1, 0, 1, 2}));
}

}  // namespace
}  // namespace wick::cpu::testing
