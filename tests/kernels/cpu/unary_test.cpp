#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "kernels/cpu/kernel_test_util.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu::testing {
namespace {

// Runs a float32 unary kernel and compares with a double reference of the float input.
void check_float_unary(const char* op, const std::function<double(double)>& ref, double lo, double hi, double atol,
                       double rtol = 1e-6, int64_t n = 37) {
  Harness h;
  auto x = as_float32(random_values(static_cast<size_t>(n), lo, hi, 21));
  int32_t tx = h.tensor(ScalarType::kFloat, {n}, x);
  int32_t out = h.tensor(ScalarType::kFloat, {n});
  ASSERT_TRUE(h.call(op, {tx, out, out}).ok()) << op;
  std::vector<double> want(x.size());
  for (size_t k = 0; k < x.size(); ++k) want[k] = ref(x[k]);
  expect_near_all(h.data(out), want, atol, rtol);
}

TEST(CpuUnaryKernel, MathFunctionsMatchReference) {
  check_float_unary("aten::log.out", [](double x) { return std::log(x); }, 0.1, 1.1, 1e-6);
  check_float_unary("aten::exp.out", [](double x) { return std::exp(x); }, -5, 5, 1e-6);
  check_float_unary("aten::sqrt.out", [](double x) { return std::sqrt(x); }, 0, 9, 1e-6);
  check_float_unary("aten::rsqrt.out", [](double x) { return 1 / std::sqrt(x); }, 0.1, 9, 1e-6);
  check_float_unary("aten::tanh.out", [](double x) { return std::tanh(x); }, -4, 4, 1e-6);
  check_float_unary("aten::sigmoid.out", [](double x) { return 1 / (1 + std::exp(-x)); }, -20, 20, 1e-6);
  check_float_unary("aten::sin.out", [](double x) { return std::sin(x); }, -4, 4, 1e-6);
  check_float_unary("aten::cos.out", [](double x) { return std::cos(x); }, -4, 4, 1e-6);
  check_float_unary("aten::erf.out", [](double x) { return std::erf(x); }, -3, 3, 1e-6);
  check_float_unary("aten::neg.out", [](double x) { return -x; }, -3, 3, 0);
  check_float_unary("aten::abs.out", [](double x) { return std::fabs(x); }, -3, 3, 0);
  check_float_unary("aten::reciprocal.out", [](double x) { return 1 / x; }, 0.5, 3, 1e-6);
  check_float_unary("aten::floor.out", [](double x) { return std::floor(x); }, -3, 3, 0);
  check_float_unary("aten::ceil.out", [](double x) { return std::ceil(x); }, -3, 3, 0);
  check_float_unary("aten::silu.out", [](double x) { return x / (1 + std::exp(-x)); }, -6, 6, 1e-6);
  check_float_unary("aten::hardswish.out", [](double x) { return x * std::min(std::max(x + 3, 0.0), 6.0) / 6; }, -5, 5, 1e-6);
  check_float_unary("aten::hardsigmoid.out", [](double x) { return std::min(std::max(x + 3, 0.0), 6.0) / 6; }, -5, 5, 1e-6);
  check_float_unary("aten::log1p.out", [](double x) { return std::log1p(x); }, 0, 2, 1e-6);
  check_float_unary("aten::expm1.out", [](double x) { return std::expm1(x); }, -1, 1, 1e-6);
}

// Activations large enough to run in chunks over the pool (65,536 elements and more; the
// chunks' edges at odd places), hardswish through its AVX2 loop, at 1 and 2 threads.
TEST(CpuUnaryKernel, LargeActivationsInChunks) {
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    check_float_unary("aten::hardswish.out", [](double x) { return x * std::min(std::max(x + 3, 0.0), 6.0) / 6; }, -5, 5,
                      1e-6, 1e-6, 2 * 32768 + 13);
    check_float_unary("aten::hardswish.out", [](double x) { return x * std::min(std::max(x + 3, 0.0), 6.0) / 6; }, -5, 5,
                      1e-6, 1e-6, 1001);
    check_float_unary("aten::sigmoid.out", [](double x) { return 1 / (1 + std::exp(-x)); }, -20, 20, 1e-6, 1e-6,
                      3 * 32768 + 5);
  }
  set_num_threads(0);
}

TEST(CpuUnaryKernel, ReluKeepsDtypeAndNaN) {
  Harness h;
  int32_t tx = h.tensor(ScalarType::kFloat, {2, 3}, {-1, 0, 2, std::nan(""), -0.5, 7});
  int32_t out = h.tensor(ScalarType::kFloat, {2, 3});
  ASSERT_TRUE(h.call("aten::relu.out", {tx, out, out}).ok());
  expect_near_all(h.data(out), {0, 0, 2, std::nan(""), 0, 7}, 0);
  int32_t ti = h.tensor(ScalarType::kLong, {3}, {-4, 0, 9});
  int32_t iout = h.tensor(ScalarType::kLong, {3});
  ASSERT_TRUE(h.call("aten::relu.out", {ti, iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{0, 0, 9}));
  int32_t tb = h.tensor(ScalarType::kBool, {1}, {1});
  EXPECT_OP_ERROR(h.call("aten::relu.out", {tb, tb, tb}), "aten::relu.out");
}

TEST(CpuUnaryKernel, ReluDynamicBatch) {
  Harness h;  // cpu/mlp_cpu_dynamic_batch: relu on float[<=16, 128]
  int32_t tx = h.dynamic(ScalarType::kFloat, {16, 128});
  const int64_t live[] = {3, 128};
  ASSERT_TRUE(h.t(tx).resize(live).ok());
  for (int64_t k = 0; k < 3 * 128; ++k) store_double(h.t(tx), k, (k % 7) - 3.0);
  int32_t out = h.dynamic(ScalarType::kFloat, {16, 128});
  ASSERT_TRUE(h.call("aten::relu.out", {tx, out, out}).ok());
  EXPECT_EQ(h.sizes(out), (std::vector<int64_t>{3, 128}));
  auto got = h.data(out);
  for (int64_t k = 0; k < 3 * 128; ++k) ASSERT_EQ(got[static_cast<size_t>(k)], std::max(0.0, (k % 7) - 3.0));
}

TEST(CpuUnaryKernel, IntegerInputsGiveFloat) {
  Harness h;
  int32_t ti = h.tensor(ScalarType::kInt, {3}, {1, 4, 9});
  int32_t out = h.tensor(ScalarType::kFloat, {3});
  ASSERT_TRUE(h.call("aten::sqrt.out", {ti, out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{1, 2, 3}));
  int32_t iout = h.tensor(ScalarType::kInt, {3});
  EXPECT_OP_ERROR(h.call("aten::log.out", {ti, iout, iout}), "aten::log.out");
  int32_t tb = h.tensor(ScalarType::kBool, {2}, {0, 1});
  int32_t bout = h.tensor(ScalarType::kFloat, {2});
  ASSERT_TRUE(h.call("aten::exp.out", {tb, bout, bout}).ok());
  expect_near_all(h.data(bout), {1, std::exp(1.0)}, 1e-6);
}

TEST(CpuUnaryKernel, FloatOnlyActivationsRejectIntegers) {
  Harness h;
  int32_t ti = h.tensor(ScalarType::kInt, {3}, {1, 4, 9});
  int32_t out = h.tensor(ScalarType::kFloat, {3});
  EXPECT_OP_ERROR(h.call("aten::silu.out", {ti, out, out}), "aten::silu.out");
  EXPECT_OP_ERROR(h.call("aten::gelu.out", {ti, h.str("none"), out, out}), "aten::gelu.out");
}

TEST(CpuUnaryKernel, Float64AndHalf) {
  Harness h;
  int32_t td = h.tensor(ScalarType::kDouble, {2}, {0.5, 2});
  int32_t dout = h.tensor(ScalarType::kDouble, {2});
  ASSERT_TRUE(h.call("aten::log.out", {td, dout, dout}).ok());
  EXPECT_EQ(h.data(dout), (std::vector<double>{std::log(0.5), std::log(2.0)}));
  int32_t th = h.tensor(ScalarType::kHalf, {2}, {1, -2});
  int32_t hout = h.tensor(ScalarType::kHalf, {2});
  ASSERT_TRUE(h.call("aten::exp.out", {th, hout, hout}).ok());
  expect_near_all(h.data(hout), {std::exp(1.0), std::exp(-2.0)}, 2e-3);
}

TEST(CpuUnaryKernel, Gelu) {
  Harness h;
  auto x = as_float32(random_values(20, -4, 4, 22));
  int32_t tx = h.tensor(ScalarType::kFloat, {20}, x);
  int32_t out = h.tensor(ScalarType::kFloat, {20});
  ASSERT_TRUE(h.call("aten::gelu.out", {tx, h.str("none"), out, out}).ok());
  std::vector<double> want(20), want_tanh(20);
  for (size_t k = 0; k < 20; ++k) {
    want[k] = 0.5 * x[k] * (1 + std::erf(x[k] / std::sqrt(2.0)));
    want_tanh[k] = 0.5 * x[k] * (1 + std::tanh(std::sqrt(2 / 3.14159265358979323846) * (x[k] + 0.044715 * x[k] * x[k] * x[k])));
  }
  expect_near_all(h.data(out), want, 1e-6);
  ASSERT_TRUE(h.call("aten::gelu.out", {tx, h.str("tanh"), out, out}).ok());
  expect_near_all(h.data(out), want_tanh, 1e-6);
  EXPECT_OP_ERROR(h.call("aten::gelu.out", {tx, h.str("fast"), out, out}), "aten::gelu.out");
}

TEST(CpuUnaryKernel, ClampAndFriends) {
  Harness h;
  int32_t tx = h.tensor(ScalarType::kFloat, {5}, {-3, -0.5, 0.5, 3, std::nan("")});
  int32_t out = h.tensor(ScalarType::kFloat, {5});
  ASSERT_TRUE(h.call("aten::clamp.out", {tx, h.d(-1), h.d(1), out, out}).ok());
  expect_near_all(h.data(out), {-1, -0.5, 0.5, 1, std::nan("")}, 0);
  ASSERT_TRUE(h.call("aten::clamp.out", {tx, h.none(), h.i(0), out, out}).ok());
  expect_near_all(h.data(out), {-3, -0.5, 0, 0, std::nan("")}, 0);
  // min > max gives max everywhere.
  ASSERT_TRUE(h.call("aten::clamp.out", {tx, h.i(2), h.i(1), out, out}).ok());
  expect_near_all(h.data(out), {1, 1, 1, 1, std::nan("")}, 0);
  EXPECT_OP_ERROR(h.call("aten::clamp.out", {tx, h.none(), h.none(), out, out}), "aten::clamp.out");
  ASSERT_TRUE(h.call("aten::hardtanh.out", {tx, h.i(-1), h.i(1), out, out}).ok());
  expect_near_all(h.data(out), {-1, -0.5, 0.5, 1, std::nan("")}, 0);
  ASSERT_TRUE(h.call("aten::leaky_relu.out", {tx, h.d(0.1), out, out}).ok());
  expect_near_all(h.data(out), {-0.3, -0.05, 0.5, 3, std::nan("")}, 1e-7);
  // Integer clamp with a float bound promotes to float.
  int32_t ti = h.tensor(ScalarType::kLong, {3}, {-5, 0, 5});
  int32_t iout = h.tensor(ScalarType::kLong, {3});
  ASSERT_TRUE(h.call("aten::clamp.out", {ti, h.i(-2), h.i(2), iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{-2, 0, 2}));
  EXPECT_OP_ERROR(h.call("aten::clamp.out", {ti, h.d(-2.5), h.none(), iout, iout}), "aten::clamp.out");
}

TEST(CpuUnaryKernel, RoundingAndPredicates) {
  Harness h;
  int32_t tx = h.tensor(ScalarType::kFloat, {6}, {0.5, 1.5, 2.5, -0.5, -1.7, 2.2});
  int32_t out = h.tensor(ScalarType::kFloat, {6});
  ASSERT_TRUE(h.call("aten::round.out", {tx, out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0, 2, 2, -0, -2, 2}));
  ASSERT_TRUE(h.call("aten::trunc.out", {tx, out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0, 1, 2, -0, -1, 2}));
  ASSERT_TRUE(h.call("aten::sign.out", {tx, out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{1, 1, 1, -1, -1, 1}));
  int32_t tn = h.tensor(ScalarType::kFloat, {3}, {std::nan(""), INFINITY, 1});
  int32_t bout = h.tensor(ScalarType::kBool, {3});
  ASSERT_TRUE(h.call("aten::isnan.out", {tn, bout, bout}).ok());
  EXPECT_EQ(h.data(bout), (std::vector<double>{1, 0, 0}));
  ASSERT_TRUE(h.call("aten::isinf.out", {tn, bout, bout}).ok());
  EXPECT_EQ(h.data(bout), (std::vector<double>{0, 1, 0}));
  ASSERT_TRUE(h.call("aten::logical_not.out", {tn, bout, bout}).ok());
  EXPECT_EQ(h.data(bout), (std::vector<double>{0, 0, 0}));
  int32_t ti = h.tensor(ScalarType::kInt, {2}, {0, 5});
  int32_t iout = h.tensor(ScalarType::kInt, {2});
  ASSERT_TRUE(h.call("aten::bitwise_not.out", {ti, iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{-1, -6}));
  int32_t tb = h.tensor(ScalarType::kBool, {2}, {0, 1});
  int32_t bout2 = h.tensor(ScalarType::kBool, {2});
  ASSERT_TRUE(h.call("aten::bitwise_not.out", {tb, bout2, bout2}).ok());
  EXPECT_EQ(h.data(bout2), (std::vector<double>{1, 0}));
}

TEST(CpuUnaryKernel, ErrorsNameTheOperator) {
  Harness h;
  int32_t tx = h.tensor(ScalarType::kFloat, {3});
  int32_t out = h.tensor(ScalarType::kFloat, {4});
  EXPECT_OP_ERROR(h.call("aten::exp.out", {tx, out, out}), "aten::exp.out");  // static out, wrong shape
  EXPECT_OP_ERROR(h.call("aten::exp.out", {h.d(1.0), out, out}), "aten::exp.out");
  EXPECT_OP_ERROR(h.call("aten::exp.out", {tx, out}), "aten::exp.out");
  int32_t q = h.tensor(ScalarType::kQInt8, {3});
  EXPECT_OP_ERROR(h.call("aten::exp.out", {q, out, out}), "aten::exp.out");
}

}  // namespace
}  // namespace wick::cpu::testing
