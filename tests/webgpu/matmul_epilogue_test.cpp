// Matmul epilogues (webgpu/matmul_fusion.h): the elementwise ops after a linear / mm / bmm /
// addmm applied by the product as it stores its result. Each graph runs with the epilogues
// (GraphOptions::fuse_matmul_epilogue), without them (the other fusions on), and on the CPU
// executor of VK00 graphs. Tolerances: fused vs unfused 2e-5 absolute + 2e-5 relative (the
// same sums, the same epilogue arithmetic in another shader); against the CPU 2e-4 + 2e-4
// (sums in another order over K up to 132). Shapes are odd and cut tiles at the edges; each
// kernel a linear can take on SwiftShader is covered (direct, narrow, tiled, GEMV on the CPU
// kernel choice; vec4, scalar large, tiled, GEMV on the GPU choice; the f16-weight kernels).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iterator>
#include <string>

#include "single_op.h"

namespace wick {
namespace {

struct Runs {
  std::vector<Value> fused, unfused, cpu;
  size_t fused_dispatches = 0, unfused_dispatches = 0, epilogues = 0;
  uint64_t fused_bytes = 0, unfused_bytes = 0;  // planned activation bytes
  std::vector<std::string> fused_kernels;
};

struct Options {
  bool gpu_kernels = false, f16 = false, alias_views = true, unfused = true, cpu = true;
  bool joint_memory_plan = true;  // GraphOptions::joint_memory_plan (false: the separate plans)
  bool specialize = false;        // GraphOptions::specialize_matmul_epilogue (the fused run)
  int splitk = 0;                 // GraphOptions::matmul_splitk (every GPU run)
};

Runs run_modes(const std::function<void(test::VkGraphBuilder&)>& build, const std::vector<Value>& inputs, const Options& o) {
  Runs r;
  for (int mode = 0; mode < 3; ++mode) {
    if ((mode == 1 && !o.unfused) || (mode == 2 && !o.cpu)) continue;
    test::VkGraphBuilder b;
    build(b);
    b.fuse_matmul_epilogue = mode == 0;
    b.cpu = mode == 2;
    b.profile = mode == 0;
    b.gpu_kernels = o.gpu_kernels;
    b.f16_weights = o.f16;
    b.alias_views = o.alias_views;
    b.joint_memory_plan = o.joint_memory_plan;
    b.specialize_matmul_epilogue = o.specialize;
    b.matmul_splitk = o.splitk;
    auto out = b.run(inputs);
    EXPECT_TRUE(out.ok()) << "mode " << mode << ": " << out.status().to_string();
    if (!out.ok()) return r;
    (mode == 0 ? r.fused : mode == 1 ? r.unfused : r.cpu) = *out;
    if (mode == 0) {
      r.fused_dispatches = b.dispatches;
      r.fused_kernels = b.kernels;
      r.epilogues = b.matmul_epilogues;
      r.fused_bytes = b.planned_bytes;
    }
    if (mode == 1) {
      r.unfused_dispatches = b.dispatches;
      r.unfused_bytes = b.planned_bytes;
    }
  }
  return r;
}

void expect_matches(const Runs& r, const std::string& what) {
  if (!r.unfused.empty()) test::expect_outputs_near(r.fused, r.unfused, 2e-5, what + ": fused vs unfused");
  if (!r.cpu.empty()) test::expect_outputs_near(r.fused, r.cpu, 2e-4, what + ": fused vs cpu");
}

// Dispatches of the fused run that are not the product's (views, elementwise ops).
size_t non_matmul_kernels(const std::vector<std::string>& kernels) {
  size_t n = 0;
  for (const std::string& k : kernels) n += k.find("matmul") == std::string::npos;
  return n;
}

// The transformer-block tails after linear(x [M, K]) viewed as [1, M, N].
enum class Tail {
  kGeluErf,            // fc1 -> GELU (DINOv2, Hiera, Whisper)
  kGeluTanhScale,      // GELU (tanh) -> * a one-element constant (Whisper's query scale)
  kLayerScaleResidual, // * gamma [N] -> residual + (DINOv2's proj and fc2)
  kFiveOps,            // + 0.5 residual, - scalar, relu, * gamma: four steps; a GELU after them stays apart
};
// Every tail on a kernel's first case; two on the others (the steps are one function
// shared by every kernel: what differs is how each stores, and those two load every
// operand kind: scalar, per-column tensor, residual).
std::vector<Tail> tails_for(size_t case_index) {
  if (case_index == 0) return {Tail::kGeluErf, Tail::kGeluTanhScale, Tail::kLayerScaleResidual, Tail::kFiveOps};
  return {Tail::kGeluTanhScale, Tail::kFiveOps};
}

struct EpilogueCase {
  int64_t m, n, k;
  bool bias;
};

// Builds the linear and its tail; inputs x [M, K] and r [1, M, N] (unused by some tails).
void build_linear(test::VkGraphBuilder& b, Tail tail, const EpilogueCase& c, const Tensor& w, const Tensor& bias,
                  const Tensor& gamma, const Tensor& scalar) {
  const std::vector<int64_t> flat = {c.m, c.n}, shaped = {1, c.m, c.n};
  int x = b.input(ScalarType::kFloat, {c.m, c.k});
  int r = b.input(ScalarType::kFloat, shaped);
  int y = b.tensor(ScalarType::kFloat, flat);
  b.op("aten.linear.default", {x, b.constant(w), c.bias ? b.constant(bias) : b.none(), y});
  int v = b.tensor(ScalarType::kFloat, shaped);
  b.op("aten.view_copy.default", {y, b.int_list(shaped), v});
  auto t = [&]() { return b.tensor(ScalarType::kFloat, shaped); };
  int out = t();
  switch (tail) {
    case Tail::kGeluErf:
      b.op("aten.gelu.default", {v, b.string_value("none"), out});
      break;
    case Tail::kGeluTanhScale: {
      int g = t();
      b.op("aten.gelu.default", {v, b.string_value("tanh"), g});
      b.op("aten.mul.Tensor", {g, b.constant(scalar), out});
      break;
    }
    case Tail::kLayerScaleResidual: {
      int s = t();
      b.op("aten.mul.Tensor", {v, b.constant(gamma), s});
      b.op("aten.add.Tensor", {r, s, b.int_value(1), out});
      break;
    }
    case Tail::kFiveOps: {
      int t1 = t(), t2 = t(), t3 = t(), t4 = t();
      b.op("aten.add.Tensor", {v, r, b.double_value(0.5), t1});
      b.op("aten.sub.Tensor", {t1, b.constant(scalar), b.int_value(1), t2});
      b.op("aten.relu.default", {t2, t3});
      b.op("aten.mul.Tensor", {b.constant(gamma), t3, t4});
      b.op("aten.gelu.default", {t4, b.none(), out});
      break;
    }
  }
  b.output(out);
}

void check_linear(const EpilogueCase& c, Tail tail, const Options& o, uint32_t seed) {
  std::mt19937 rng(seed);
  Tensor x = test::random_tensor(ScalarType::kFloat, {c.m, c.k}, rng);
  Tensor res = test::random_tensor(ScalarType::kFloat, {1, c.m, c.n}, rng);
  Tensor w = test::random_tensor(ScalarType::kFloat, {c.n, c.k}, rng, -0.3, 0.3);
  Tensor bias = test::random_tensor(ScalarType::kFloat, {c.n}, rng);
  Tensor gamma = test::random_tensor(ScalarType::kFloat, {c.n}, rng);
  Tensor scalar = test::random_tensor(ScalarType::kFloat, {1}, rng, 0.2, 0.9);
  const std::string what = "M " + std::to_string(c.m) + " N " + std::to_string(c.n) + " K " + std::to_string(c.k) +
                           " tail " + std::to_string(static_cast<int>(tail)) + (o.gpu_kernels ? " gpu" : " cpu") +
                           (o.f16 ? " f16" : "");
  Options opts = o;
  opts.cpu = !o.f16;  // the CPU executor has the f32 weights: fused vs unfused decides for f16
  Runs r = run_modes([&](test::VkGraphBuilder& b) { build_linear(b, tail, c, w, bias, gamma, scalar); },
                     {Value::make_tensor(x), Value::make_tensor(res)}, opts);
  expect_matches(r, what);
  EXPECT_EQ(r.epilogues, 1u) << what;
  if (o.splitk > 1) { EXPECT_EQ(test::count_kernel(r.fused_kernels, "matmul_splitk_reduce"), 1u) << what << ": split-K did not run"; }
  // Everything but the GELU after four steps runs in the product's store.
  EXPECT_EQ(non_matmul_kernels(r.fused_kernels), tail == Tail::kFiveOps ? 1u : 0u) << what;
  // Unfused, the chain fusion makes the tail one dispatch: the five-op tail keeps as many.
  if (tail == Tail::kFiveOps) EXPECT_LE(r.fused_dispatches, r.unfused_dispatches) << what;
  else EXPECT_LT(r.fused_dispatches, r.unfused_dispatches) << what;
}

TEST(WebGpuMatmulEpilogue, LinearTailsOnCpuKernelChoice) {
  // direct (K <= 64), narrow (N <= 16), tiled, and the GEMV (M = 1).
  const EpilogueCase cases[] = {{37, 19, 23, true}, {45, 13, 70, false}, {66, 70, 97, true}, {1, 33, 45, true}};
  uint32_t seed = 100;
  for (size_t i = 0; i < std::size(cases); ++i)
    for (Tail tail : tails_for(i)) check_linear(cases[i], tail, Options{}, seed++);
}

TEST(WebGpuMatmulEpilogue, LinearTailsOnGpuKernelChoice) {
  // vec4 (K, N % 4 == 0), scalar large (K >= 128, N odd), tiled (small K, N odd), GEMV.
  const EpilogueCase cases[] = {{37, 20, 132, true}, {70, 19, 131, true}, {33, 21, 33, false}, {1, 36, 40, true}};
  Options o;
  o.gpu_kernels = true;
  uint32_t seed = 200;
  for (size_t i = 0; i < std::size(cases); ++i)
    for (Tail tail : tails_for(i)) check_linear(cases[i], tail, o, seed++);
}

TEST(WebGpuMatmulEpilogue, SplitKTailsMatch) {
  // Split-K (3 ways over the vec4 case's 9 K tiles): the reduce applies bias and every tail,
  // the residual's included, as the unsplit kernel does; then the residual tail with the
  // specialized epilogue (the EPI constant in the reduce's pipeline).
  const EpilogueCase c = {37, 20, 132, true};
  Options o;
  o.gpu_kernels = true;
  o.splitk = 3;
  uint32_t seed = 250;
  for (Tail tail : tails_for(0)) {
    check_linear(c, tail, o, seed++);
    if (HasFatalFailure()) return;
  }
  o.specialize = true;
  check_linear(c, Tail::kLayerScaleResidual, o, seed++);
}

TEST(WebGpuMatmulEpilogue, SpecializedEpiloguesMatch) {
  // The step codes as the EPI pipeline constant, every tail (every step code) on the vec4
  // kernel's case: the steps are one function for all kernels, and each tail compiles a
  // pipeline of its own for every kernel the linear could take (seconds on SwiftShader).
  Options o;
  o.gpu_kernels = true;
  o.specialize = true;
  uint32_t seed = 400;
  for (Tail tail : tails_for(0)) check_linear({37, 20, 132, true}, tail, o, seed++);
}

TEST(WebGpuMatmulEpilogue, LinearTailsWithF16Weights) {
  // matmul_large_vec4_f16w (a partial 64x64 tile) and matmul_gemv_f16w.
  const EpilogueCase cases[] = {{37, 20, 36, true}, {1, 28, 44, false}};
  Options o;
  o.f16 = true;
  uint32_t seed = 300;
  for (size_t i = 0; i < std::size(cases); ++i)
    for (Tail tail : tails_for(i)) check_linear(cases[i], tail, o, seed++);
}

// bmm -> + bias [N] -> GELU (D-FINE's decoder projections) and addmm -> relu, batch 3 and
// M = 1 rows in the batch, on both kernel choices.
TEST(WebGpuMatmulEpilogue, BmmColumnBiasAndAddmmRelu) {
  for (bool gpu : {false, true}) {
    std::mt19937 rng(gpu ? 401 : 400);
    const int64_t batch = 3, m = 29, n = 24, k = 36;
    Tensor a = test::random_tensor(ScalarType::kFloat, {batch, m, k}, rng);
    Tensor bm = test::random_tensor(ScalarType::kFloat, {batch, k, n}, rng, -0.3, 0.3);
    Tensor col = test::random_tensor(ScalarType::kFloat, {n}, rng);
    Options o;
    o.gpu_kernels = gpu;
    Runs r = run_modes(
        [&](test::VkGraphBuilder& b) {
          int ai = b.input(ScalarType::kFloat, {batch, m, k});
          int bi = b.input(ScalarType::kFloat, {batch, k, n});
          int y = b.tensor(ScalarType::kFloat, {batch, m, n});
          int t = b.tensor(ScalarType::kFloat, {batch, m, n});
          int out = b.tensor(ScalarType::kFloat, {batch, m, n});
          b.op("aten.bmm.default", {ai, bi, y});
          b.op("aten.add.Tensor", {y, b.constant(col), b.int_value(1), t});
          b.op("aten.gelu.default", {t, b.string_value("tanh"), out});
          b.output(out);
        },
        {Value::make_tensor(a), Value::make_tensor(bm)}, o);
    expect_matches(r, gpu ? "bmm gpu" : "bmm cpu");
    EXPECT_EQ(r.epilogues, 1u);
    EXPECT_EQ(non_matmul_kernels(r.fused_kernels), 0u);

    Tensor x = test::random_tensor(ScalarType::kFloat, {m, k}, rng);
    Tensor w = test::random_tensor(ScalarType::kFloat, {k, n + 1}, rng, -0.3, 0.3);
    Tensor bias = test::random_tensor(ScalarType::kFloat, {1, n + 1}, rng);
    r = run_modes(
        [&](test::VkGraphBuilder& b) {
          int xi = b.input(ScalarType::kFloat, {m, k});
          int y = b.tensor(ScalarType::kFloat, {m, n + 1});
          int out = b.tensor(ScalarType::kFloat, {m, n + 1});
          b.op("aten.addmm.default", {b.constant(bias), xi, b.constant(w), b.double_value(0.5), b.double_value(1.5), y});
          b.op("aten.relu.default", {y, out});
          b.output(out);
        },
        {Value::make_tensor(x)}, o);
    expect_matches(r, gpu ? "addmm gpu" : "addmm cpu");
    EXPECT_EQ(r.epilogues, 1u);
    EXPECT_EQ(non_matmul_kernels(r.fused_kernels), 0u);
  }
}

// An MLP block whose fused outputs are planned intermediates, not graph outputs: fc1 -> GELU
// feeds fc2, whose result takes the residual add. Under both memory plans (with the joint
// plan the fusion passes see placeholder buffers, which once made every product give up
// its epilogue): two epilogues, two dispatches fewer, the same numbers.
TEST(WebGpuMatmulEpilogue, PlannedIntermediatesUnderBothPlans) {
  std::mt19937 rng(450);
  const int64_t m = 23, c = 20, hidden = 36;
  Tensor x = test::random_tensor(ScalarType::kFloat, {m, c}, rng);
  Tensor w1 = test::random_tensor(ScalarType::kFloat, {hidden, c}, rng, -0.3, 0.3);
  Tensor w2 = test::random_tensor(ScalarType::kFloat, {c, hidden}, rng, -0.3, 0.3);
  for (bool joint : {true, false}) {
    Options o;
    o.joint_memory_plan = joint;
    Runs r = run_modes(
        [&](test::VkGraphBuilder& b) {
          int xi = b.input(ScalarType::kFloat, {m, c});
          // mem_obj_ids, as the exporter gives intermediates: planned values.
          int h = b.tensor(ScalarType::kFloat, {m, hidden}, 0);
          int g = b.tensor(ScalarType::kFloat, {m, hidden}, 1);
          int y = b.tensor(ScalarType::kFloat, {m, c}, 2);
          int out = b.tensor(ScalarType::kFloat, {m, c});
          b.op("aten.linear.default", {xi, b.constant(w1), b.none(), h});
          b.op("aten.gelu.default", {h, b.string_value("none"), g});
          b.op("aten.linear.default", {g, b.constant(w2), b.none(), y});
          b.op("aten.add.Tensor", {y, xi, b.int_value(1), out});
          b.output(out);
        },
        {Value::make_tensor(x)}, o);
    const std::string what = joint ? "joint plan" : "separate plans";
    expect_matches(r, what);
    EXPECT_EQ(r.epilogues, 2u) << what;
    EXPECT_EQ(r.fused_dispatches + 2, r.unfused_dispatches) << what;
  }
}

// Not fused: a product whose result has a second reader (here a graph output too), and a
// view whose result is read twice. A residual read elsewhere as well is fine: it is only an
// operand.
TEST(WebGpuMatmulEpilogue, IntermediateWithOtherReadersIsNotFused) {
  std::mt19937 rng(500);
  const int64_t m = 21, n = 12, k = 17;
  Tensor x = test::random_tensor(ScalarType::kFloat, {m, k}, rng);
  Tensor res = test::random_tensor(ScalarType::kFloat, {1, m, n}, rng);
  Tensor w = test::random_tensor(ScalarType::kFloat, {n, k}, rng, -0.3, 0.3);
  for (int variant = 0; variant < 3; ++variant) {
    Runs r = run_modes(
        [&](test::VkGraphBuilder& b) {
          int xi = b.input(ScalarType::kFloat, {m, k});
          int ri = b.input(ScalarType::kFloat, {1, m, n});
          int y = b.tensor(ScalarType::kFloat, {m, n});
          int v = b.tensor(ScalarType::kFloat, {1, m, n});
          int out = b.tensor(ScalarType::kFloat, {1, m, n});
          int other = b.tensor(ScalarType::kFloat, {1, m, n});
          b.op("aten.linear.default", {xi, b.constant(w), b.none(), y});
          b.op("aten.view_copy.default", {y, b.int_list({1, m, n}), v});
          b.op("aten.add.Tensor", {v, ri, b.int_value(1), out});
          if (variant == 0) b.output(y);                                  // the product's result is an output
          if (variant == 1) b.op("aten.relu.default", {v, other});        // the view is read twice
          if (variant == 2) b.op("aten.relu.default", {ri, other});       // the residual is read twice
          b.output(out);
          if (variant != 0) b.output(other);
        },
        {Value::make_tensor(x), Value::make_tensor(res)}, Options{});
    const std::string what = "variant " + std::to_string(variant);
    expect_matches(r, what);
    EXPECT_EQ(r.epilogues, variant == 2 ? 1u : 0u) << what;
    if (variant != 2) { EXPECT_EQ(r.fused_dispatches, r.unfused_dispatches) << what; }
  }
}

// The exporter's buffer plan (alias_views off: tensors with one mem_obj_id share a buffer):
// an output planned into the product's input buffer (the product would overwrite its own
// input) moves to a fusion slot of its own; an output planned into the residual's buffer is
// written in place (the residual read from the output binding: one buffer cannot be bound
// both read-only and writable), checked against the CPU only (the unfused add cannot run
// in place).
TEST(WebGpuMatmulEpilogue, BufferConflictsAndResidualInPlace) {
  std::mt19937 rng(600);
  const int64_t m = 19, n = 16, k = 20;
  Tensor x = test::random_tensor(ScalarType::kFloat, {m, k}, rng);
  Tensor res = test::random_tensor(ScalarType::kFloat, {m, n}, rng);
  Tensor w = test::random_tensor(ScalarType::kFloat, {n, k}, rng, -0.3, 0.3);
  Tensor bias = test::random_tensor(ScalarType::kFloat, {n}, rng);
  for (bool gpu : {false, true}) {
    for (int variant = 0; variant < 2; ++variant) {
      Options o;
      o.gpu_kernels = gpu;
      o.alias_views = false;
      o.unfused = variant == 0;
      Runs r = run_modes(
          [&](test::VkGraphBuilder& b) {
            int xi = b.input(ScalarType::kFloat, {m, k}, 0);
            int ri = b.tensor(ScalarType::kFloat, {m, n}, 1);
            int y = b.tensor(ScalarType::kFloat, {m, n}, 2);
            int out = b.tensor(ScalarType::kFloat, {m, n}, variant == 0 ? 0 : 1);
            int rin = b.input(ScalarType::kFloat, {m, n}, 3);
            b.op("aten.clone.default", {rin, b.none(), ri});  // the residual, in a planned buffer
            b.op("aten.linear.default", {xi, b.constant(w), b.constant(bias), y});
            b.op("aten.add.Tensor", {ri, y, b.int_value(1), out});
            b.output(out);
          },
          {Value::make_tensor(x), Value::make_tensor(res)}, o);
      const std::string what = std::string(gpu ? "gpu" : "cpu") + " variant " + std::to_string(variant);
      expect_matches(r, what);
      EXPECT_EQ(r.epilogues, 1u) << what;
      if (variant == 0) { EXPECT_EQ(r.fused_bytes, r.unfused_bytes + static_cast<uint64_t>(m * n * 4)) << what; }
    }
  }
}

// The fused output and its residual both become pieces of one cat, which is placed in place
// after the fusion passes (the placement then puts the product's output and the residual in
// one buffer at different offsets). Matches the CPU and the unfused graph under both plans.
// (Under the joint plan the fusion pass cannot see a residual and its output in one group:
// its groups are views only, and neither value is a view of the other.)
TEST(WebGpuMatmulEpilogue, OutputAndResidualInOneCat) {
  std::mt19937 rng(700);
  const int64_t m = 13, n = 12, k = 16;
  Tensor x = test::random_tensor(ScalarType::kFloat, {m, k}, rng);
  Tensor res = test::random_tensor(ScalarType::kFloat, {m, n}, rng);
  Tensor w = test::random_tensor(ScalarType::kFloat, {n, k}, rng, -0.3, 0.3);
  for (bool joint : {true, false}) {
    Options o;
    o.joint_memory_plan = joint;
    Runs r = run_modes(
        [&](test::VkGraphBuilder& b) {
          int xi = b.input(ScalarType::kFloat, {m, k});
          int rin = b.input(ScalarType::kFloat, {m, n});
          int t = b.tensor(ScalarType::kFloat, {m, n}, 0);
          int y = b.tensor(ScalarType::kFloat, {m, n}, 1);
          int out = b.tensor(ScalarType::kFloat, {m, n}, 2);
          int cat = b.tensor(ScalarType::kFloat, {2 * m, n});
          b.op("aten.relu.default", {rin, t});  // the residual, a planned value
          b.op("aten.linear.default", {xi, b.constant(w), b.none(), y});
          b.op("aten.add.Tensor", {y, t, b.int_value(1), out});
          b.op("aten.cat.default", {b.value_list({out, t}), b.int_value(0), cat});
          b.output(cat);
        },
        {Value::make_tensor(x), Value::make_tensor(res)}, o);
    const std::string what = joint ? "joint plan" : "separate plans";
    expect_matches(r, what);
    EXPECT_EQ(r.epilogues, 1u) << what;
  }
}

}  // namespace
}  // namespace wick
