// The shader-f16 path (`enable f16;` arithmetic), which needs an adapter with shader-f16:
// Mesa's lavapipe here, not SwiftShader. These tests (suite ShaderF16*) run only in the
// ctest test wick_gpu_tests_lavapipe (tests/CMakeLists.txt: VK_ICD_FILENAMES names
// lavapipe), and they fail, never skip, on an adapter without shader-f16.
//   - linears with f16 weights (GraphOptions::f16_weights) run matmul_large_vec4_f16math.wgsl
//     (f16 products and sums within a K tile, f32 across tiles) at its 64x64 and 128x64 tiles,
//     with odd sizes, partial tiles, long K, leading dims, bias and none, against the CPU
//     executor on the f32 weights; live M == 1 keeps the f16-weight GEMV;
//   - GraphOptions::f16_arith = false keeps the unpack path (matmul_large_vec4_f16w.wgsl).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "gpu/device.h"
#include "gpu/gpu_test_util.h"
#include "single_op.h"

namespace wick {
namespace {

// The adapter these tests run on: every f16 test below means nothing without it.
TEST(ShaderF16, AdapterHasShaderF16) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  std::string features;
  for (const std::string& f : device->feature_names()) features += " " + f;
  std::printf("[ adapter  ] %s; features:%s\n", device->adapter_info().summary().c_str(), features.c_str());
  ASSERT_TRUE(device->has_feature(gpu::Feature::kShaderF16))
      << device->adapter_info().summary() << " has no shader-f16 (features:" << features
      << "); run these tests on Mesa's lavapipe: VK_ICD_FILENAMES=$WICK_LAVAPIPE_ICD (scripts/env.sh), "
         "or `ctest -R lavapipe`";
}

struct F16LinearCase {
  std::vector<int64_t> lead;
  int64_t k, n;
  bool bias;
  const char* kernel;  // the shader the linear must run
};

// One linear with f16 weights on the WebGPU delegate against the CPU executor on the f32
// weights. Tolerances: the kernel rounds x and w to f16 (2^-11 relative each) and sums BK
// (<= 16) products in f16 before adding them to the f32 total, so an output moves by at most
// about (BK + 3) 2^-11 sum_k |x_k w_k| (checked per element); on random data the errors
// mostly cancel: relative L2 about 5e-4 (bench/kernels/matmul/ v26-v28), checked < 2e-3.
void check_linear(const F16LinearCase& c, bool f16_arith, std::mt19937& rng) {
  std::vector<int64_t> in_shape = c.lead, out_shape = c.lead;
  in_shape.push_back(c.k);
  out_shape.push_back(c.n);
  const Tensor w = test::random_tensor(ScalarType::kFloat, {c.n, c.k}, rng);
  const Tensor bias = test::random_tensor(ScalarType::kFloat, {c.n}, rng);
  const Tensor x = test::random_tensor(ScalarType::kFloat, in_shape, rng);
  auto build = [&](test::VkGraphBuilder& b) {
    int xi = b.input(ScalarType::kFloat, in_shape);
    int bi = c.bias ? b.constant(bias) : b.none();
    int out = b.tensor(ScalarType::kFloat, out_shape);
    b.op("aten.linear.default", {xi, b.constant(w), bi, out});
    b.output(out);
  };
  const std::string what = "linear " + shape_to_string(in_shape) + " x [" + std::to_string(c.n) + "," +
                           std::to_string(c.k) + "]^T" + (c.bias ? " + bias" : "");
  test::VkGraphBuilder gpu;
  gpu.f16_weights = true;
  gpu.f16_arith = f16_arith;
  gpu.profile = true;
  build(gpu);
  auto got = gpu.run({Value::make_tensor(x)});
  ASSERT_TRUE(got.ok()) << what << ": " << got.status().to_string();
  EXPECT_EQ(gpu.f16_weight_count, 1u) << what;
  ASSERT_EQ(gpu.kernels.size(), 1u) << what;
  EXPECT_NE(gpu.kernels[0].find(c.kernel), std::string::npos) << what << ": ran " << gpu.kernels[0];

  test::VkGraphBuilder cpu;
  cpu.cpu = true;
  build(cpu);
  auto want = cpu.run({Value::make_tensor(x)});
  ASSERT_TRUE(want.ok()) << what << ": " << want.status().to_string();
  const Tensor& g = (*got)[0].tensor;
  const Tensor& r = (*want)[0].tensor;
  ASSERT_EQ(g.sizes, r.sizes) << what;
  const int64_t rows = shape_numel(c.lead);
  const float* xs = x.data_as<float>();
  const float* ws = w.data_as<float>();
  double num = 0, den = 0;
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t n = 0; n < c.n; ++n) {
      double mag = 0;  // sum_k |x w|: what the f16 rounding scales with
      for (int64_t k = 0; k < c.k; ++k) mag += std::fabs(double(xs[m * c.k + k]) * ws[n * c.k + k]);
      const int64_t i = m * c.n + n;
      const double have = g.data_as<float>()[i], ref = r.data_as<float>()[i];
      ASSERT_NEAR(have, ref, 19 * 0x1p-11 * mag + 1e-5 * (1 + std::fabs(ref))) << what << " at [" << m << "," << n << "]";
      num += (have - ref) * (have - ref);
      den += ref * ref;
    }
  }
  const double rel = std::sqrt(num / den);
  std::printf("[ f16      ] %s: %s, relative L2 from the f32 path %.1e\n", what.c_str(), gpu.kernels[0].c_str(), rel);
  EXPECT_LT(rel, 2e-3) << what << ": relative L2 distance from the f32-weight result";
  EXPECT_GT(rel, 1e-6) << what << ": f16 rounding should show";
}

TEST(ShaderF16, LinearsWithF16ArithmeticMatchCpu) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  ASSERT_TRUE(device->has_feature(gpu::Feature::kShaderF16)) << "needs shader-f16 (see AdapterHasShaderF16)";
  std::mt19937 rng(51);
  const char* f16math = "matmul_large_vec4_f16math";
  const std::vector<F16LinearCase> cases = {
      {{131}, 68, 132, true, f16math},        // 64x64 tiles (BK 16): partial in M, N and K
      {{2, 3, 45}, 36, 20, false, f16math},   // leading dims, N below one tile
      {{37}, 1028, 12, true, f16math},        // long K: 65 K tiles summed in f32
      // The 128x64 (BK 8) and 128x128 tiles of the same shader are left to the kernel bench,
      // which checks them on edge cases on lavapipe (bench/kernels/matmul: v26, v28): with a
      // cold Mesa cache, as in every CI run, lavapipe's LLVM took 70-130 s to compile the
      // 128x64 one alone (a 1300 x 2600 linear here until 2026-12-07), the suite's longest
      // compile, for a tile that differs from the 64x64 one only in its constants.
      {{1}, 64, 16, true, "matmul_gemv_f16w"},  // M == 1: the f16-weight GEMV (f32 math)
  };
  for (const F16LinearCase& c : cases) {
    check_linear(c, /*f16_arith=*/true, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// GraphOptions::f16_arith off (WICK_F16_ARITH=0): the unpack kernel, f32 math, even here.
TEST(ShaderF16, ArithOffKeepsTheUnpackKernel) {
  std::mt19937 rng(52);
  check_linear({{131}, 68, 132, true, "matmul_large_vec4_f16w"}, /*f16_arith=*/false, rng);
}

}  // namespace
}  // namespace wick
