// Elementwise chain fusion (webgpu/chain_fusion.h): graphs of elementwise ops run fused
// (GraphOptions::fuse), unfused, and on the CPU executor of VK00 graphs; the fused run must
// match both (2e-5 absolute + 2e-5 relative: the fused chain rounds nothing the unfused ops
// did not) and dispatch the expected number fewer times.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "single_op.h"

namespace wick {
namespace {

struct ChainRuns {
  std::vector<Value> fused, unfused, cpu;
  size_t fused_dispatches = 0, unfused_dispatches = 0;
  std::vector<std::string> fused_kernels;
};

// Builds the graph three times with `build` and runs it with `inputs`.
// `joint`: GraphOptions::joint_memory_plan for the fused run.
ChainRuns run_three(const std::function<void(test::VkGraphBuilder&)>& build, const std::vector<Value>& inputs,
                    bool joint = true) {
  ChainRuns r;
  for (int mode = 0; mode < 3; ++mode) {
    test::VkGraphBuilder b;
    build(b);
    b.fuse = mode == 0;
    b.joint_memory_plan = joint;
    b.cpu = mode == 2;
    b.profile = mode == 0;
    auto out = b.run(inputs);
    EXPECT_TRUE(out.ok()) << "mode " << mode << ": " << out.status().to_string();
    if (!out.ok()) return r;
    (mode == 0 ? r.fused : mode == 1 ? r.unfused : r.cpu) = *out;
    if (mode == 0) {
      r.fused_dispatches = b.dispatches;
      r.fused_kernels = b.kernels;
    }
    if (mode == 1) r.unfused_dispatches = b.dispatches;
  }
  return r;
}

void expect_same(const std::vector<Value>& got, const std::vector<Value>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t o = 0; o < got.size(); ++o) {
    const Tensor& g = got[o].tensor;
    const Tensor& w = want[o].tensor;
    ASSERT_EQ(g.sizes, w.sizes) << what << " output " << o;
    for (int64_t i = 0; i < g.numel(); ++i) {
      const float a = g.data_as<float>()[i], b = w.data_as<float>()[i];
      ASSERT_NEAR(a, b, 2e-5 + 2e-5 * std::fabs(b)) << what << " output " << o << " at " << i;
    }
  }
}

size_t count_kernel(const std::vector<std::string>& kernels, const std::string& shader) {
  size_t n = 0;
  for (const std::string& k : kernels) n += k.size() >= shader.size() && k.compare(k.size() - shader.size(), shader.size(), shader) == 0;
  return n;
}

// D-FINE's frozen batch norm + learnable affine after a conv: mul / add by per-channel
// tensors (add with alpha, the chain value as its second argument), relu, mul by [C, 1, 1]
// and by a one-element tensor, odd sizes.
TEST(WebGpuChainFusion, PerChannelAffineReluChain) {
  std::mt19937 rng(31);
  const std::vector<int64_t> shape = {1, 5, 7, 9};
  Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
  Tensor scale = test::random_tensor(ScalarType::kFloat, {1, 5, 1, 1}, rng);
  Tensor shift = test::random_tensor(ScalarType::kFloat, {1, 5, 1, 1}, rng);
  Tensor s2 = test::random_tensor(ScalarType::kFloat, {5, 1, 1}, rng);
  Tensor neg = test::random_tensor(ScalarType::kFloat, {1}, rng, -1, -0.5);
  auto build = [&](test::VkGraphBuilder& b) {
    int xi = b.input(ScalarType::kFloat, shape);
    int t1 = b.tensor(ScalarType::kFloat, shape), t2 = b.tensor(ScalarType::kFloat, shape);
    int t3 = b.tensor(ScalarType::kFloat, shape), t4 = b.tensor(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, shape);
    b.op("aten.mul.Tensor", {xi, b.constant(scale), t1});
    b.op("aten.add.Tensor", {b.constant(shift), t1, b.double_value(0.5), t2});  // shift + 0.5 * t1
    b.op("aten.relu.default", {t2, t3});
    b.op("aten.mul.Tensor", {t3, b.constant(s2), t4});
    b.op("aten.mul.Tensor", {t4, b.constant(neg), out});  // a one-element operand
    b.output(out);
  };
  ChainRuns r = run_three(build, {Value::make_tensor(x)});
  expect_same(r.fused, r.cpu, "fused vs cpu");
  expect_same(r.fused, r.unfused, "fused vs unfused");
  EXPECT_EQ(r.fused_dispatches + 4, r.unfused_dispatches);
  EXPECT_EQ(count_kernel(r.fused_kernels, "elementwise_chain"), 1u);
}

// x * sigmoid(x) (the head read twice), a ViT block's layer scale + residual on [1, 37, 19]
// with gamma [19], then gelu, clamp, division, leaky relu; 9 steps: the chain is cut at 8
// and the rest runs alone.
TEST(WebGpuChainFusion, MixedOpsBroadcastAndStepLimit) {
  std::mt19937 rng(32);
  const std::vector<int64_t> shape = {1, 37, 19};
  Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
  Tensor res = test::random_tensor(ScalarType::kFloat, shape, rng);
  Tensor gamma = test::random_tensor(ScalarType::kFloat, {19}, rng);
  Tensor den = test::random_tensor(ScalarType::kFloat, {1, 37, 1}, rng, 0.5, 2);
  auto build = [&](test::VkGraphBuilder& b) {
    int xi = b.input(ScalarType::kFloat, shape);
    int ri = b.input(ScalarType::kFloat, shape);
    std::vector<int> t;
    for (int k = 0; k < 8; ++k) t.push_back(b.tensor(ScalarType::kFloat, shape));
    int out = b.tensor(ScalarType::kFloat, shape);
    b.op("aten.sigmoid.default", {xi, t[0]});
    b.op("aten.mul.Tensor", {xi, t[0], t[1]});                          // x * sigmoid(x)
    b.op("aten.mul.Tensor", {t[1], b.constant(gamma), t[2]});           // layer scale
    b.op("aten.add.Tensor", {ri, t[2], b.double_value(1.0), t[3]});     // residual + ...
    b.op("aten.gelu.default", {t[3], b.string_value("tanh"), t[4]});
    b.op("aten.clamp.default", {t[4], b.double_value(-0.3), b.double_value(1.5), t[5]});  // 2 steps
    b.op("aten.div.Tensor", {t[5], b.constant(den), t[6]});
    b.op("aten.sub.Tensor", {b.constant(den), t[6], b.double_value(1.0), t[7]});  // 9th step: its own dispatch
    b.op("aten.leaky_relu.default", {t[7], b.double_value(0.2), out});
    b.output(out);
  };
  ChainRuns r = run_three(build, {Value::make_tensor(x), Value::make_tensor(res)});
  expect_same(r.fused, r.cpu, "fused vs cpu");
  expect_same(r.fused, r.unfused, "fused vs unfused");
  // 9 ops: a chain of 7 ops (8 steps), then sub + leaky_relu as a second chain.
  EXPECT_EQ(r.fused_dispatches + 7, r.unfused_dispatches);
  EXPECT_EQ(count_kernel(r.fused_kernels, "elementwise_chain"), 2u);
}

// Not fused: an output the buffer plan put in an operand's buffer (free once the operand's
// last unfused reader ran) keeps that chain apart (one dispatch cannot bind a buffer both
// read-only and writable); a value with a second reader ends a chain.
TEST(WebGpuChainFusion, StopsAtSharedValuesAndBufferConflicts) {
  std::mt19937 rng(33);
  const std::vector<int64_t> shape = {2, 3, 11};
  Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
  Tensor s = test::random_tensor(ScalarType::kFloat, {11}, rng);
  auto build = [&](test::VkGraphBuilder& b) {
    int xi = b.input(ScalarType::kFloat, shape, 0);
    int t1 = b.tensor(ScalarType::kFloat, shape, 1);
    int t2 = b.tensor(ScalarType::kFloat, shape, 2);
    int t3 = b.tensor(ScalarType::kFloat, shape, 3);
    int out = b.tensor(ScalarType::kFloat, shape, 4);
    b.op("aten.mul.Tensor", {xi, b.constant(s), t1});  // x's last reader
    b.op("aten.sigmoid.default", {t1, t2});            // planned into x's buffer: [mul, sigmoid] not fused
    b.op("aten.neg.default", {t2, t3});
    b.op("aten.add.Tensor", {t3, t2, b.double_value(1.0), out});  // t2 read twice: [neg, add] fused
    b.output(out);
  };
  // The separate plans: the unfused order's buffer reuse stops [mul, sigmoid]. The joint plan
  // (graph_memory.cpp) lays buffers out after the fusion, so only the shared value stops one.
  for (bool joint : {false, true}) {
    ChainRuns r = run_three(build, {Value::make_tensor(x)}, joint);
    expect_same(r.fused, r.cpu, "fused vs cpu");
    expect_same(r.fused, r.unfused, "fused vs unfused");
    EXPECT_EQ(r.fused_dispatches + (joint ? 2 : 1), r.unfused_dispatches) << "joint " << joint;
    EXPECT_EQ(count_kernel(r.fused_kernels, "elementwise_chain"), joint ? 2u : 1u) << "joint " << joint;
  }
}

// A chain passes over ops between its links that touch none of its buffers (here a neg of
// another input, itself the head of a second chain), and not over one that reads a chain
// operand.
TEST(WebGpuChainFusion, PassesOverUnrelatedOps) {
  std::mt19937 rng(34);
  const std::vector<int64_t> shape = {3, 17};
  Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
  Tensor y = test::random_tensor(ScalarType::kFloat, shape, rng);
  Tensor s = test::random_tensor(ScalarType::kFloat, {17}, rng);
  for (bool reads_operand : {false, true}) {
    auto build = [&](test::VkGraphBuilder& b) {
      int xi = b.input(ScalarType::kFloat, shape);
      int yi = b.input(ScalarType::kFloat, shape);
      int si = b.input(ScalarType::kFloat, {17});
      int a = b.tensor(ScalarType::kFloat, shape), u = b.tensor(ScalarType::kFloat, reads_operand ? std::vector<int64_t>{17} : shape);
      int out = b.tensor(ScalarType::kFloat, shape), w = b.tensor(ScalarType::kFloat, shape);
      b.op("aten.relu.default", {xi, a});
      b.op("aten.neg.default", {reads_operand ? si : yi, u});  // passed over, or reading the mul's operand
      b.op("aten.mul.Tensor", {a, si, out});
      if (!reads_operand) b.op("aten.abs.default", {u, w});
      b.output(out);
      b.output(reads_operand ? u : w);
    };
    ChainRuns r = run_three(build, {Value::make_tensor(x), Value::make_tensor(y), Value::make_tensor(s)});
    const std::string what = reads_operand ? "reads the operand" : "unrelated";
    expect_same(r.fused, r.cpu, what + ": fused vs cpu");
    expect_same(r.fused, r.unfused, what + ": fused vs unfused");
    // [relu, mul] and [neg, abs]; or nothing fused.
    EXPECT_EQ(r.fused_dispatches + (reads_operand ? 0 : 2), r.unfused_dispatches) << what;
    EXPECT_EQ(count_kernel(r.fused_kernels, "elementwise_chain"), reads_operand ? 0u : 2u) << what;
  }
}

}  // namespace
}  // namespace wick
