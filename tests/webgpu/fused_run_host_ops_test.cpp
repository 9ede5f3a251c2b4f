// The WebGPU ops behind the host operators a fused run takes in for D-FINE and MODNet
// (kHostOps in vkgraph/merge_plans.cpp): aten.topk, aten.max.dim, aten.log and
// aten._native_batch_norm_legit.no_stats. Each VK00 graph runs twice, on the GPU and on the
// CPU executor of VK00 graphs (the same CPU kernels the unfused program calls; those are
// checked against PyTorch in tests/kernels/cpu), and the two must agree: indices exactly,
// values within the stated tolerance. Ties, NaN, zero and negative inputs are included
// where the op defines an answer for them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "require_backend.h"
#include "single_op.h"

namespace wick {
namespace {

// Runs `b` on the GPU and on the CPU executor with the same inputs and compares every
// output: integers exactly, floats within atol + rtol * |cpu|; NaN must meet NaN.
void expect_gpu_matches_cpu(test::VkGraphBuilder& b, const std::vector<Value>& inputs, double atol, double rtol) {
  auto gpu = b.run(inputs);
  ASSERT_TRUE(gpu.ok()) << gpu.status().to_string();
  b.cpu = true;
  auto cpu = b.run(inputs);
  b.cpu = false;
  ASSERT_TRUE(cpu.ok()) << cpu.status().to_string();
  ASSERT_EQ(gpu->size(), cpu->size());
  for (size_t o = 0; o < gpu->size(); ++o) {
    const Tensor &g = (*gpu)[o].tensor, &c = (*cpu)[o].tensor;
    ASSERT_EQ(g.sizes, c.sizes) << "output " << o;
    const bool exact = c.dtype != ScalarType::kFloat;
    for (int64_t i = 0; i < c.numel(); ++i) {
      const double gv = test::at_f(g, i), cv = test::at_f(c, i);
      if (std::isnan(cv)) {
        ASSERT_TRUE(std::isnan(gv)) << "output " << o << " at " << i << ": " << gv;
      } else if (exact || std::isinf(cv)) {
        ASSERT_EQ(gv, cv) << "output " << o << " at " << i;
      } else {
        ASSERT_NEAR(gv, cv, atol + rtol * std::abs(cv)) << "output " << o << " at " << i;
      }
    }
  }
}

std::vector<int64_t> with_dim(std::vector<int64_t> shape, int64_t dim, int64_t size, bool keep = true) {
  const size_t d = static_cast<size_t>(dim < 0 ? dim + static_cast<int64_t>(shape.size()) : dim);
  if (keep) shape[d] = size;
  else shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(d));
  return shape;
}

TEST(FusedRunHostOps, TopkMatchesCpuKernel) {
  test::require_backend();
  struct Case {
    std::vector<int64_t> shape;
    int64_t k, dim;
    bool largest, ties;
  };
  // D-FINE's query selection (k 300 of a long row, shortened here), its box head (top 4 of
  // 33 bins on the last dim), a middle dim, smallest-first, and integer-valued ties (values
  // in -3..3: most of a line ties).
  const std::vector<Case> cases = {{{1, 2100}, 300, 1, true, false},
                                   {{2, 5, 33}, 4, -1, true, false},
                                   {{3, 10, 4}, 5, 1, false, false},
                                   {{4, 40}, 7, -1, true, true},
                                   {{4, 40}, 40, 1, false, true},
                                   // Long lines with ties: each element's count spread over 16
                                   // threads (topk_rank's E = 16), a middle dim with inner 3.
                                   {{1, 3000}, 300, 1, true, true},
                                   {{2, 700, 3}, 50, 1, false, true}};
  std::mt19937 rng(5);
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "shape " << c.shape.size() << "-d, k " << c.k << ", dim " << c.dim);
    Tensor x = test::random_tensor(ScalarType::kFloat, c.shape, rng, -3, 3);
    if (c.ties)
      for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = std::round(x.data_as<float>()[i]);
    x.data_as<float>()[3] = std::numeric_limits<float>::quiet_NaN();  // NaN orders above every number
    test::VkGraphBuilder b;
    const int in = b.input(ScalarType::kFloat, c.shape);
    const std::vector<int64_t> out_shape = with_dim(c.shape, c.dim, c.k);
    const int values = b.tensor(ScalarType::kFloat, out_shape), indices = b.tensor(ScalarType::kLong, out_shape);
    b.op("aten.topk.default", {in, b.int_value(c.k), b.int_value(c.dim), b.bool_value(c.largest), b.bool_value(true),
                               b.value_list({values, indices})});
    b.output(values);
    b.output(indices);
    expect_gpu_matches_cpu(b, {Value::make_tensor(x)}, 0, 0);
  }
}

TEST(FusedRunHostOps, TopkRefusesKAboveTheDim) {
  test::require_backend();
  test::VkGraphBuilder b;
  const int in = b.input(ScalarType::kFloat, {2, 5});
  const int values = b.tensor(ScalarType::kFloat, {2, 6}), indices = b.tensor(ScalarType::kLong, {2, 6});
  b.op("aten.topk.default", {in, b.int_value(6), b.int_value(1), b.bool_value(true), b.bool_value(true),
                             b.value_list({values, indices})});
  b.output(values);
  std::mt19937 rng(1);
  auto got = b.run({Value::make_tensor(test::random_tensor(ScalarType::kFloat, {2, 5}, rng))});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("k 6 out of range"), std::string::npos) << got.status().to_string();
}

TEST(FusedRunHostOps, MaxDimMatchesCpuKernel) {
  test::require_backend();
  std::mt19937 rng(9);
  struct Case {
    std::vector<int64_t> shape;
    int64_t dim;
    bool keepdim;
  };
  // D-FINE: the max over 80 classes of [1, 8400, 80] (here 300 anchors), keepdim false.
  for (const Case& c : std::vector<Case>{{{1, 300, 80}, -1, false}, {{3, 17, 6}, 1, true}, {{5, 9}, 0, false}}) {
    Tensor x = test::random_tensor(ScalarType::kFloat, c.shape, rng, -4, 4);
    // Integer values: ties, where the first index of the maximum is the answer.
    for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = std::round(x.data_as<float>()[i]);
    test::VkGraphBuilder b;
    const int in = b.input(ScalarType::kFloat, c.shape);
    const std::vector<int64_t> out_shape = with_dim(c.shape, c.dim, 1, c.keepdim);
    const int values = b.tensor(ScalarType::kFloat, out_shape), indices = b.tensor(ScalarType::kLong, out_shape);
    b.op("aten.max.dim", {in, b.int_value(c.dim), b.bool_value(c.keepdim), b.value_list({values, indices})});
    b.output(values);
    b.output(indices);
    expect_gpu_matches_cpu(b, {Value::make_tensor(x)}, 0, 0);
  }
}

TEST(FusedRunHostOps, LogMatchesCpuKernel) {
  test::require_backend();
  std::mt19937 rng(2);
  Tensor x = test::random_tensor(ScalarType::kFloat, {3, 257}, rng, 1e-6, 50);
  float* p = x.data_as<float>();
  p[0] = 0.0f;  // -inf
  p[1] = -1.5f;  // NaN
  p[2] = 1.0f;
  p[3] = 1e-30f;
  p[4] = std::numeric_limits<float>::quiet_NaN();
  test::VkGraphBuilder b;
  const int in = b.input(ScalarType::kFloat, {3, 257}), out = b.tensor(ScalarType::kFloat, {3, 257});
  b.op("aten.log.default", {in, out});
  b.output(out);
  expect_gpu_matches_cpu(b, {Value::make_tensor(x)}, 2e-6, 2e-6);
}

TEST(FusedRunHostOps, BatchNormNoStatsMatchesCpuKernel) {
  test::require_backend();
  std::mt19937 rng(4);
  // InstanceNorm2d of a [2, 6, 9, 11] batch, as exported: [1, 12, 9, 11], with and without
  // the affine parameters; the statistics outputs too. An offset mean checks the variance.
  for (bool affine : {true, false}) {
    const std::vector<int64_t> shape{1, 12, 9, 11};
    Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng, 2, 7);
    test::VkGraphBuilder b;
    const int in = b.input(ScalarType::kFloat, shape);
    int w = b.none(), bias = b.none();
    std::vector<Value> inputs{Value::make_tensor(x)};
    if (affine) {
      w = b.input(ScalarType::kFloat, {12});
      bias = b.input(ScalarType::kFloat, {12});
      inputs.push_back(Value::make_tensor(test::random_tensor(ScalarType::kFloat, {12}, rng, 0.5, 1.5)));
      inputs.push_back(Value::make_tensor(test::random_tensor(ScalarType::kFloat, {12}, rng, -1, 1)));
    }
    const int out = b.tensor(ScalarType::kFloat, shape), mean = b.tensor(ScalarType::kFloat, {12}),
              invstd = b.tensor(ScalarType::kFloat, {12});
    b.op("aten._native_batch_norm_legit.no_stats", {in, w, bias, b.bool_value(true), b.double_value(0.1),
                                                     b.double_value(1e-5), b.value_list({out, mean, invstd})});
    b.output(out);
    b.output(mean);
    b.output(invstd);
    expect_gpu_matches_cpu(b, inputs, 1e-5, 1e-4);
  }
}

TEST(FusedRunHostOps, BatchNormNoStatsRefusesABatch) {
  test::require_backend();
  test::VkGraphBuilder b;
  const int in = b.input(ScalarType::kFloat, {2, 3, 4, 4});
  const int out = b.tensor(ScalarType::kFloat, {2, 3, 4, 4}), mean = b.tensor(ScalarType::kFloat, {3}),
            invstd = b.tensor(ScalarType::kFloat, {3});
  b.op("aten._native_batch_norm_legit.no_stats", {in, b.none(), b.none(), b.bool_value(true), b.double_value(0.1),
                                                   b.double_value(1e-5), b.value_list({out, mean, invstd})});
  b.output(out);
  std::mt19937 rng(1);
  auto got = b.run({Value::make_tensor(test::random_tensor(ScalarType::kFloat, {2, 3, 4, 4}, rng))});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("batch 2"), std::string::npos) << got.status().to_string();
}

}  // namespace
}  // namespace wick
