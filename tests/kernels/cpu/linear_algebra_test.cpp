#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/cpu/kernel_test_util.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu::testing {
namespace {

std::vector<double> matmul_ref(const std::vector<double>& a, const std::vector<double>& b, int64_t m, int64_t k, int64_t n) {
  std::vector<double> c(static_cast<size_t>(m * n), 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += a[static_cast<size_t>(i * k + p)] * b[static_cast<size_t>(p * n + j)];
      c[static_cast<size_t>(i * n + j)] = acc;
    }
  return c;
}

TEST(CpuLinearAlgebraKernel, AddmmAsInMlp) {
  Harness h;  // cpu/mlp_cpu: addmm(bias[128], x[4,64], wT[64,128], 1, 1)
  auto bias = as_float32(random_values(128, -1, 1, 60));
  auto x = as_float32(random_values(4 * 64, -1, 1, 61));
  auto w = as_float32(random_values(64 * 128, -1, 1, 62));
  int32_t tb = h.tensor(ScalarType::kFloat, {128}, bias), tx = h.tensor(ScalarType::kFloat, {4, 64}, x);
  int32_t tw = h.tensor(ScalarType::kFloat, {64, 128}, w);
  int32_t out = h.tensor(ScalarType::kFloat, {4, 128});
  ASSERT_TRUE(h.call("aten::addmm.out", {tb, tx, tw, h.i(1), h.i(1), out, out}).ok());
  auto want = matmul_ref(x, w, 4, 64, 128);
  for (size_t k = 0; k < want.size(); ++k) want[k] += bias[k % 128];
  expect_near_all(h.data(out), want, 1e-5);
}

TEST(CpuLinearAlgebraKernel, AddmmDynamicBatch) {
  Harness h;  // cpu/mlp_cpu_dynamic_batch: x and out are [<=16, 128]
  int32_t tb = h.tensor(ScalarType::kFloat, {10}, random_values(10, -1, 1, 63));
  int32_t tx = h.dynamic(ScalarType::kFloat, {16, 128});
  const int64_t live[] = {1, 128};
  ASSERT_TRUE(h.t(tx).resize(live).ok());
  auto x = as_float32(random_values(128, -1, 1, 64));
  for (int64_t k = 0; k < 128; ++k) store_double(h.t(tx), k, x[static_cast<size_t>(k)]);
  auto w = as_float32(random_values(128 * 10, -1, 1, 65));
  int32_t tw = h.tensor(ScalarType::kFloat, {128, 10}, w);
  int32_t out = h.dynamic(ScalarType::kFloat, {16, 10});
  ASSERT_TRUE(h.call("aten::addmm.out", {tb, tx, tw, h.i(1), h.i(1), out, out}).ok());
  EXPECT_EQ(h.sizes(out), (std::vector<int64_t>{1, 10}));
  auto want = matmul_ref(x, w, 1, 128, 10);
  auto b = h.data(tb);
  for (size_t k = 0; k < 10; ++k) want[k] += b[k];
  expect_near_all(h.data(out), want, 1e-5);
}

TEST(CpuLinearAlgebraKernel, AddmmBetaAlpha) {
  Harness h;
  int32_t self = h.tensor(ScalarType::kDouble, {2, 1}, {1, std::nan("")});
  int32_t a = h.tensor(ScalarType::kDouble, {2, 2}, {1, 2, 3, 4});
  int32_t b = h.tensor(ScalarType::kDouble, {2, 2}, {5, 6, 7, 8});
  int32_t out = h.tensor(ScalarType::kDouble, {2, 2});
  // beta = 0 ignores self, NaN included.
  ASSERT_TRUE(h.call("aten::addmm.out", {self, a, b, h.i(0), h.d(0.5), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{9.5, 11, 21.5, 25}));
  int32_t self2 = h.tensor(ScalarType::kDouble, {2, 1}, {1, 2});
  ASSERT_TRUE(h.call("aten::addmm.out", {self2, a, b, h.i(2), h.i(1), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{21, 24, 47, 54}));
}

TEST(CpuLinearAlgebraKernel, MmBmmIntegerAndEdgeShapes) {
  Harness h;
  auto a = random_ints(3 * 5, -3, 3, 66), b = random_ints(5 * 2, -3, 3, 67);
  int32_t ta = h.tensor(ScalarType::kLong, {3, 5}, a), tb = h.tensor(ScalarType::kLong, {5, 2}, b);
  int32_t out = h.tensor(ScalarType::kLong, {3, 2});
  ASSERT_TRUE(h.call("aten::mm.out", {ta, tb, out, out}).ok());
  EXPECT_EQ(h.data(out), matmul_ref(a, b, 3, 5, 2));
  // k = 0 gives zeros.
  int32_t z1 = h.tensor(ScalarType::kFloat, {2, 0}), z2 = h.tensor(ScalarType::kFloat, {0, 3});
  int32_t zout = h.tensor(ScalarType::kFloat, {2, 3}, {1, 1, 1, 1, 1, 1});
  ASSERT_TRUE(h.call("aten::mm.out", {z1, z2, zout, zout}).ok());
  EXPECT_EQ(h.data(zout), (std::vector<double>(6, 0)));
  // bmm over 3 batches of odd sizes.
  auto x = as_float32(random_values(3 * 2 * 7, -1, 1, 68)), y = as_float32(random_values(3 * 7 * 5, -1, 1, 69));
  int32_t tx = h.tensor(ScalarType::kFloat, {3, 2, 7}, x), ty = h.tensor(ScalarType::kFloat, {3, 7, 5}, y);
  int32_t bout = h.tensor(ScalarType::kFloat, {3, 2, 5});
  ASSERT_TRUE(h.call("aten::bmm.out", {tx, ty, bout, bout}).ok());
  std::vector<double> want;
  for (int64_t i = 0; i < 3; ++i) {
    std::vector<double> xa(x.begin() + i * 14, x.begin() + (i + 1) * 14), ya(y.begin() + i * 35, y.begin() + (i + 1) * 35);
    auto c = matmul_ref(xa, ya, 2, 7, 5);
    want.insert(want.end(), c.begin(), c.end());
  }
  expect_near_all(h.data(bout), want, 1e-5);
}

TEST(CpuLinearAlgebraKernel, Linear) {
  Harness h;
  auto x = as_float32(random_values(2 * 3 * 4, -1, 1, 70)), w = as_float32(random_values(5 * 4, -1, 1, 71));
  auto b = as_float32(random_values(5, -1, 1, 72));
  int32_t tx = h.tensor(ScalarType::kFloat, {2, 3, 4}, x), tw = h.tensor(ScalarType::kFloat, {5, 4}, w);
  int32_t tb = h.tensor(ScalarType::kFloat, {5}, b);
  int32_t out = h.tensor(ScalarType::kFloat, {2, 3, 5});
  ASSERT_TRUE(h.call("aten::linear.out", {tx, tw, tb, out, out}).ok());
  std::vector<double> want(30);
  for (int64_t r = 0; r < 6; ++r)
    for (int64_t o = 0; o < 5; ++o) {
      double acc = b[static_cast<size_t>(o)];
      for (int64_t i = 0; i < 4; ++i) acc += x[static_cast<size_t>(r * 4 + i)] * w[static_cast<size_t>(o * 4 + i)];
      want[static_cast<size_t>(r * 5 + o)] = acc;
    }
  expect_near_all(h.data(out), want, 1e-5);
}

TEST(CpuLinearAlgebraKernel, Errors) {
  Harness h;
  const char* op = "aten::addmm.out";
  int32_t self = h.tensor(ScalarType::kFloat, {3});
  int32_t a = h.tensor(ScalarType::kFloat, {2, 4}), b = h.tensor(ScalarType::kFloat, {5, 3});
  int32_t out = h.tensor(ScalarType::kFloat, {2, 3});
  EXPECT_OP_ERROR(h.call(op, {self, a, b, h.i(1), h.i(1), out, out}), op);  // inner dims
  int32_t v = h.tensor(ScalarType::kFloat, {4});
  EXPECT_OP_ERROR(h.call(op, {self, v, b, h.i(1), h.i(1), out, out}), op);  // rank
  int32_t bd = h.tensor(ScalarType::kDouble, {4, 3});
  EXPECT_OP_ERROR(h.call(op, {self, a, bd, h.i(1), h.i(1), out, out}), op);  // dtype
  int32_t b4 = h.tensor(ScalarType::kFloat, {4, 3}), bad_self = h.tensor(ScalarType::kFloat, {2});
  EXPECT_OP_ERROR(h.call(op, {bad_self, a, b4, h.i(1), h.i(1), out, out}), op);  // self broadcast
  EXPECT_TRUE(h.call(op, {self, a, b4, h.i(1), h.i(1), out, out}).ok());
  EXPECT_OP_ERROR(h.call("aten::bmm.out", {a, b4, out, out}), "aten::bmm.out");
}

}  // namespace
}  // namespace wick::cpu::testing

namespace wick::cpu::testing {
namespace {

// The fp32 linear layer on random shapes against a double-precision sum: one row (the dot
// product path) and several (linear_gemm.cpp: 6-feature blocks, 16-row panels, 64-row tiles,
// 256-feature K chunks, feature chunks when tiles are few), odd sizes, with and without
// bias, at 1 and 2 threads.
TEST(CpuLinearAlgebraKernel, LinearRandomShapesMatchDoubleSum) {
  std::mt19937 gen(77);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); };
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    for (int it = 0; it < 24; ++it) {
      const int64_t m = it % 6 == 0 ? 1 : pick(2, 150), k = it % 5 == 0 ? pick(257, 600) : pick(1, 70),
                    n = pick(1, 45);
      const bool with_bias = it % 3 != 0;
      SCOPED_TRACE(::testing::Message() << "threads " << threads << " m " << m << " k " << k << " n " << n);
      Harness h;
      auto x = as_float32(random_values(static_cast<size_t>(m * k), -1, 1, 500 + it));
      auto w = as_float32(random_values(static_cast<size_t>(n * k), -1, 1, 600 + it));
      auto b = as_float32(random_values(static_cast<size_t>(n), -1, 1, 700 + it));
      int32_t tx = h.tensor(ScalarType::kFloat, {m, k}, x), tw = h.tensor(ScalarType::kFloat, {n, k}, w);
      int32_t tb = with_bias ? h.tensor(ScalarType::kFloat, {n}, b) : h.none();
      int32_t out = h.tensor(ScalarType::kFloat, {m, n});
      ASSERT_TRUE(h.call("aten::linear.out", {tx, tw, tb, out, out}).ok());
      std::vector<double> want(static_cast<size_t>(m * n));
      for (int64_t r = 0; r < m; ++r)
        for (int64_t o = 0; o < n; ++o) {
          double acc = with_bias ? b[static_cast<size_t>(o)] : 0.0;
          for (int64_t i = 0; i < k; ++i) acc += x[static_cast<size_t>(r * k + i)] * w[static_cast<size_t>(o * k + i)];
          want[static_cast<size_t>(r * n + o)] = acc;
        }
      expect_near_all(h.data(out), want, 2e-5 * std::sqrt(static_cast<double>(k)) + 1e-5);
    }
  }
  set_num_threads(0);
}

}  // namespace
}  // namespace wick::cpu::testing
