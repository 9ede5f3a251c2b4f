// Randomized tests of linear / mm / bmm / addmm (tiled and GEMV kernels) against a
// direct CPU computation in double. Tolerance: 1e-4 * (1 + sqrt(K)) absolute plus 1e-4
// relative (fp32 accumulation in a different order).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "linear_case.h"
#include "single_op.h"

namespace wick {
namespace {

using test::LinearCase;
using test::matmul_tol;

// out[b, m, n] = alpha * sum_k a[b, m, k] * B(b, k, n) + beta * bias(m, n)
void check_matmul(const Tensor& got, const Tensor& a, const Tensor& b, const Tensor* bias, int64_t batch, int64_t m,
                  int64_t k, int64_t n, bool trans_b, bool batched_b, double alpha, double beta, const std::string& what) {
  ASSERT_EQ(got.numel(), batch * m * n) << what;
  const float* pa = a.data_as<float>();
  const float* pb = b.data_as<float>();
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        const int64_t boff = batched_b ? bi * k * n : 0;
        for (int64_t q = 0; q < k; ++q)
          s += double(pa[(bi * m + i) * k + q]) * pb[boff + (trans_b ? j * k + q : q * n + j)];
        double want = alpha * s;
        if (bias) {
          const auto& bs = bias->sizes;
          const int64_t bn = bs.empty() ? 1 : bs.back(), bm = bs.size() == 2 ? bs[0] : 1;
          want += beta * test::at_f(*bias, (bm == 1 ? 0 : i) * bn + (bn == 1 ? 0 : j));
        }
        const float v = got.data_as<float>()[(bi * m + i) * n + j];
        ASSERT_NEAR(v, want, matmul_tol(k, want)) << what << " at [" << bi << "," << i << "," << j << "]";
      }
}

TEST(WebGpuMatmulOp, LinearRandomShapes) {
  std::mt19937 rng(11);
  const std::vector<LinearCase> cases = {
      {{1}, 1, 1, true},      {{1}, 13, 5, true},     {{7}, 13, 100, false}, {{33}, 64, 5, true},
      {{1}, 64, 100, false},  {{1, 1}, 300, 33, true}, {{2, 3}, 64, 7, true}, {{130}, 257, 67, true},
      {{}, 13, 9, true},      {{5}, 1, 100, false},    {{1}, 1000, 3, true},  {{65}, 16, 129, false},
  };
  for (const LinearCase& c : cases) {
    std::vector<int64_t> in_shape = c.lead, out_shape = c.lead;
    in_shape.push_back(c.k);
    out_shape.push_back(c.n);
    int64_t m = 1;
    for (int64_t d : c.lead) m *= d;
    Tensor w = test::random_tensor(ScalarType::kFloat, {c.n, c.k}, rng);
    Tensor bias = test::random_tensor(ScalarType::kFloat, {c.n}, rng);
    Tensor x = test::random_tensor(ScalarType::kFloat, in_shape, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, in_shape);
    int wi = b.constant(w);
    int bi = c.bias ? b.constant(bias) : b.none();
    int out = b.tensor(ScalarType::kFloat, out_shape);
    b.op("aten.linear.default", {xi, wi, bi, out});
    b.output(out);
    auto r = b.run({Value::make_tensor(x)});
    const std::string what = "linear " + shape_to_string(in_shape) + " x [" + std::to_string(c.n) + "," + std::to_string(c.k) + "]";
    ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
    ASSERT_EQ((*r)[0].tensor.sizes, out_shape) << what;
    check_matmul((*r)[0].tensor, x, w, c.bias ? &bias : nullptr, 1, m, c.k, c.n, true, false, 1, 1, what);
  }
}

// The input's first dim is dynamic (bound 16): the live M picks GEMV (M == 1) or tiles.
TEST(WebGpuMatmulOp, LinearDynamicBatchPicksKernelByLiveM) {
  std::mt19937 rng(5);
  Tensor w = test::random_tensor(ScalarType::kFloat, {100, 64}, rng);
  Tensor bias = test::random_tensor(ScalarType::kFloat, {100}, rng);
  for (int64_t m : {1, 7, 16}) {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {16, 64});
    int out = b.tensor(ScalarType::kFloat, {16, 100});
    b.op("aten.linear.default", {xi, b.constant(w), b.constant(bias), out});
    b.output(out);
    Tensor x = test::random_tensor(ScalarType::kFloat, {m, 64}, rng);
    auto r = b.run({Value::make_tensor(x)});
    ASSERT_TRUE(r.ok()) << "M=" << m << ": " << r.status().to_string();
    ASSERT_EQ((*r)[0].tensor.sizes, (std::vector<int64_t>{m, 100}));
    check_matmul((*r)[0].tensor, x, w, &bias, 1, m, 64, 100, true, false, 1, 1, "dynamic M=" + std::to_string(m));
  }
}

TEST(WebGpuMatmulOp, MmBmmAddmmRandomShapes) {
  std::mt19937 rng(3);
  struct MmCase { int64_t batch, m, k, n; };
  const std::vector<MmCase> cases = {{1, 1, 1, 1}, {1, 1, 13, 100}, {1, 7, 13, 5}, {1, 33, 64, 100},
                                     {3, 1, 64, 5}, {2, 33, 1, 7},  {4, 82, 16, 82}, {1, 70, 130, 65}};
  for (const MmCase& c : cases) {
    Tensor a = test::random_tensor(ScalarType::kFloat, {c.batch, c.m, c.k}, rng);
    Tensor bt = test::random_tensor(ScalarType::kFloat, {c.batch, c.k, c.n}, rng);
    // bmm
    {
      test::VkGraphBuilder b;
      int ai = b.input(ScalarType::kFloat, {c.batch, c.m, c.k});
      int bi = b.input(ScalarType::kFloat, {c.batch, c.k, c.n});
      int out = b.tensor(ScalarType::kFloat, {c.batch, c.m, c.n});
      b.op("aten.bmm.default", {ai, bi, out});
      b.output(out);
      auto r = b.run({Value::make_tensor(a), Value::make_tensor(bt)});
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      check_matmul((*r)[0].tensor, a, bt, nullptr, c.batch, c.m, c.k, c.n, false, true, 1, 1, "bmm");
    }
    if (c.batch != 1) continue;
    Tensor a2 = test::random_tensor(ScalarType::kFloat, {c.m, c.k}, rng);
    Tensor b2 = test::random_tensor(ScalarType::kFloat, {c.k, c.n}, rng);
    {
      test::VkGraphBuilder b;
      int ai = b.input(ScalarType::kFloat, {c.m, c.k});
      int bi = b.constant(b2);
      int out = b.tensor(ScalarType::kFloat, {c.m, c.n});
      b.op("aten.mm.default", {ai, bi, out});
      b.output(out);
      auto r = b.run({Value::make_tensor(a2)});
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      check_matmul((*r)[0].tensor, a2, b2, nullptr, 1, c.m, c.k, c.n, false, false, 1, 1, "mm");
    }
    for (const std::vector<int64_t>& self_shape : {std::vector<int64_t>{c.n}, std::vector<int64_t>{c.m, c.n},
                                                   std::vector<int64_t>{c.m, 1}}) {
      Tensor self = test::random_tensor(ScalarType::kFloat, self_shape, rng);
      test::VkGraphBuilder b;
      int si = b.input(ScalarType::kFloat, self_shape);
      int ai = b.input(ScalarType::kFloat, {c.m, c.k});
      int bi = b.input(ScalarType::kFloat, {c.k, c.n});
      int out = b.tensor(ScalarType::kFloat, {c.m, c.n});
      b.op("aten.addmm.default", {si, ai, bi, b.double_value(0.5), b.double_value(2.0), out});
      b.output(out);
      auto r = b.run({Value::make_tensor(self), Value::make_tensor(a2), Value::make_tensor(b2)});
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      check_matmul((*r)[0].tensor, a2, b2, &self, 1, c.m, c.k, c.n, false, false, 2.0, 0.5,
                   "addmm self " + shape_to_string(self_shape));
    }
  }
}

// Shapes on both sides of each kernel choice (register.cpp): N <= 16 -> matmul_direct with
// 64x16 tiles, K <= 64 -> matmul_direct with 32x32 tiles, else matmul_tiled; M, N one past a
// tile edge, for bmm (b batched, [K, N]) and linear (b shared, [N, K]: the transposed read).
TEST(WebGpuMatmulOp, KernelChoiceBoundaries) {
  std::mt19937 rng(17);
  struct C { int64_t batch, m, k, n; };
  const std::vector<C> cases = {
      {2, 65, 300, 16}, {3, 129, 37, 1}, {1, 63, 65, 17}, {2, 33, 64, 33}, {3, 31, 1, 65}, {2, 150, 16, 150},
  };
  for (const C& c : cases) {
    Tensor a = test::random_tensor(ScalarType::kFloat, {c.batch, c.m, c.k}, rng);
    Tensor bt = test::random_tensor(ScalarType::kFloat, {c.batch, c.k, c.n}, rng);
    const std::string dims = "[" + std::to_string(c.batch) + "," + std::to_string(c.m) + "," + std::to_string(c.k) +
                             "] x N=" + std::to_string(c.n);
    {
      test::VkGraphBuilder b;
      int ai = b.input(ScalarType::kFloat, {c.batch, c.m, c.k});
      int bi = b.input(ScalarType::kFloat, {c.batch, c.k, c.n});
      int out = b.tensor(ScalarType::kFloat, {c.batch, c.m, c.n});
      b.op("aten.bmm.default", {ai, bi, out});
      b.output(out);
      auto r = b.run({Value::make_tensor(a), Value::make_tensor(bt)});
      ASSERT_TRUE(r.ok()) << dims << ": " << r.status().to_string();
      check_matmul((*r)[0].tensor, a, bt, nullptr, c.batch, c.m, c.k, c.n, false, true, 1, 1, "bmm " + dims);
    }
    Tensor w = test::random_tensor(ScalarType::kFloat, {c.n, c.k}, rng);
    Tensor bias = test::random_tensor(ScalarType::kFloat, {c.n}, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {c.batch, c.m, c.k});
    int out = b.tensor(ScalarType::kFloat, {c.batch, c.m, c.n});
    b.op("aten.linear.default", {xi, b.constant(w), b.constant(bias), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(a)});
    ASSERT_TRUE(r.ok()) << dims << ": " << r.status().to_string();
    check_matmul((*r)[0].tensor, a, w, &bias, 1, c.batch * c.m, c.k, c.n, true, false, 1, 1, "linear " + dims);
  }
}

TEST(WebGpuMatmulOp, DegenerateDimsGiveEmptyOrBias) {
  std::mt19937 rng(9);
  // M = 0: empty output.
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {4, 8});
    int out = b.tensor(ScalarType::kFloat, {4, 3});
    b.op("aten.linear.default", {xi, b.constant(test::random_tensor(ScalarType::kFloat, {3, 8}, rng)), b.none(), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {0, 8}))});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ((*r)[0].tensor.sizes, (std::vector<int64_t>{0, 3}));
  }
}

TEST(WebGpuMatmulOp, MismatchedKFails) {
  std::mt19937 rng(1);
  test::VkGraphBuilder b;
  int xi = b.input(ScalarType::kFloat, {2, 8});
  int out = b.tensor(ScalarType::kFloat, {2, 3});
  b.op("aten.linear.default", {xi, b.constant(test::random_tensor(ScalarType::kFloat, {3, 9}, rng)), b.none(), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(test::random_tensor(ScalarType::kFloat, {2, 8}, rng))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("disagree on K"), std::string::npos) << r.status().message();
}

TEST(WebGpuMatmulOp, BmmBatchMismatchFails) {
  test::VkGraphBuilder b;
  int ai = b.input(ScalarType::kFloat, {2, 4, 8});
  int bi = b.input(ScalarType::kFloat, {3, 8, 5});
  int out = b.tensor(ScalarType::kFloat, {2, 4, 5});
  b.op("aten.bmm.default", {ai, bi, out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {2, 4, 8})),
                  Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {3, 8, 5}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot be multiplied"), std::string::npos) << r.status().message();
}

// Rough throughput (graph build + upload + run + readback each time; the second run is
// timed so pipelines are cached). Prints GFLOP/s; asserts correctness only.
TEST(WebGpuMatmulOp, ThroughputSmoke) {
  std::mt19937 rng(2);
  const int64_t m = 256, k = 256, n = 256;
  Tensor a = test::random_tensor(ScalarType::kFloat, {m, k}, rng);
  Tensor w = test::random_tensor(ScalarType::kFloat, {n, k}, rng);
  double best = 0;
  for (int rep = 0; rep < 2; ++rep) {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {m, k});
    int out = b.tensor(ScalarType::kFloat, {m, n});
    b.op("aten.linear.default", {xi, b.constant(w), b.none(), out});
    b.output(out);
    auto t0 = std::chrono::steady_clock::now();
    auto r = b.run({Value::make_tensor(a)});
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    best = 2.0 * m * n * k / s / 1e9;
    if (rep == 1) check_matmul((*r)[0].tensor, a, w, nullptr, 1, m, k, n, true, false, 1, 1, "throughput");
  }
  std::printf("[ linear 256x256x256 end-to-end (incl. build/upload/readback): %.2f GFLOP/s ]\n", best);
}

}  // namespace
}  // namespace wick
