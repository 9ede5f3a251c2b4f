// GraphOptions::f16_weights (`wick run/bench --f16`): linear weights stored as f16 and read
// by matmul_large_vec4_f16w.wgsl (unpack2x16float: core WGSL, so SwiftShader runs it).
//   - pack_f16_pairs against known IEEE halves (round to nearest even, subnormals, overflow)
//     and the word layout unpack2x16float reads;
//   - which constants qualify (f16_weights.h): only [N, K] f32 constants with N, K % 4 == 0
//     used solely as a linear's weight;
//   - linears with f16 weights against the CPU executor given the same weights rounded to
//     f16 (the kernel's own arithmetic: f32 tolerance) and against the f32 weights (the
//     cost of f16 storage: a few 1e-4 relative), at M = 1, partial tiles and leading dims.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "core/dtype.h"
#include "linear_case.h"
#include "single_op.h"
#include "webgpu/backend.h"
#include "webgpu/f16_weights.h"

namespace wick {
namespace {

TEST(WebGpuF16Weights, PackRoundsToNearestEvenLowHalfFirst) {
  // 1 + 2^-11 is halfway between 1 and the next half (1 + 2^-10): ties go to the even 1.0;
  // 1 + 3 * 2^-11 ties up to 1 + 2^-9's neighbour 0x3C02.
  const std::vector<float> v = {1.0f, -2.0f, 1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65504.0f, 70000.0f,
                                0x1p-24f, 0x1p-26f, 0.0f};
  const std::vector<uint16_t> want = {0x3C00, 0xC000, 0x3C00, 0x3C02, 0x7BFF, 0x7C00, 0x0001, 0x0000, 0x0000};
  const std::vector<uint32_t> words = webgpu::pack_f16_pairs(v);
  ASSERT_EQ(words.size(), 5u);  // odd count: the last word's high half is zero
  for (size_t i = 0; i < v.size(); ++i) {
    const uint16_t got = static_cast<uint16_t>(words[i / 2] >> (16 * (i % 2)));
    EXPECT_EQ(got, want[i]) << "value " << i << " (" << v[i] << ")";
  }
  EXPECT_EQ(words[4] >> 16, 0u);
}

// WICK_F16 in the environment turns it on like BackendOptions::f16_weights; "0" or "" does not.
TEST(WebGpuF16Weights, EnvironmentTurnsItOn) {
  const char* old = std::getenv("WICK_F16");
  const std::string saved = old ? old : "";
  webgpu::BackendOptions o;
  unsetenv("WICK_F16");
  EXPECT_FALSE(webgpu::f16_weights_requested(o));
  setenv("WICK_F16", "0", 1);
  EXPECT_FALSE(webgpu::f16_weights_requested(o));
  setenv("WICK_F16", "1", 1);
  EXPECT_TRUE(webgpu::f16_weights_requested(o));
  unsetenv("WICK_F16");
  o.f16_weights = true;
  EXPECT_TRUE(webgpu::f16_weights_requested(o));
  if (old) setenv("WICK_F16", saved.c_str(), 1);
}

Tensor round_to_f16(const Tensor& t) {
  Tensor r = Tensor::make_owned(ScalarType::kFloat, t.sizes);
  for (int64_t i = 0; i < t.numel(); ++i) r.data_as<float>()[i] = half_to_float(float_to_half(t.data_as<float>()[i]));
  return r;
}

using test::LinearCase;

// One linear with f16 weights on the WebGPU delegate, the CPU executor on f16-rounded and
// on the original weights.
void check_f16_weights_linear(const LinearCase& c, std::mt19937& rng) {
  std::vector<int64_t> in_shape = c.lead, out_shape = c.lead;
  in_shape.push_back(c.k);
  out_shape.push_back(c.n);
  const Tensor w = test::random_tensor(ScalarType::kFloat, {c.n, c.k}, rng);
  const Tensor bias = test::random_tensor(ScalarType::kFloat, {c.n}, rng);
  const Tensor x = test::random_tensor(ScalarType::kFloat, in_shape, rng);
  auto build = [&](test::VkGraphBuilder& b, const Tensor& weight) {
    int xi = b.input(ScalarType::kFloat, in_shape);
    int bi = c.bias ? b.constant(bias) : b.none();
    int out = b.tensor(ScalarType::kFloat, out_shape);
    b.op("aten.linear.default", {xi, b.constant(weight), bi, out});
    b.output(out);
  };
  const std::string what = "linear " + shape_to_string(in_shape) + " x [" + std::to_string(c.n) + "," +
                           std::to_string(c.k) + "]^T" + (c.bias ? " + bias" : "");
  test::VkGraphBuilder gpu;
  gpu.f16_weights = true;
  gpu.f16_arith = false;  // the unpack kernel even where the adapter has shader-f16 (lavapipe)
  gpu.profile = true;
  build(gpu, w);
  auto got = gpu.run({Value::make_tensor(x)});
  ASSERT_TRUE(got.ok()) << what << ": " << got.status().to_string();
  EXPECT_EQ(gpu.f16_weight_count, 1u) << what;
  ASSERT_EQ(gpu.kernels.size(), 1u) << what;
  const bool m1 = shape_numel(c.lead) == 1;
  EXPECT_NE(gpu.kernels[0].find(m1 ? "matmul_gemv_f16w" : "matmul_large_vec4_f16w"), std::string::npos)
      << what << ": ran " << gpu.kernels[0];

  test::VkGraphBuilder cpu16, cpu32;
  cpu16.cpu = cpu32.cpu = true;
  build(cpu16, round_to_f16(w));
  build(cpu32, w);
  auto want16 = cpu16.run({Value::make_tensor(x)});
  auto want32 = cpu32.run({Value::make_tensor(x)});
  ASSERT_TRUE(want16.ok() && want32.ok()) << what;
  const Tensor& g = (*got)[0].tensor;
  const Tensor& r16 = (*want16)[0].tensor;
  const Tensor& r32 = (*want32)[0].tensor;
  ASSERT_EQ(g.sizes, r16.sizes) << what;
  double num = 0, den = 0;
  for (int64_t i = 0; i < r16.numel(); ++i) {
    const float want = r16.data_as<float>()[i], have = g.data_as<float>()[i];
    // f32 sums in another order (matmul_large_test.cpp's tolerance).
    ASSERT_NEAR(have, want, 1e-4 * (1 + std::sqrt(double(c.k))) + 1e-4 * std::fabs(want)) << what << " at " << i;
    const double d = double(have) - r32.data_as<float>()[i];
    num += d * d;
    den += double(r32.data_as<float>()[i]) * r32.data_as<float>()[i];
  }
  // Inputs in [-2, 2): f16 keeps 11 significant bits, about 3e-4 relative per weight, and
  // the errors of a sum partly cancel.
  const double rel = std::sqrt(num / den);
  EXPECT_LT(rel, 1e-3) << what << ": relative L2 distance from the f32-weight result";
  EXPECT_GT(rel, 1e-6) << what << ": f16 rounding should show (were the weights converted?)";
}

TEST(WebGpuF16Weights, LinearsMatchCpuOnRoundedWeights) {
  std::mt19937 rng(41);
  const std::vector<LinearCase> cases = {
      {{131}, 68, 132, true},      // partial tiles in M, N and K
      {{2, 3, 45}, 36, 20, false},  // leading dims, N below one tile
      {{1}, 64, 16, true},         // M == 1: the f16 GEMV
      {{1}, 1028, 12, false},      // M == 1: K past one stride of the GEMV (256 threads x 4)
  };
  for (const LinearCase& c : cases) {
    check_f16_weights_linear(c, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Only constants used solely as a linear's weight (directly or through prepack), with N and
// K multiples of 4, go f16; the rest of the graph (the activations, the bias, a weight
// another op also reads) stays f32.
TEST(WebGpuF16Weights, OnlyLinearOnlyAlignedWeightsConvert) {
  std::mt19937 rng(43);
  const Tensor x = test::random_tensor(ScalarType::kFloat, {6, 8}, rng);
  const Tensor w_ok = test::random_tensor(ScalarType::kFloat, {12, 8}, rng);    // f16
  const Tensor w_odd = test::random_tensor(ScalarType::kFloat, {10, 12}, rng);  // N % 4 != 0: f32
  const Tensor w_shared = test::random_tensor(ScalarType::kFloat, {12, 12}, rng);  // also added: f32
  auto build = [&](test::VkGraphBuilder& b) {
    int xi = b.input(ScalarType::kFloat, {6, 8});
    int h = b.tensor(ScalarType::kFloat, {6, 12});
    // Through et_vk.prepack, as the Vulkan partitioner writes some weights: the prepacked
    // value shares the f16 buffer.
    int packed = b.tensor(ScalarType::kFloat, {12, 8});
    b.op("et_vk.prepack.default", {b.constant(w_ok), packed});
    b.op("aten.linear.default", {xi, packed, b.none(), h});
    int ws = b.constant(w_shared);
    int h2 = b.tensor(ScalarType::kFloat, {6, 12});
    b.op("aten.linear.default", {h, ws, b.none(), h2});
    int sq = b.tensor(ScalarType::kFloat, {12, 12});
    b.op("aten.add.Tensor", {ws, ws, b.int_value(1), sq});
    int y = b.tensor(ScalarType::kFloat, {6, 10});
    b.op("aten.linear.default", {h2, b.constant(w_odd), b.none(), y});
    b.output(y);
    b.output(sq);
  };
  test::VkGraphBuilder gpu, cpu;
  gpu.f16_weights = true;
  gpu.f16_arith = false;  // the unpack kernel's tolerance, on any adapter
  cpu.cpu = true;
  build(gpu);
  build(cpu);
  auto got = gpu.run({Value::make_tensor(x)});
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(gpu.f16_weight_count, 1u);
  auto want = cpu.run({Value::make_tensor(x)});
  ASSERT_TRUE(want.ok()) << want.status().to_string();
  // The shared weight's sum is exact in f32: it was not converted.
  const Tensor& sq = (*got)[1].tensor;
  for (int64_t i = 0; i < sq.numel(); ++i) ASSERT_EQ(sq.data_as<float>()[i], (*want)[1].tensor.data_as<float>()[i]);
  const Tensor& y = (*got)[0].tensor;
  for (int64_t i = 0; i < y.numel(); ++i)
    ASSERT_NEAR(y.data_as<float>()[i], (*want)[0].tensor.data_as<float>()[i], 0.05) << i;  // one f16 layer of three
}

}  // namespace
}  // namespace wick
