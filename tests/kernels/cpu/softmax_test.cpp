#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

TEST(CpuSoftmaxKernel, SoftmaxAndLogSoftmaxAlongMiddleDim) {
  Harness h;
  auto x = as_float32(random_values(2 * 5 * 3, -4, 4, 140));
  x[0] = 80;  // large values must not overflow
  int32_t tx = h.tensor(ScalarType::kFloat, {2, 5, 3}, x);
  int32_t out = h.tensor(ScalarType::kFloat, {2, 5, 3});
  ASSERT_TRUE(h.call("aten::_softmax.out", {tx, h.i(1), h.b(false), out, out}).ok());
  std::vector<double> want(x.size()), want_log(x.size());
  for (int a = 0; a < 2; ++a)
    for (int c = 0; c < 3; ++c) {
      double mx = -INFINITY, sum = 0;
      for (int b = 0; b < 5; ++b) mx = std::max(mx, x[static_cast<size_t>((a * 5 + b) * 3 + c)]);
      for (int b = 0; b < 5; ++b) sum += std::exp(x[static_cast<size_t>((a * 5 + b) * 3 + c)] - mx);
      for (int b = 0; b < 5; ++b) {
        const size_t k = static_cast<size_t>((a * 5 + b) * 3 + c);
        want[k] = std::exp(x[k] - mx) / sum;
        want_log[k] = x[k] - mx - std::log(sum);
      }
    }
  expect_near_all(h.data(out), want, 1e-6);
  ASSERT_TRUE(h.call("aten::_log_softmax.out", {tx, h.i(-2), h.b(false), out, out}).ok());
  expect_near_all(h.data(out), want_log, 1e-5);
}

TEST(CpuSoftmaxKernel, MaskedRowsAndErrors) {
  Harness h;
  int32_t tx = h.tensor(ScalarType::kFloat, {2, 2}, {-INFINITY, 0, -INFINITY, -INFINITY});
  int32_t out = h.tensor(ScalarType::kFloat, {2, 2});
  ASSERT_TRUE(h.call("aten::_softmax.out", {tx, h.i(-1), h.b(false), out, out}).ok());
  auto got = h.data(out);
  EXPECT_EQ(got[0], 0);
  EXPECT_EQ(got[1], 1);
  EXPECT_TRUE(std::isnan(got[2]));  // a fully masked row is NaN, as in PyTorch
  int32_t ti = h.tensor(ScalarType::kInt, {2});
  EXPECT_OP_ERROR(h.call("aten::_softmax.out", {ti, h.i(0), h.b(false), ti, ti}), "aten::_softmax.out");
  EXPECT_OP_ERROR(h.call("aten::_softmax.out", {tx, h.i(2), h.b(false), out, out}), "aten::_softmax.out");
}

}  // namespace
}  // namespace wick::cpu::testing
