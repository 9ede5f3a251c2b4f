// The GPU kernel choice of linear / mm / bmm / addmm (matmul_large_vec4.wgsl at 128x128,
// 128x64 and 64x64 tiles, matmul_large.wgsl for unaligned long K, matmul_tiled.wgsl below
// that; see src/webgpu/ops/matmul/register.cpp), forced on whatever adapter runs the tests
// (GraphOptions::kernel_choice = kGpu), against the CPU executor of the same graph
// (src/kernels/cpu). Random shapes with odd M, N, K, partial tiles in every dimension,
// batches, bias broadcasts and transposed (linear) weights. Tolerance: 1e-4 * (1 + sqrt(K))
// absolute plus 1e-4 relative (fp32 accumulation in another order).
// Shapes stay small enough for SwiftShader (64x64 tiles; the graph builds only the kernels
// its shape bounds can reach, since each costs a shader compile); the 128-wide tiles need
// hundreds of tiles, so their test runs on GPU adapters only.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "gpu/device.h"
#include "webgpu/ops/matmul/splitk.h"
#include "linear_case.h"
#include "single_op.h"

namespace wick {
namespace {

using test::LinearCase;
using test::matmul_tol;

// Runs the graph of `build` with the GPU kernel choice and on the CPU executor; compares.
// `splitk`: GraphOptions::matmul_splitk of the GPU run (n >= 2: the 64x64 vec4 kernel split
// n ways over K, then the reduce); `kernels`, if given, gets its dispatches' labels.
template <typename Build>
void expect_gpu_matches_cpu(Build build, const std::vector<Value>& inputs, int64_t k, const std::string& what,
                            int splitk = 0, std::vector<std::string>* kernels = nullptr) {
  test::VkGraphBuilder gpu;
  gpu.gpu_kernels = true;
  gpu.matmul_splitk = splitk;
  gpu.profile = kernels != nullptr;
  build(gpu);
  auto got = gpu.run(inputs);
  ASSERT_TRUE(got.ok()) << what << ": " << got.status().to_string();
  if (kernels) *kernels = gpu.kernels;
  test::VkGraphBuilder cpu;
  cpu.cpu = true;
  build(cpu);
  auto want = cpu.run(inputs);
  ASSERT_TRUE(want.ok()) << what << " (CPU): " << want.status().to_string();
  const Tensor& g = (*got)[0].tensor;
  const Tensor& c = (*want)[0].tensor;
  ASSERT_EQ(g.sizes, c.sizes) << what;
  for (int64_t i = 0; i < c.numel(); ++i) {
    const float w = c.data_as<float>()[i];
    ASSERT_NEAR(g.data_as<float>()[i], w, matmul_tol(k, w)) << what << " at flat index " << i;
  }
}

void check_linear(const LinearCase& c, std::mt19937& rng, int splitk = 0, std::vector<std::string>* kernels = nullptr) {
  std::vector<int64_t> in_shape = c.lead, out_shape = c.lead;
  in_shape.push_back(c.k);
  out_shape.push_back(c.n);
  Tensor w = test::random_tensor(ScalarType::kFloat, {c.n, c.k}, rng);
  Tensor bias = test::random_tensor(ScalarType::kFloat, {c.n}, rng);
  Tensor x = test::random_tensor(ScalarType::kFloat, in_shape, rng);
  expect_gpu_matches_cpu(
      [&](test::VkGraphBuilder& b) {
        int xi = b.input(ScalarType::kFloat, in_shape);
        int bi = c.bias ? b.constant(bias) : b.none();
        int out = b.tensor(ScalarType::kFloat, out_shape);
        b.op("aten.linear.default", {xi, b.constant(w), bi, out});
        b.output(out);
      },
      {Value::make_tensor(x)}, c.k,
      "linear " + shape_to_string(in_shape) + " x [" + std::to_string(c.n) + "," + std::to_string(c.k) + "]^T" +
          (c.bias ? " + bias" : "") + (splitk > 1 ? " split-K " + std::to_string(splitk) : ""),
      splitk, kernels);
}

void check_bmm(int64_t batch, int64_t m, int64_t k, int64_t n, std::mt19937& rng, int splitk = 0,
               std::vector<std::string>* kernels = nullptr) {
  Tensor a = test::random_tensor(ScalarType::kFloat, {batch, m, k}, rng);
  Tensor bt = test::random_tensor(ScalarType::kFloat, {batch, k, n}, rng);
  expect_gpu_matches_cpu(
      [&](test::VkGraphBuilder& b) {
        int ai = b.input(ScalarType::kFloat, {batch, m, k});
        int bi = b.input(ScalarType::kFloat, {batch, k, n});
        int out = b.tensor(ScalarType::kFloat, {batch, m, n});
        b.op("aten.bmm.default", {ai, bi, out});
        b.output(out);
      },
      {Value::make_tensor(a), Value::make_tensor(bt)}, k,
      "bmm [" + std::to_string(batch) + "," + std::to_string(m) + "," + std::to_string(k) + "] x N=" + std::to_string(n) +
          (splitk > 1 ? " split-K " + std::to_string(splitk) : ""),
      splitk, kernels);
}

// Linear weights ([N, K], the transposed read), with and without bias: K % 4 == 0 and
// N % 4 == 0 take the vec4 kernel (64x64 tiles at these sizes), the rest matmul_large.wgsl
// (K >= 128) or matmul_tiled.wgsl.
TEST(WebGpuMatmulLarge, LinearRandomShapesMatchCpu) {
  std::mt19937 rng(23);
  const std::vector<LinearCase> cases = {
      {{131}, 68, 132, true},     // vec4: partial tiles in M, N and K
      {{2, 3, 45}, 36, 20, false},  // vec4: leading dims, N below one tile
      {{5}, 4, 8, true},          // vec4: one K step, tiny
      {{70}, 129, 45, true},      // scalar large kernel: K, N unaligned
      {{66}, 256, 63, false},     // scalar large kernel: N unaligned
      {{33}, 37, 65, true},       // matmul_tiled: short unaligned K
  };
  for (const LinearCase& c : cases) {
    check_linear(c, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// bmm (b batched, [K, N]) and mm with plain weights, for both large kernels.
TEST(WebGpuMatmulLarge, MmBmmRandomShapesMatchCpu) {
  std::mt19937 rng(29);
  struct C { int64_t batch, m, k, n; };
  for (const C& c : std::vector<C>{{3, 70, 52, 100}, {1, 65, 132, 68}, {2, 67, 130, 33}, {2, 33, 37, 65}, {4, 9, 16, 12}}) {
    check_bmm(c.batch, c.m, c.k, c.n, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // mm with a constant [K, N] weight.
  Tensor a = test::random_tensor(ScalarType::kFloat, {77, 96}, rng);
  Tensor w = test::random_tensor(ScalarType::kFloat, {96, 76}, rng);
  expect_gpu_matches_cpu(
      [&](test::VkGraphBuilder& b) {
        int ai = b.input(ScalarType::kFloat, {77, 96});
        int out = b.tensor(ScalarType::kFloat, {77, 76});
        b.op("aten.mm.default", {ai, b.constant(w), out});
        b.output(out);
      },
      {Value::make_tensor(a)}, 96, "mm [77,96] x [96,76]");
}

// addmm: beta * self + alpha * (a @ b), self broadcast from [N], [M, N] and [M, 1].
TEST(WebGpuMatmulLarge, AddmmBiasBroadcastsMatchCpu) {
  std::mt19937 rng(31);
  const int64_t m = 66, k = 40, n = 72;
  Tensor a = test::random_tensor(ScalarType::kFloat, {m, k}, rng);
  Tensor bt = test::random_tensor(ScalarType::kFloat, {k, n}, rng);
  for (const std::vector<int64_t>& self_shape : {std::vector<int64_t>{n}, std::vector<int64_t>{m, n},
                                                 std::vector<int64_t>{m, 1}}) {
    Tensor self = test::random_tensor(ScalarType::kFloat, self_shape, rng);
    expect_gpu_matches_cpu(
        [&](test::VkGraphBuilder& b) {
          int si = b.input(ScalarType::kFloat, self_shape);
          int ai = b.input(ScalarType::kFloat, {m, k});
          int bi = b.input(ScalarType::kFloat, {k, n});
          int out = b.tensor(ScalarType::kFloat, {m, n});
          b.op("aten.addmm.default", {si, ai, bi, b.double_value(0.5), b.double_value(2.0), out});
          b.output(out);
        },
        {Value::make_tensor(self), Value::make_tensor(a), Value::make_tensor(bt)}, k,
        "addmm self " + shape_to_string(self_shape));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The live M of a dynamic input picks GEMV (M == 1) or the vec4 kernel.
TEST(WebGpuMatmulLarge, DynamicMPicksKernelByLiveShape) {
  std::mt19937 rng(37);
  Tensor w = test::random_tensor(ScalarType::kFloat, {100, 64}, rng);
  Tensor bias = test::random_tensor(ScalarType::kFloat, {100}, rng);
  for (int64_t m : {1, 7, 150}) {
    Tensor x = test::random_tensor(ScalarType::kFloat, {m, 64}, rng);
    expect_gpu_matches_cpu(
        [&](test::VkGraphBuilder& b) {
          int xi = b.input(ScalarType::kFloat, {150, 64});
          int out = b.tensor(ScalarType::kFloat, {150, 100});
          b.op("aten.linear.default", {xi, b.constant(w), b.constant(bias), out});
          b.output(out);
        },
        {Value::make_tensor(x)}, 64, "dynamic M=" + std::to_string(m));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Split-K of the 64x64 vec4 kernel (forced: GraphOptions::matmul_splitk = n), against the
// CPU: K tiles (BK 16) that do not divide among the splits, a split with no K tile at all
// (it stores zeros), partial M and N tiles, bias, batches, and addmm's alpha, beta and
// [M, 1] bias through the reduce. Each case must have run the reduce.
TEST(WebGpuMatmulLarge, SplitKMatchesCpu) {
  std::mt19937 rng(43);
  struct L { LinearCase c; int splits; };
  const std::vector<L> linears = {
      {{{131}, 68, 132, true}, 3},    // 5 K tiles: 2 + 2 + 1
      {{{2, 3, 45}, 36, 20, false}, 4},  // 3 K tiles over 4 splits: the last has none
      {{{70}, 256, 64, true}, 2},      // 16 K tiles: 8 + 8
  };
  for (const L& l : linears) {
    std::vector<std::string> kernels;
    check_linear(l.c, rng, l.splits, &kernels);
    if (HasFatalFailure()) return;
    EXPECT_EQ(test::count_kernel(kernels, "matmul_splitk_reduce"), 1u) << "linear K " << l.c.k;
  }
  std::vector<std::string> kernels;
  check_bmm(3, 70, 52, 100, rng, 3, &kernels);  // 4 K tiles: 2 + 2 + 0, three batches
  if (HasFatalFailure()) return;
  EXPECT_EQ(test::count_kernel(kernels, "matmul_splitk_reduce"), 1u) << "bmm";
  const int64_t m = 66, k = 80, n = 72;
  Tensor a = test::random_tensor(ScalarType::kFloat, {m, k}, rng);
  Tensor bt = test::random_tensor(ScalarType::kFloat, {k, n}, rng);
  Tensor self = test::random_tensor(ScalarType::kFloat, {m, 1}, rng);
  expect_gpu_matches_cpu(
      [&](test::VkGraphBuilder& b) {
        int si = b.input(ScalarType::kFloat, {m, 1});
        int ai = b.input(ScalarType::kFloat, {m, k});
        int bi = b.input(ScalarType::kFloat, {k, n});
        int out = b.tensor(ScalarType::kFloat, {m, n});
        b.op("aten.addmm.default", {si, ai, bi, b.double_value(0.5), b.double_value(2.0), out});
        b.output(out);
      },
      {Value::make_tensor(self), Value::make_tensor(a), Value::make_tensor(bt)}, k, "addmm split-K 2", 2, &kernels);
  if (HasFatalFailure()) return;
  EXPECT_EQ(test::count_kernel(kernels, "matmul_splitk_reduce"), 1u) << "addmm";
}

// The automatic split-K rule (GraphOptions::matmul_splitk = -1) on the real models' 64x64
// grids: split where the grid is under 256 workgroups and K long enough, never on a CPU
// adapter; 0 never splits, n >= 2 always n.
TEST(WebGpuMatmulLarge, SplitKRuleOnRealShapes) {
  using webgpu::splitk_factor;
  auto tiles = [](uint64_t m, uint64_t n) { return ((m + 63) / 64) * ((n + 63) / 64); };
  EXPECT_EQ(splitk_factor(-1, false, tiles(1500, 512), 512), 2u);   // Whisper base q/k/v/o: 192 tiles
  EXPECT_EQ(splitk_factor(-1, false, tiles(1500, 512), 2048), 2u);  // Whisper base fc2
  EXPECT_EQ(splitk_factor(-1, false, tiles(1370, 384), 384), 2u);   // ViT-S proj: 132 tiles, 24 K steps
  EXPECT_EQ(splitk_factor(-1, false, tiles(1370, 1152), 384), 1u);  // ViT-S qkv: 396 tiles fill
  EXPECT_EQ(splitk_factor(-1, false, tiles(64, 256), 4096), 16u);   // 4 tiles, long K: the cap, 16 steps each
  EXPECT_EQ(splitk_factor(-1, false, tiles(64, 256), 512), 4u);     // 4 tiles, 32 K steps: 4 splits of 8
  EXPECT_EQ(splitk_factor(-1, false, tiles(1500, 512), 128), 1u);   // 8 K steps: too short to split
  EXPECT_EQ(splitk_factor(-1, true, tiles(1500, 512), 512), 1u);    // CPU adapter
  EXPECT_EQ(splitk_factor(0, false, tiles(1500, 512), 512), 1u);
  EXPECT_EQ(splitk_factor(3, true, tiles(4096, 4096), 64), 3u);
}

// The 64x64 tile at BK 8 (8x4 a thread, GraphOptions::matmul_tile_k8) from 384 tiles of
// 64x64, against the CPU: a linear (K-major b, transposed read) whose K ends in half a K
// tile, and a bmm (N-major b) over six batches, both with partial M and N tiles. Each must
// have run that tile (its label).
TEST(WebGpuMatmulLarge, Tile64BK8OnLargeGridsMatchesCpu) {
  std::mt19937 rng(47);
  std::vector<std::string> kernels;
  const std::vector<int64_t> in_shape = {1299, 44}, out_shape = {1299, 1220};  // 21 x 20 tiles, K 5.5 x 8
  Tensor w = test::random_tensor(ScalarType::kFloat, {1220, 44}, rng);
  Tensor bias = test::random_tensor(ScalarType::kFloat, {1220}, rng);
  Tensor x = test::random_tensor(ScalarType::kFloat, in_shape, rng);
  expect_gpu_matches_cpu(
      [&](test::VkGraphBuilder& b) {
        int xi = b.input(ScalarType::kFloat, in_shape);
        int out = b.tensor(ScalarType::kFloat, out_shape);
        b.op("aten.linear.default", {xi, b.constant(w), b.constant(bias), out});
        b.output(out);
      },
      {Value::make_tensor(x)}, 44, "linear [1299,44] x [1220,44]^T", 0, &kernels);
  if (HasFatalFailure()) return;
  EXPECT_EQ(test::count_kernel(kernels, "matmul_large_vec4:64x64x8"), 1u) << "linear";
  check_bmm(6, 321, 60, 708, rng, 0, &kernels);  // 6 x 6 x 12 tiles
  if (HasFatalFailure()) return;
  EXPECT_EQ(test::count_kernel(kernels, "matmul_large_vec4:64x64x8"), 1u) << "bmm";
}

// The 128x128 tile (>= 512 tiles of 128x128) and the 128x64 tile (>= 384 of 128x64) at
// real-model shapes: a Whisper base fc1 linear and 16 heads of attention scores. Minutes on
// SwiftShader, so GPU adapters only unless WICK_TEST_LARGE_TILES=1.
TEST(WebGpuMatmulLarge, LargeTilesOnGpuAdapters) {
  auto dev = gpu::Device::create();
  ASSERT_TRUE(dev.ok()) << dev.status().to_string();
  const char* force = std::getenv("WICK_TEST_LARGE_TILES");
  if ((*dev)->adapter_info().adapter_type == "CPU" && !(force && std::string(force) == "1"))
    GTEST_SKIP() << "CPU adapter: minutes here (WICK_TEST_LARGE_TILES=1 runs it)";
  std::mt19937 rng(41);
  check_linear({{1500}, 512, 2048, true}, rng);  // 12 x 32 tiles of 128x64
  if (HasFatalFailure()) return;
  check_bmm(16, 509, 64, 1020, rng);  // 16 x 4 x 8 tiles of 128x128
}

}  // namespace
}  // namespace wick
