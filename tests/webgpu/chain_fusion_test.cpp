// Elementwise chain fusion (webgpu/chain_fusion.h): graphs of elementwise ops run fused
// (GraphOptions::fuse), unfused, and on the CPU executor of VK00 graphs; the fused run must
// match both (2e-5 absolute + 2e-5 relative: the fused chain rounds nothing the unfused ops
// did not) and dispatch the expected number fewer times.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "case_table.h"
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
  test::expect_outputs_near(got, want, 2e-5, what);
}

// One row of the case table: the graph (its constants drawn from `rng`, seeded alike for each
// of the three builds), its inputs' shapes (random in [-2, 2]), and what fusing it saves.
struct ChainCase {
  const char* name;  // the gtest name (its seed too)
  std::vector<std::vector<int64_t>> inputs;
  std::function<void(test::VkGraphBuilder&, std::mt19937&)> build;
  size_t saved;   // dispatches fewer than unfused
  size_t chains;  // elementwise_chain dispatches
  bool joint = true;  // GraphOptions::joint_memory_plan (false: the separate plans)
};

// A constant of `shape` drawn from rng, in [lo, hi].
int random_constant(test::VkGraphBuilder& b, std::mt19937& rng, std::vector<int64_t> shape, double lo = -2,
                    double hi = 2) {
  return b.constant(test::random_tensor(ScalarType::kFloat, std::move(shape), rng, lo, hi));
}

// A chain passes over ops between its links that touch none of its buffers (here a neg of
// another input, itself the head of a second chain), and not over one that reads a chain
// operand.
void passes_over(test::VkGraphBuilder& b, bool reads_operand) {
  const std::vector<int64_t> shape = {3, 17};
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
}

const ChainCase kChainCases[] = {
    // D-FINE's frozen batch norm + learnable affine after a conv: mul / add by per-channel
    // tensors (add with alpha, the chain value as its second argument), relu, mul by [C, 1, 1]
    // and by a one-element tensor, odd sizes.
    {"PerChannelAffineReluChain", {{1, 5, 7, 9}},
     [](test::VkGraphBuilder& b, std::mt19937& rng) {
       const std::vector<int64_t> shape = {1, 5, 7, 9};
       int xi = b.input(ScalarType::kFloat, shape);
       int t1 = b.tensor(ScalarType::kFloat, shape), t2 = b.tensor(ScalarType::kFloat, shape);
       int t3 = b.tensor(ScalarType::kFloat, shape), t4 = b.tensor(ScalarType::kFloat, shape);
       int out = b.tensor(ScalarType::kFloat, shape);
       b.op("aten.mul.Tensor", {xi, random_constant(b, rng, {1, 5, 1, 1}), t1});
       b.op("aten.add.Tensor", {random_constant(b, rng, {1, 5, 1, 1}), t1, b.double_value(0.5), t2});  // shift + 0.5 * t1
       b.op("aten.relu.default", {t2, t3});
       b.op("aten.mul.Tensor", {t3, random_constant(b, rng, {5, 1, 1}), t4});
       b.op("aten.mul.Tensor", {t4, random_constant(b, rng, {1}, -1, -0.5), out});  // a one-element operand
       b.output(out);
     },
     4, 1},
    // x * sigmoid(x) (the head read twice), a ViT block's layer scale + residual on [1, 37, 19]
    // with gamma [19], then gelu, clamp, division, leaky relu; 9 steps: the chain of 7 ops is
    // cut at 8 steps and sub + leaky_relu run as a second chain.
    {"MixedOpsBroadcastAndStepLimit", {{1, 37, 19}, {1, 37, 19}},
     [](test::VkGraphBuilder& b, std::mt19937& rng) {
       const std::vector<int64_t> shape = {1, 37, 19};
       int xi = b.input(ScalarType::kFloat, shape);
       int ri = b.input(ScalarType::kFloat, shape);
       std::vector<int> t;
       for (int k = 0; k < 8; ++k) t.push_back(b.tensor(ScalarType::kFloat, shape));
       int out = b.tensor(ScalarType::kFloat, shape);
       const int gamma = random_constant(b, rng, {19});
       const Tensor den = test::random_tensor(ScalarType::kFloat, {1, 37, 1}, rng, 0.5, 2);
       b.op("aten.sigmoid.default", {xi, t[0]});
       b.op("aten.mul.Tensor", {xi, t[0], t[1]});                       // x * sigmoid(x)
       b.op("aten.mul.Tensor", {t[1], gamma, t[2]});                    // layer scale
       b.op("aten.add.Tensor", {ri, t[2], b.double_value(1.0), t[3]});  // residual + ...
       b.op("aten.gelu.default", {t[3], b.string_value("tanh"), t[4]});
       b.op("aten.clamp.default", {t[4], b.double_value(-0.3), b.double_value(1.5), t[5]});  // 2 steps
       b.op("aten.div.Tensor", {t[5], b.constant(den), t[6]});
       b.op("aten.sub.Tensor", {b.constant(den), t[6], b.double_value(1.0), t[7]});  // 9th step: its own dispatch
       b.op("aten.leaky_relu.default", {t[7], b.double_value(0.2), out});
       b.output(out);
     },
     7, 2},
    // Not fused, with the separate plans: an output the buffer plan put in an operand's buffer
    // (free once the operand's last unfused reader ran) keeps that chain apart (one dispatch
    // cannot bind a buffer both read-only and writable); a value with a second reader ends a
    // chain. The joint plan (graph_memory.cpp) lays buffers out after the fusion, so there
    // only the shared value stops one.
    {"StopsAtSharedValuesAndBufferConflicts", {{2, 3, 11}},
     [](test::VkGraphBuilder& b, std::mt19937& rng) {
       const std::vector<int64_t> shape = {2, 3, 11};
       int xi = b.input(ScalarType::kFloat, shape, 0);
       int t1 = b.tensor(ScalarType::kFloat, shape, 1);
       int t2 = b.tensor(ScalarType::kFloat, shape, 2);
       int t3 = b.tensor(ScalarType::kFloat, shape, 3);
       int out = b.tensor(ScalarType::kFloat, shape, 4);
       b.op("aten.mul.Tensor", {xi, random_constant(b, rng, {11}), t1});  // x's last reader
       b.op("aten.sigmoid.default", {t1, t2});  // planned into x's buffer: [mul, sigmoid] not fused
       b.op("aten.neg.default", {t2, t3});
       b.op("aten.add.Tensor", {t3, t2, b.double_value(1.0), out});  // t2 read twice: [neg, add] fused
       b.output(out);
     },
     1, 1, /*joint=*/false},
    {"StopsAtSharedValuesJointPlan", {{2, 3, 11}},
     [](test::VkGraphBuilder& b, std::mt19937& rng) {
       const std::vector<int64_t> shape = {2, 3, 11};
       int xi = b.input(ScalarType::kFloat, shape, 0);
       int t1 = b.tensor(ScalarType::kFloat, shape, 1);
       int t2 = b.tensor(ScalarType::kFloat, shape, 2);
       int t3 = b.tensor(ScalarType::kFloat, shape, 3);
       int out = b.tensor(ScalarType::kFloat, shape, 4);
       b.op("aten.mul.Tensor", {xi, random_constant(b, rng, {11}), t1});  // x's last reader
       b.op("aten.sigmoid.default", {t1, t2});  // planned into x's buffer: [mul, sigmoid] not fused
       b.op("aten.neg.default", {t2, t3});
       b.op("aten.add.Tensor", {t3, t2, b.double_value(1.0), out});  // t2 read twice: [neg, add] fused
       b.output(out);
     },
     2, 2},
    // [relu, mul] and [neg, abs] fused, the neg passed over.
    {"PassesOverUnrelatedOps", {{3, 17}, {3, 17}, {17}},
     [](test::VkGraphBuilder& b, std::mt19937&) { passes_over(b, false); }, 2, 2},
    // Nothing fused: the neg reads the mul's operand.
    {"StopsAtAReaderOfAnOperand", {{3, 17}, {3, 17}, {17}},
     [](test::VkGraphBuilder& b, std::mt19937&) { passes_over(b, true); }, 0, 0},
};

void PrintTo(const ChainCase& c, std::ostream* os) { *os << c.name; }

class WebGpuChainFusion : public ::testing::TestWithParam<ChainCase> {};

TEST_P(WebGpuChainFusion, MatchesUnfusedAndCpu) {
  const ChainCase& c = GetParam();
  const std::string name = c.name;
  std::mt19937 rng = test::case_rng(c.name);
  std::vector<Value> inputs;
  for (const auto& shape : c.inputs) inputs.push_back(Value::make_tensor(test::random_tensor(ScalarType::kFloat, shape, rng)));
  const std::mt19937 constants(rng());  // each build draws the same constants
  ChainRuns r = run_three(
      [&](test::VkGraphBuilder& b) {
        std::mt19937 crng = constants;
        c.build(b, crng);
      },
      inputs, c.joint);
  expect_same(r.fused, r.cpu, name + ": fused vs cpu");
  expect_same(r.fused, r.unfused, name + ": fused vs unfused");
  EXPECT_EQ(r.fused_dispatches + c.saved, r.unfused_dispatches) << name;
  EXPECT_EQ(test::count_kernel(r.fused_kernels, "elementwise_chain"), c.chains) << name;
}

INSTANTIATE_TEST_SUITE_P(, WebGpuChainFusion, ::testing::ValuesIn(kChainCases), test::CaseName());

}  // namespace
}  // namespace wick
