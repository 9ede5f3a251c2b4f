// GraphOptions::joint_memory_plan (graph_memory.cpp): views and in-place cats in one memory
// plan, laid out after the fusions from the ops that run. Small graphs whose best layout is
// known by hand: the planned bytes must be exactly that (the separate plans of before spend
// more), and the outputs must match the CPU executor of VK00 graphs (vkcpu).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "single_op.h"

namespace wick {
namespace {

using Dims = std::vector<int64_t>;

// Runs `make` with the joint plan, without it, and on the CPU; checks the outputs (the
// conv within fp32 rounding, everything else exact) and returns the planned bytes {joint,
// separate} and the joint graph's dispatches.
struct Planned {
  uint64_t joint = 0, separate = 0;
  size_t dispatches = 0;
  size_t cat_placed = 0;
};
Planned run_three(const std::function<void(test::VkGraphBuilder&)>& make, const Tensor& x) {
  Planned p;
  test::VkGraphBuilder joint, separate, cpu;
  make(joint);
  make(separate);
  make(cpu);
  separate.joint_memory_plan = false;
  cpu.cpu = true;
  const std::vector<Value> in = {Value::make_tensor(x)};
  auto a = joint.run(in);
  auto b = separate.run(in);
  auto c = cpu.run(in);
  EXPECT_TRUE(a.ok() && b.ok() && c.ok());
  if (!a.ok() || !b.ok() || !c.ok()) return p;
  for (size_t j = 0; j < c->size(); ++j) {
    const Tensor &g = (*a)[j].tensor, &s = (*b)[j].tensor, &w = (*c)[j].tensor;
    EXPECT_EQ(g.sizes, w.sizes);
    for (int64_t i = 0; i < w.numel(); ++i) {
      EXPECT_EQ(test::at_f(g, i), test::at_f(s, i)) << "output " << j << " at " << i;
      EXPECT_NEAR(test::at_f(g, i), test::at_f(w, i), 1e-4 + 1e-4 * std::abs(test::at_f(w, i))) << "output " << j << " at " << i;
      if (::testing::Test::HasFailure()) return p;
    }
  }
  p.joint = joint.planned_bytes;
  p.separate = separate.planned_bytes;
  p.dispatches = joint.dispatches;
  p.cat_placed = joint.cat_placed;
  return p;
}

// x (input, 512 B) -> a = relu(x), b = neg(x) -> c = cat(a, b) (1 KiB) -> d = relu(c) (output).
// a and b live in c's buffer; that group is live from a's producer to d's, x until b's, d
// from its producer on: the best is two 1 KiB buffers (x's, grown for d once x is dead, and
// the cat's). The separate plans gave a, b and c buffers of their own and then the cat one
// more on top.
TEST(WebGpuJointPlan, CatInPlaceSharesThePlan) {
  std::mt19937 rng(1);
  auto make = [](test::VkGraphBuilder& g) {
    int x = g.input(ScalarType::kFloat, {1, 2, 8, 8}, 0);
    int a = g.tensor(ScalarType::kFloat, {1, 2, 8, 8}, 1);
    int b = g.tensor(ScalarType::kFloat, {1, 2, 8, 8}, 2);
    int c = g.tensor(ScalarType::kFloat, {1, 4, 8, 8}, 3);
    int d = g.tensor(ScalarType::kFloat, {1, 4, 8, 8}, 4);
    g.op("aten.relu.default", {x, a});
    g.op("aten.neg.default", {x, b});
    g.op("aten.cat.default", {g.value_list({a, b}), g.int_value(1), c});
    g.op("aten.relu.default", {c, d});
    g.output(d);
  };
  const Planned p = run_three(make, test::random_tensor(ScalarType::kFloat, {1, 2, 8, 8}, rng));
  std::printf("cat in place: %llu bytes planned jointly, %llu separately\n", static_cast<unsigned long long>(p.joint),
              static_cast<unsigned long long>(p.separate));
  EXPECT_EQ(p.cat_placed, 2u);
  EXPECT_EQ(p.joint, 2048u);
  EXPECT_GT(p.separate, p.joint);
}

// A conv with a ReLU epilogue: the conv writes the ReLU's output, and its own result is
// never written nor read, so it takes no memory; the output cannot take the input's buffer
// (both are bound by the conv). Best: the two 1 KiB buffers of x and z.
TEST(WebGpuJointPlan, FusedAwayIntermediateGetsNoMemory) {
  std::mt19937 rng(2);
  Tensor w = test::random_tensor(ScalarType::kFloat, {4, 4, 3, 3}, rng, -0.3, 0.3);
  Tensor bias = test::random_tensor(ScalarType::kFloat, {4}, rng, -0.1, 0.1);
  auto make = [&](test::VkGraphBuilder& g) {
    int x = g.input(ScalarType::kFloat, {1, 4, 8, 8}, 0);
    int wi = g.constant(w), bi = g.constant(bias);
    int y = g.tensor(ScalarType::kFloat, {1, 4, 8, 8}, 1);
    int z = g.tensor(ScalarType::kFloat, {1, 4, 8, 8}, 0);  // the exporter's reuse of x's memory
    g.op("aten.convolution.default", {x, wi, bi, g.int_list({1, 1}), g.int_list({1, 1}), g.int_list({1, 1}),
                                      g.bool_value(false), g.int_list({0, 0}), g.int_value(1), y});
    g.op("aten.relu.default", {y, z});
    g.output(z);
  };
  const Planned p = run_three(make, test::random_tensor(ScalarType::kFloat, {1, 4, 8, 8}, rng));
  std::printf("fused conv: %llu bytes planned jointly, %llu separately\n", static_cast<unsigned long long>(p.joint),
              static_cast<unsigned long long>(p.separate));
  EXPECT_EQ(p.joint, 2048u);
  EXPECT_GT(p.separate, p.joint);
}

// relu then neg as one chain: the chain reads x and writes d at the neg, relu's result is
// never written and takes no memory (x's 256 bytes and d's). With the separate plans d took
// x's buffer (x dead after the relu in the unfused order), which stopped the chain.
TEST(WebGpuJointPlan, ChainIntermediateGetsNoMemory) {
  std::mt19937 rng(4);
  auto make = [](test::VkGraphBuilder& g) {
    int x = g.input(ScalarType::kFloat, {1, 64}, 0);
    int a = g.tensor(ScalarType::kFloat, {1, 64}, 1);
    int d = g.tensor(ScalarType::kFloat, {1, 64}, 0);
    g.op("aten.relu.default", {x, a});
    g.op("aten.neg.default", {a, d});
    g.output(d);
  };
  const Planned p = run_three(make, test::random_tensor(ScalarType::kFloat, {1, 64}, rng));
  EXPECT_EQ(p.joint, 512u);
  EXPECT_EQ(p.dispatches, 2u);  // the chain and the readback copy
}

// A cat of two adjacent aligned slices of one tensor is that tensor's range: a view, with
// nothing copied (the slices are views, then the cat is a view of their common input).
TEST(WebGpuJointPlan, CatOfAdjacentSlicesIsAView) {
  std::mt19937 rng(3);
  auto make = [](test::VkGraphBuilder& g) {
    int x = g.input(ScalarType::kFloat, {1, 4, 8, 8}, 0);
    int y = g.tensor(ScalarType::kFloat, {1, 4, 8, 8}, 1);
    int s1 = g.tensor(ScalarType::kFloat, {1, 2, 8, 8}, 2), s2 = g.tensor(ScalarType::kFloat, {1, 1, 8, 8}, 3);
    int c = g.tensor(ScalarType::kFloat, {1, 3, 8, 8}, 4);
    int out = g.tensor(ScalarType::kFloat, {1, 3, 8, 8}, 5);
    g.op("aten.relu.default", {x, y});
    g.op("aten.slice_copy.Tensor", {y, g.int_value(1), g.int_value(1), g.int_value(3), g.int_value(1), s1});
    g.op("aten.slice_copy.Tensor", {y, g.int_value(-3), g.int_value(3), g.int_value(4), g.int_value(1), s2});
    g.op("aten.cat.default", {g.value_list({s1, s2}), g.int_value(1), c});
    g.op("aten.neg.default", {c, out});
    g.output(out);
  };
  const Planned p = run_three(make, test::random_tensor(ScalarType::kFloat, {1, 4, 8, 8}, rng));
  EXPECT_EQ(p.dispatches, 3u);  // relu, neg, the readback copy
  EXPECT_EQ(p.cat_placed, 1u);  // the cat's output in y's buffer
}

}  // namespace
}  // namespace wick
