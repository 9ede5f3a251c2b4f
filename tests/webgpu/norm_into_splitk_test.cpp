// A layer norm done by the split-K reduce before it (webgpu/ops/norm/norm_into_splitk.h,
// matmul_splitk_reduce_ln.wgsl): a pre-norm block's linear + residual add, then the next
// layer norm, as Whisper's, DINOv2's and Hiera's exports have it. Each graph runs with the
// fusion, without it (GraphOptions::norm_into_splitk = false, same split-K) and on the CPU
// executor of VK00 graphs; the sum (the residual stream) and the normalized rows are both
// outputs. Tolerances: fused vs unfused 1e-5 + 1e-5 relative (the same sums; the row
// statistics summed in another order); against the CPU 3e-4 + 3e-4 (sums over K up to 132
// in another order, then divided by a row's deviation).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "single_op.h"

namespace wick {
namespace {

struct NormSplitKCase {
  int64_t m, n, k;
  bool affine;          // the norm's weight and bias (else neither)
  bool stats_read;      // mean and rstd are graph outputs too: no fusion
  bool shared = false;  // the residual is an intermediate whose memory the norm's output reuses
};

struct Outcome {
  std::vector<Value> out;
  std::vector<std::string> kernels;
  size_t dispatches = 0;
};

Outcome run_graph(const NormSplitKCase& c, const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& r, const Tensor& gamma,
        const Tensor& beta, int mode) {
  test::VkGraphBuilder b;
  int xi = b.input(ScalarType::kFloat, {1, c.m, c.k});
  int ri = b.input(ScalarType::kFloat, {1, c.m, c.n});
  int y = b.tensor(ScalarType::kFloat, {1, c.m, c.n});
  int sum = b.tensor(ScalarType::kFloat, {1, c.m, c.n});
  // shared: the residual is relu(the input) in memory object 7, which the norm's output takes
  // over once the sum has read it (as an exporter's memory plan does).
  int out = b.tensor(ScalarType::kFloat, {1, c.m, c.n}, c.shared ? 7 : -1);
  if (c.shared) {
    const int relu = b.tensor(ScalarType::kFloat, {1, c.m, c.n}, 7);
    b.op("aten.relu.default", {ri, relu});
    ri = relu;
  }
  int mean = b.tensor(ScalarType::kFloat, {1, c.m, 1});
  int rstd = b.tensor(ScalarType::kFloat, {1, c.m, 1});
  b.op("aten.linear.default", {xi, b.constant(w), b.constant(bias), y});
  b.op("aten.add.Tensor", {y, ri, b.int_value(1), sum});
  b.op("aten.native_layer_norm.default", {sum, b.int_list({c.n}), c.affine ? b.constant(gamma) : b.none(),
                                          c.affine ? b.constant(beta) : b.none(), b.double_value(1e-5),
                                          b.value_list({out, mean, rstd})});
  b.output(sum);
  b.output(out);
  if (c.stats_read) {
    b.output(mean);
    b.output(rstd);
  }
  b.cpu = mode == 2;
  b.gpu_kernels = true;
  b.matmul_splitk = 2;
  b.norm_into_splitk = mode == 0;
  b.profile = mode != 2;
  auto o = b.run({Value::make_tensor(x), Value::make_tensor(r)});
  EXPECT_TRUE(o.ok()) << "mode " << mode << ": " << o.status().to_string();
  Outcome res;
  if (o.ok()) res.out = *o;
  res.kernels = b.kernels;
  res.dispatches = b.dispatches;
  return res;
}

TEST(WebGpuNormIntoSplitK, MatchesUnfusedAndCpu) {
  // Rows of 512 (one vec4 a thread, Whisper base's width), 68 (17 vec4s on 32 threads, no
  // weight or bias, the norm's output in the residual's memory: the kernel's RES_IN_LN), 1040
  // (260 vec4s: two a thread on 256), odd row counts that cut the 64-row tiles; the last
  // case reads the statistics, so the plain norm must run.
  const NormSplitKCase cases[] = {{37, 512, 132, true, false}, {65, 68, 36, false, false, true}, {9, 1040, 64, true, false},
                        {21, 64, 36, true, true}};
  std::mt19937 rng(4100);
  for (const NormSplitKCase& c : cases) {
    const std::string what = "m " + std::to_string(c.m) + " n " + std::to_string(c.n) + " k " + std::to_string(c.k);
    Tensor x = test::random_tensor(ScalarType::kFloat, {1, c.m, c.k}, rng);
    Tensor w = test::random_tensor(ScalarType::kFloat, {c.n, c.k}, rng, -0.3, 0.3);
    Tensor bias = test::random_tensor(ScalarType::kFloat, {c.n}, rng);
    // The residual stream's rows sit away from zero, as a transformer's do: the mean matters.
    Tensor r = test::random_tensor(ScalarType::kFloat, {1, c.m, c.n}, rng, 2, 6);
    Tensor gamma = test::random_tensor(ScalarType::kFloat, {c.n}, rng, 0.5, 1.5);
    Tensor beta = test::random_tensor(ScalarType::kFloat, {c.n}, rng);
    Outcome fused = run_graph(c, x, w, bias, r, gamma, beta, 0);
    Outcome plain = run_graph(c, x, w, bias, r, gamma, beta, 1);
    Outcome cpu = run_graph(c, x, w, bias, r, gamma, beta, 2);
    if (HasFailure()) return;
    const size_t in_reduce = test::count_kernel(fused.kernels, "matmul_splitk_reduce_ln");
    EXPECT_EQ(test::count_kernel(plain.kernels, "matmul_splitk_reduce_ln"), 0u) << what;
    EXPECT_EQ(test::count_kernel(plain.kernels, "matmul_splitk_reduce"), 1u) << what;
    if (c.stats_read) {
      EXPECT_EQ(in_reduce, 0u) << what << ": the statistics are read, the plain norm must write them";
      EXPECT_EQ(fused.kernels.size(), plain.kernels.size()) << what;
    } else {
      EXPECT_EQ(in_reduce, 1u) << what;
      EXPECT_EQ(test::count_kernel(fused.kernels, "matmul_splitk_reduce"), 0u) << what;
      EXPECT_EQ(fused.kernels.size() + 1, plain.kernels.size()) << what << ": one dispatch fewer";
    }
    test::expect_outputs_near(fused.out, plain.out, 1e-5, what + " fused vs unfused");
    test::expect_outputs_near(fused.out, cpu.out, 3e-4, what + " fused vs cpu");
    if (HasFatalFailure()) return;
  }
}

TEST(WebGpuNormIntoSplitK, NotWithoutASplit) {
  // Without split-K there is no reduce to take over: the product and the plain norm run.
  const NormSplitKCase c = {37, 512, 132, true, false};
  std::mt19937 rng(4200);
  Tensor x = test::random_tensor(ScalarType::kFloat, {1, c.m, c.k}, rng);
  Tensor w = test::random_tensor(ScalarType::kFloat, {c.n, c.k}, rng, -0.3, 0.3);
  Tensor bias = test::random_tensor(ScalarType::kFloat, {c.n}, rng);
  Tensor r = test::random_tensor(ScalarType::kFloat, {1, c.m, c.n}, rng);
  Tensor gamma = test::random_tensor(ScalarType::kFloat, {c.n}, rng);
  Tensor beta = test::random_tensor(ScalarType::kFloat, {c.n}, rng);
  test::VkGraphBuilder b;
  int xi = b.input(ScalarType::kFloat, {1, c.m, c.k});
  int y = b.tensor(ScalarType::kFloat, {1, c.m, c.n});
  int out = b.tensor(ScalarType::kFloat, {1, c.m, c.n});
  int mean = b.tensor(ScalarType::kFloat, {1, c.m, 1});
  int rstd = b.tensor(ScalarType::kFloat, {1, c.m, 1});
  b.op("aten.linear.default", {xi, b.constant(w), b.constant(bias), y});
  b.op("aten.native_layer_norm.default",
       {y, b.int_list({c.n}), b.constant(gamma), b.constant(beta), b.double_value(1e-5), b.value_list({out, mean, rstd})});
  b.output(out);
  b.gpu_kernels = true;
  b.profile = true;
  auto o = b.run({Value::make_tensor(x)});
  ASSERT_TRUE(o.ok()) << o.status().to_string();
  EXPECT_EQ(test::count_kernel(b.kernels, "matmul_splitk_reduce_ln"), 0u);
  EXPECT_EQ(test::count_kernel(b.kernels, "matmul_splitk_reduce"), 0u);
}

}  // namespace
}  // namespace wick
