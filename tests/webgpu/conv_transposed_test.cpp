// Randomized tests of the transposed convolution kernels (ops/conv: conv2d_transposed_gemm
// for kernel == stride, conv2d_transposed_phase for any other with constant weights,
// conv2d_transposed for depthwise, tiny layers and run-time weights) against the CPU kernel
// (src/kernels/cpu/conv.cpp, through the VK00 CPU executor): odd sizes and edge tiles (M,
// N and K not multiples of the 64 x 64 x 16 tile), strides 1-3 (non-square too), padding,
// output_padding, dilation, groups, a stride past the kernel (phases without taps: bias
// only), bias or none, batch > 1, 1-D convs and the clamp of et_vk.conv_with_clamp.
// Tolerance 1e-4 absolute + 1e-4 relative (float32 sums of at most ~300 products of
// values in [-1, 1], both sides).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "case_table.h"
#include "single_op.h"

namespace wick {
namespace {

// One row of the case table: h == 0 is a ConvTranspose1d (height 1 on the same kernels).
struct ConvTransposedCase {
  const char* name;  // the gtest name (its seed too)
  int64_t n, c, h, w, oc, kh, kw, sh, sw, ph, pw, dil, op, groups;
  bool bias;
  const char* kernel;  // the shader the op must choose
  bool clamp = false;            // as et_vk.conv_with_clamp [-0.5, 0.75]
  bool runtime_weights = false;  // the weight a graph input, not a constant
};

std::string describe(const ConvTransposedCase& k) {
  char s[200];
  std::snprintf(s, sizeof s, "%s: n%lld c%lld %lldx%lld oc%lld k%lldx%lld s%lldx%lld p%lldx%lld d%lld op%lld g%lld%s",
                k.name, (long long)k.n, (long long)k.c, (long long)k.h, (long long)k.w, (long long)k.oc, (long long)k.kh,
                (long long)k.kw, (long long)k.sh, (long long)k.sw, (long long)k.ph, (long long)k.pw, (long long)k.dil,
                (long long)k.op, (long long)k.groups, k.bias ? "" : " no bias");
  return s;
}

int64_t transposed_out_dim(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int64_t op) {
  return (in - 1) * s - 2 * p + d * (k - 1) + op + 1;
}

constexpr const char* kGemm = "conv2d_transposed_gemm";
constexpr const char* kPhase = "conv2d_transposed_phase";
constexpr const char* kDirect = "conv2d_transposed";

const ConvTransposedCase kConvTransposedCases[] = {
    // kernel == stride: conv2d_transposed_gemm.
    // 143 pixels (3 tiles, the last partial), N 148 (an edge column tile), K 19; clamped
    {"GemmEdgeTilesClamped", 1, 19, 13, 11, 37, 2, 2, 2, 2, 0, 0, 1, 0, 1, true, kGemm, true},
    // batch 2 across tile boundaries, kernel 3, no bias
    {"GemmBatch2Kernel3", 2, 12, 7, 9, 6, 3, 3, 3, 3, 0, 0, 1, 0, 1, false, kGemm},
    // kernel 4 (DPT's), N 32: the 32-column tile
    {"GemmKernel4N32", 1, 40, 8, 9, 2, 4, 4, 4, 4, 0, 0, 1, 0, 1, true, kGemm},
    // non-square: kernel 2x1, stride 2x1
    {"GemmNonSquare", 1, 17, 9, 10, 24, 2, 1, 2, 1, 0, 0, 1, 0, 1, true, kGemm},
    // any other with constant weights: conv2d_transposed_phase.
    // decoder upsampler: kernel 3, stride 2, padding 1, output_padding 1; clamped
    {"PhaseDecoderClamped", 1, 21, 9, 11, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, true, kPhase, true},
    // kernel 4 stride 2 padding 1, batch 2, out_c 70 (64-channel tiles with an edge)
    {"PhaseKernel4Batch2", 2, 8, 6, 5, 70, 4, 4, 2, 2, 1, 1, 1, 0, 1, false, kPhase},
    // stride 3, dilation 2, output_padding 2
    {"PhaseStride3Dilation2", 1, 12, 9, 13, 7, 3, 3, 3, 3, 1, 1, 2, 2, 1, true, kPhase},
    // groups 4 (8 input channels per group)
    {"PhaseGroups4", 1, 32, 10, 7, 16, 3, 3, 2, 2, 1, 1, 1, 0, 4, true, kPhase},
    // stride past the kernel (1x1, stride 3): 8 of 9 phases get bias only
    {"PhaseStridePastKernel", 2, 48, 7, 6, 20, 1, 1, 3, 3, 0, 0, 1, 1, 1, true, kPhase},
    // kernel 5x3, stride 2x1, padding 2x1, K 33 x taps
    {"PhaseKernel5x3", 1, 33, 15, 17, 20, 5, 3, 2, 1, 2, 1, 1, 0, 1, true, kPhase},
    // stride 1 (one phase: an ordinary conv)
    {"PhaseStride1", 1, 12, 8, 9, 10, 3, 3, 1, 1, 1, 1, 1, 0, 1, false, kPhase},
    // kernel == stride with padding: not the GEMM's shape
    {"PhaseKernelEqualsStridePadded", 1, 32, 6, 7, 13, 2, 2, 2, 2, 1, 1, 1, 0, 1, true, kPhase},
    // depthwise: one input channel per group stays on the direct kernel
    {"DirectDepthwise", 1, 6, 5, 7, 6, 3, 3, 2, 2, 1, 1, 1, 1, 6, true, kDirect},
    // a tiny layer (7,200 multiply-adds) too
    {"DirectTiny", 1, 8, 5, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, false, kDirect},
    // and weights computed at run time (nothing to repack at build)
    {"DirectRuntimeWeights", 1, 21, 9, 11, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, true, kDirect, false, true},
    // ConvTranspose1d: height 1 on the same kernels
    {"OneDimensionalGemm", 2, 40, 0, 23, 12, 1, 4, 1, 4, 0, 0, 1, 0, 1, true, kGemm},
    {"OneDimensionalPhase", 1, 48, 0, 23, 12, 1, 5, 1, 2, 0, 2, 1, 1, 1, true, kPhase},
};

void PrintTo(const ConvTransposedCase& k, std::ostream* os) { *os << k.name; }

class WebGpuConvTransposed : public ::testing::TestWithParam<ConvTransposedCase> {};

// Runs the row's transposed conv on the GPU delegate and on the CPU executor (the clamp
// applied to the CPU result here) and checks the shader the op chose.
TEST_P(WebGpuConvTransposed, MatchesCpu) {
  const ConvTransposedCase& k = GetParam();
  std::mt19937 rng = test::case_rng(k.name);
  const bool clamp = k.clamp;
  const bool one_d = k.h == 0;
  const int64_t ow = transposed_out_dim(k.w, k.kw, k.sw, k.pw, k.dil, k.op);
  const int64_t oh = one_d ? 0 : transposed_out_dim(k.h, k.kh, k.sh, k.ph, k.dil, k.op);
  const std::vector<int64_t> xs = one_d ? std::vector<int64_t>{k.n, k.c, k.w}
                                        : std::vector<int64_t>{k.n, k.c, k.h, k.w};
  const std::vector<int64_t> ws = one_d ? std::vector<int64_t>{k.c, k.oc / k.groups, k.kw}
                                        : std::vector<int64_t>{k.c, k.oc / k.groups, k.kh, k.kw};
  const std::vector<int64_t> ys = one_d ? std::vector<int64_t>{k.n, k.oc, ow} : std::vector<int64_t>{k.n, k.oc, oh, ow};
  Tensor xt = test::random_tensor(ScalarType::kFloat, xs, rng, -1, 1);
  Tensor wt = test::random_tensor(ScalarType::kFloat, ws, rng, -1, 1);
  Tensor bt = test::random_tensor(ScalarType::kFloat, {k.oc}, rng, -1, 1);
  auto list = [&](int64_t a, int64_t b) { return one_d ? std::vector<int64_t>{b} : std::vector<int64_t>{a, b}; };
  Tensor got, want;
  for (bool cpu : {false, true}) {
    test::VkGraphBuilder b;
    b.cpu = cpu;
    b.profile = !cpu;
    int x = b.input(ScalarType::kFloat, xs);
    int w = k.runtime_weights ? b.input(ScalarType::kFloat, ws) : b.constant(wt);
    int y = b.tensor(ScalarType::kFloat, ys);
    std::vector<int> args = {x, w, k.bias ? b.constant(bt) : b.none(), b.int_list(list(k.sh, k.sw)),
                             b.int_list(list(k.ph, k.pw)), b.int_list(list(k.dil, k.dil)), b.bool_value(true),
                             b.int_list(list(k.op, k.op)), b.int_value(k.groups)};
    if (clamp && !cpu) {
      args.insert(args.end(), {b.double_value(-0.5), b.double_value(0.75), y});
      b.op("et_vk.conv_with_clamp.default", args);
    } else {
      args.push_back(y);
      b.op("aten.convolution.default", args);
    }
    b.output(y);
    std::vector<Value> inputs = {Value::make_tensor(xt)};
    if (k.runtime_weights) inputs.push_back(Value::make_tensor(wt));
    auto r = b.run(inputs);
    ASSERT_TRUE(r.ok()) << describe(k) << (cpu ? " cpu: " : " gpu: ") << r.status().to_string();
    (cpu ? want : got) = (*r)[0].tensor;
    if (!cpu) {
      ASSERT_EQ(b.kernels.size(), 1u) << describe(k);
      EXPECT_EQ(b.kernels[0].substr(b.kernels[0].rfind(' ') + 1), k.kernel) << describe(k);
    }
  }
  ASSERT_EQ(got.sizes, want.sizes) << describe(k);
  for (int64_t i = 0; i < want.numel(); ++i) {
    double v = want.data_as<float>()[i];
    if (clamp) v = std::min(std::max(v, -0.5), 0.75);
    ASSERT_NEAR(got.data_as<float>()[i], v, 1e-4 + 1e-4 * std::fabs(v)) << describe(k) << " at " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(, WebGpuConvTransposed, ::testing::ValuesIn(kConvTransposedCases), test::CaseName());

// A weight whose rows are not the input's channels is refused at graph build with a clear
// error (the repacked kernels would read past it).
TEST(WebGpuConvTransposedBuild, WeightChannelMismatch) {
  std::mt19937 rng(84);
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {1, 16, 5, 5});
  int w = b.constant(test::random_tensor(ScalarType::kFloat, {12, 8, 2, 2}, rng, -1, 1));
  int y = b.tensor(ScalarType::kFloat, {1, 8, 10, 10});
  b.op("aten.convolution.default", {x, w, b.none(), b.int_list({2, 2}), b.int_list({0, 0}), b.int_list({1, 1}),
                                    b.bool_value(true), b.int_list({0, 0}), b.int_value(1), y});
  b.output(y);
  auto r = b.run({Value::make_tensor(test::random_tensor(ScalarType::kFloat, {1, 16, 5, 5}, rng, -1, 1))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().to_string().find("does not match the input's 16 channels"), std::string::npos)
      << r.status().to_string();
}

}  // namespace
}  // namespace wick
