// Randomized tests of the convolution kernels (conv2d_igemm with and without its split-K
// reduce pass, conv2d_block, conv2d_direct, conv2d_oc4, conv2d_pw with its split-K
// variants; the transposed ones are in conv_transposed_test.cpp) and of the
// graph-build-time fusions into them (webgpu/fusion.cpp: elementwise epilogues, the
// per-channel input scale of pointwise convs, dead scalar copies), against a float64 CPU
// reference. Tolerance: 1e-4 absolute + 1e-4 relative (sums of up to ~600 products of
// values in [-1, 1]).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "case_table.h"
#include "single_op.h"
#include "gpu/device.h"
#include "webgpu/ops/conv/split_waves.h"

namespace wick {
namespace {

double tol(double want) { return 1e-4 + 1e-4 * std::fabs(want); }

struct ConvCase {
  int64_t n, c, h, w, oc, kh, kw, stride, pad, dil, groups;
  bool bias;
};

// y[b, o, i, j] for a grouped, strided, padded, dilated 2-D convolution.
std::vector<double> conv_ref(const ConvCase& k, const Tensor& x, const Tensor& wt, const Tensor* bias, int64_t oh,
                             int64_t ow) {
  std::vector<double> y(static_cast<size_t>(k.n * k.oc * oh * ow), 0.0);
  const int64_t cpg = k.c / k.groups, opg = k.oc / k.groups;
  const float* xp = x.data_as<float>();
  const float* wp = wt.data_as<float>();
  for (int64_t b = 0; b < k.n; ++b)
    for (int64_t o = 0; o < k.oc; ++o)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = bias ? bias->data_as<float>()[o] : 0.0;
          const int64_t g = o / opg;
          for (int64_t c = 0; c < cpg; ++c)
            for (int64_t u = 0; u < k.kh; ++u)
              for (int64_t v = 0; v < k.kw; ++v) {
                const int64_t iy = i * k.stride - k.pad + u * k.dil, ix = j * k.stride - k.pad + v * k.dil;
                if (iy < 0 || iy >= k.h || ix < 0 || ix >= k.w) continue;
                acc += double(xp[((b * k.c + g * cpg + c) * k.h + iy) * k.w + ix]) *
                       double(wp[((o * cpg + c) * k.kh + u) * k.kw + v]);
              }
          y[static_cast<size_t>(((b * k.oc + o) * oh + i) * ow + j)] = acc;
        }
  return y;
}

int64_t out_dim(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) { return (in + 2 * p - d * (k - 1) - 1) / s + 1; }

// A conv's random operands in [-1, 1] (x, weight, bias) and its output size.
struct ConvData {
  Tensor x, w, b;
  int64_t oh, ow;
};

ConvData random_conv(const ConvCase& k, std::mt19937& rng) {
  ConvData d;
  d.x = test::random_tensor(ScalarType::kFloat, {k.n, k.c, k.h, k.w}, rng, -1, 1);
  d.w = test::random_tensor(ScalarType::kFloat, {k.oc, k.c / k.groups, k.kh, k.kw}, rng, -1, 1);
  d.b = test::random_tensor(ScalarType::kFloat, {k.oc}, rng, -1, 1);
  d.oh = out_dim(k.h, k.kh, k.stride, k.pad, k.dil);
  d.ow = out_dim(k.w, k.kw, k.stride, k.pad, k.dil);
  return d;
}

// Adds aten.convolution (or et_vk.conv_with_clamp with [lo, hi]) reading `x`; returns its output id.
int add_conv(test::VkGraphBuilder& b, const ConvCase& k, int x, const Tensor& wt, const Tensor* bias, int64_t oh,
             int64_t ow, const double* clamp_lo = nullptr, const double* clamp_hi = nullptr) {
  int w = b.constant(wt);
  int bi = bias ? b.constant(*bias) : b.none();
  int y = b.tensor(ScalarType::kFloat, {k.n, k.oc, oh, ow});
  std::vector<int> args = {x, w, bi, b.int_list({k.stride, k.stride}), b.int_list({k.pad, k.pad}),
                           b.int_list({k.dil, k.dil}), b.bool_value(false), b.int_list({0, 0}), b.int_value(k.groups)};
  if (clamp_lo || clamp_hi) {
    args.push_back(clamp_lo ? b.double_value(*clamp_lo) : b.none());
    args.push_back(clamp_hi ? b.double_value(*clamp_hi) : b.none());
    args.push_back(y);
    b.op("et_vk.conv_with_clamp.default", args);
  } else {
    args.push_back(y);
    b.op("aten.convolution.default", args);
  }
  return y;
}

void expect_close(const Tensor& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size())) << what;
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got.data_as<float>()[i], want[i], tol(want[i])) << what << " at " << i;
}

std::string describe(const ConvCase& k) {
  return "n" + std::to_string(k.n) + " c" + std::to_string(k.c) + " " + std::to_string(k.h) + "x" +
         std::to_string(k.w) + " oc" + std::to_string(k.oc) + " k" + std::to_string(k.kh) + "x" + std::to_string(k.kw) +
         " s" + std::to_string(k.stride) + " p" + std::to_string(k.pad) + " d" + std::to_string(k.dil) + " g" +
         std::to_string(k.groups);
}

const std::vector<ConvCase> kCases = {
    // pointwise (conv2d_pw): large planes (no split), small planes with many input
    // channels (split-K up to 64), out_c not a multiple of 4, batches
    {1, 16, 56, 56, 72, 1, 1, 1, 0, 1, 1, true},
    {1, 576, 1, 1, 144, 1, 1, 1, 0, 1, 1, true},
    {1, 144, 1, 1, 576, 1, 1, 1, 0, 1, 1, true},
    {1, 576, 7, 7, 96, 1, 1, 1, 0, 1, 1, false},
    {2, 37, 5, 3, 13, 1, 1, 1, 0, 1, 1, true},
    {3, 1000, 1, 1, 7, 1, 1, 1, 0, 1, 1, true},
    {1, 3, 2, 2, 1, 1, 1, 1, 0, 1, 1, false},
    // dense (conv2d_igemm), depthwise and grouped (conv2d_direct)
    {1, 3, 33, 31, 16, 3, 3, 2, 1, 1, 1, true},
    {2, 5, 9, 8, 6, 3, 2, 1, 2, 2, 1, false},
    {1, 24, 14, 14, 24, 5, 5, 2, 2, 1, 24, true},
    {1, 8, 10, 10, 12, 3, 3, 1, 1, 1, 4, true},
    // dense convs on small planes (conv2d_igemm; conv2d_block before it): rows not a
    // multiple of 4, out_c not a multiple of 4, 5x5, non-square kernels, stride 3
    {1, 7, 12, 23, 5, 3, 3, 1, 1, 1, 1, true},
    {1, 4, 13, 18, 9, 5, 5, 1, 2, 1, 1, true},
    {2, 6, 11, 29, 4, 1, 3, 3, 1, 1, 1, false},
};

// Which kernels ran (the shader names at the end of the dispatch labels), for the path checks.
std::string kernel_list(const std::vector<std::string>& labels) {
  std::string out;
  for (const std::string& l : labels) out += (out.empty() ? "" : ", ") + l.substr(l.rfind(' ') + 1);
  return out;
}

void random_shapes(int conv_pw_gemm) {
  std::mt19937 rng(71);
  for (const ConvCase& k : kCases) {
    if (conv_pw_gemm == 1 && (k.kh != 1 || k.kw != 1)) continue;
    const auto [xt, wt, bt, oh, ow] = random_conv(k, rng);
    for (bool with_clamp : {false, true}) {
      if (conv_pw_gemm == 1 && with_clamp && &k != &kCases.front()) continue;  // the clamp once
      test::VkGraphBuilder b;
      b.conv_pw_gemm = conv_pw_gemm;
      b.profile = conv_pw_gemm == 1;
      int x = b.input(ScalarType::kFloat, {k.n, k.c, k.h, k.w});
      const double lo = -0.5, hi = 0.75;
      int y = add_conv(b, k, x, wt, k.bias ? &bt : nullptr, oh, ow, with_clamp ? &lo : nullptr, with_clamp ? &hi : nullptr);
      b.output(y);
      auto r = b.run({Value::make_tensor(xt)});
      ASSERT_TRUE(r.ok()) << describe(k) << ": " << r.status().to_string();
      std::vector<double> want = conv_ref(k, xt, wt, k.bias ? &bt : nullptr, oh, ow);
      if (with_clamp)
        for (double& v : want) v = std::min(std::max(v, lo), hi);
      expect_close((*r)[0].tensor, want, describe(k) + (with_clamp ? " clamped" : ""));
      if (conv_pw_gemm == 1) {
        ASSERT_FALSE(b.kernels.empty());
        EXPECT_NE(b.kernels[0].find("conv2d_pw_gemm"), std::string::npos) << describe(k) << ": " << kernel_list(b.kernels);
      }
    }
  }
}

TEST(WebGpuConvOp, RandomShapes) { random_shapes(-1); }

// The pointwise cases (odd channels, 1x1 planes, batches, clamps) through conv2d_pw_gemm
// whatever their size.
TEST(WebGpuConvOp, RandomShapesPointwiseGemm) { random_shapes(1); }

// The pointwise kernel by shape: conv2d_pw_gemm once the output has enough tiles (each of
// its tiles: 32 x 128 for out_c <= 32, 64 x 64, 128 x 64, 128 x 128), conv2d_pw_gemm_vec4 (64
// x 64) where the input channels and the plane are multiples of 4 and out_c > 32, conv2d_pw
// below; pixels and channels not multiples of the tile, K not a multiple of the K step,
// batches, bias or none.
TEST(WebGpuConvOp, PointwiseGemmTiles) {
  std::mt19937 rng(77);
  struct Case {
    ConvCase k;
    const char* kernel;
  };
  const std::vector<Case> cases = {
      {{1, 19, 43, 49, 13, 1, 1, 1, 0, 1, 1, true}, "conv2d_pw_gemm "},    // 32x128: 17 tiles
      {{2, 37, 31, 29, 70, 1, 1, 1, 0, 1, 1, false}, "conv2d_pw_gemm "},   // 64x64: 60 tiles
      {{66, 3, 5, 13, 129, 1, 1, 1, 0, 1, 1, true}, "conv2d_pw_gemm "},    // 128x64: 264 tiles
      {{67, 2, 3, 43, 130, 1, 1, 1, 0, 1, 1, true}, "conv2d_pw_gemm "},    // 128x128: 268 tiles
      {{2, 36, 30, 30, 70, 1, 1, 1, 0, 1, 1, false}, "conv2d_pw_gemm_vec4 "},  // 60 tiles, K 2.25 x 16
      {{1, 20, 112, 112, 70, 1, 1, 1, 0, 1, 1, true}, "conv2d_pw_gemm_vec4 "},  // 392 tiles, K 1.25 x 16
      {{1, 40, 9, 9, 24, 1, 1, 1, 0, 1, 1, true}, "conv2d_pw "},          // 1 tile
  };
  for (const Case& c : cases) {
    const ConvCase& k = c.k;
    const auto [xt, wt, bt, oh, ow] = random_conv(k, rng);
    test::VkGraphBuilder b;
    b.profile = true;
    int x = b.input(ScalarType::kFloat, {k.n, k.c, k.h, k.w});
    b.output(add_conv(b, k, x, wt, k.bias ? &bt : nullptr, oh, ow));
    auto r = b.run({Value::make_tensor(xt)});
    ASSERT_TRUE(r.ok()) << describe(k) << ": " << r.status().to_string();
    expect_close((*r)[0].tensor, conv_ref(k, xt, wt, k.bias ? &bt : nullptr, oh, ow), describe(k));
    ASSERT_EQ(b.kernels.size(), 1u) << describe(k);
    EXPECT_NE((b.kernels[0] + " ").find(c.kernel), std::string::npos) << describe(k) << ": " << kernel_list(b.kernels);
  }
}

// conv2d_pw_gemm_vec4 recorded for a plane that is a multiple of 4 in a graph whose shapes
// may vary (fixed_shapes off, as the backend rebuilds for a smaller input), then called with
// one that is not: that call runs the scalar kernel recorded beside it, and the next
// full-size call the vec4 one again; each against the float64 reference.
TEST(WebGpuConvOp, PointwiseVec4FallsBackOnSmallerPlanes) {
  std::mt19937 rng(78);
  const ConvCase full = {1, 36, 30, 30, 70, 1, 1, 1, 0, 1, 1, true}, small = {1, 36, 29, 29, 70, 1, 1, 1, 0, 1, 1, true};
  const auto [xt, wt, bt, oh, ow] = random_conv(full, rng);
  const Tensor xs = test::random_tensor(ScalarType::kFloat, {small.n, small.c, small.h, small.w}, rng, -1, 1);
  const Tensor x2 = test::random_tensor(ScalarType::kFloat, {full.n, full.c, full.h, full.w}, rng, -1, 1);
  test::VkGraphBuilder b;
  b.profile = true;
  b.fixed_shapes = false;
  int x = b.input(ScalarType::kFloat, {full.n, full.c, full.h, full.w});
  b.output(add_conv(b, full, x, wt, &bt, oh, ow));
  b.later_calls = {{Value::make_tensor(xs)}, {Value::make_tensor(x2)}};
  auto r = b.run({Value::make_tensor(xt)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  expect_close((*r)[0].tensor, conv_ref(full, xt, wt, &bt, oh, ow), "full plane");
  ASSERT_EQ(b.later_outputs.size(), 2u);
  expect_close(b.later_outputs[0][0].tensor, conv_ref(small, xs, wt, &bt, 29, 29), "29x29 plane (scalar kernel)");
  expect_close(b.later_outputs[1][0].tensor, conv_ref(full, x2, wt, &bt, oh, ow), "full plane again");
  ASSERT_EQ(b.later_kernels.size(), 2u);
  for (const auto& [kernels, want] : {std::pair{b.kernels, "conv2d_pw_gemm_vec4"}, std::pair{b.later_kernels[0], "conv2d_pw_gemm"},
                                      std::pair{b.later_kernels[1], "conv2d_pw_gemm_vec4"}}) {
    ASSERT_EQ(kernels.size(), 1u) << kernel_list(kernels);
    EXPECT_EQ(test::count_kernel(kernels, want), 1u) << want << ": " << kernel_list(kernels);
  }
}

// y + r, then relu, after a conv's output y of `shape` (the graph fusion folds both into the
// pointwise GEMM's store or its reduce); returns the graph's value of the result.
int add_residual_relu(test::VkGraphBuilder& b, int y, int r, const std::vector<int64_t>& shape) {
  int s = b.tensor(ScalarType::kFloat, shape);
  b.op("aten.add.Tensor", {y, r, b.int_value(1), s});
  int z = b.tensor(ScalarType::kFloat, shape);
  b.op("aten.relu.default", {s, z});
  return z;
}

// The reference of add_residual_relu: relu(want + r), the sum rounded to float as the GPU's.
void residual_relu_ref(std::vector<double>& want, const Tensor& r) {
  for (size_t i = 0; i < want.size(); ++i) want[i] = std::max(static_cast<float>(want[i]) + r.data_as<float>()[i], 0.f);
}

// conv2d_pw_gemm split over the input channels (GraphOptions::conv_splitk_fill at a GPU's
// 512, so that these small grids split as D-FINE's 20x20 and 40x40 layers do on one), then
// conv2d_pw_splitk_reduce with the bias, a fused residual add and relu: with vec4 loads
// (channels and plane multiples of 4) and without (250 channels, a 9x11 plane), a batch of
// 2, K tiles left over in the last split; against the float64 reference.
TEST(WebGpuConvOp, PointwiseGemmSplitK) {
  std::mt19937 rng(79);
  struct Case {
    ConvCase k;
    const char* gemm;
  };
  for (const Case& c : {Case{{1, 1000, 12, 20, 70, 1, 1, 1, 0, 1, 1, true}, "conv2d_pw_gemm_vec4"},
                        Case{{2, 250, 9, 11, 40, 1, 1, 1, 0, 1, 1, false}, "conv2d_pw_gemm"}}) {
    const ConvCase& k = c.k;
    const auto [xt, wt, bt, oh, ow] = random_conv(k, rng);
    Tensor rt = test::random_tensor(ScalarType::kFloat, {k.n, k.oc, oh, ow}, rng, -1, 1);
    std::vector<double> want = conv_ref(k, xt, wt, k.bias ? &bt : nullptr, oh, ow);
    residual_relu_ref(want, rt);
    test::VkGraphBuilder b;
    b.profile = true;
    b.conv_pw_gemm = 1;
    b.conv_splitk_fill = 512;
    int x = b.input(ScalarType::kFloat, {k.n, k.c, k.h, k.w});
    int r = b.input(ScalarType::kFloat, {k.n, k.oc, oh, ow});
    b.output(add_residual_relu(b, add_conv(b, k, x, wt, k.bias ? &bt : nullptr, oh, ow), r, {k.n, k.oc, oh, ow}));
    auto res = b.run({Value::make_tensor(xt), Value::make_tensor(rt)});
    ASSERT_TRUE(res.ok()) << describe(k) << ": " << res.status().to_string();
    expect_close((*res)[0].tensor, want, describe(k) + " split-K");
    ASSERT_EQ(b.kernels.size(), 2u) << describe(k) << ": " << kernel_list(b.kernels);
    EXPECT_NE(b.kernels[0].find(std::string(c.gemm) + ":ks"), std::string::npos) << kernel_list(b.kernels);
    EXPECT_EQ(test::count_kernel(b.kernels, "conv2d_pw_splitk_reduce"), 1u) << kernel_list(b.kernels);
  }
}

// The wave model of the split count (ops/conv/split_waves.h): the busiest multiprocessor's K
// steps, and the count that minimizes them where the doubling rule split.
TEST(WebGpuConvOp, SplitWavesModel) {
  using webgpu::split_wave_steps;
  using webgpu::wave_balanced_splits;
  // D-FINE's 40x40 1x1 convs over 1,024 channels on 132 multiprocessors: 4 splits make 400
  // workgroups (4 on the busiest, 16 steps each), 5 make 500 (4 of 13).
  EXPECT_EQ(split_wave_steps(100, 64, 4, 132), 64u);
  EXPECT_EQ(split_wave_steps(100, 64, 5, 132), 52u);
  EXPECT_EQ(wave_balanced_splits(100, 64, 4, 8, 132), 5u);
  EXPECT_EQ(wave_balanced_splits(100, 64, 4, 8, 0), 4u);     // multiprocessors unknown
  EXPECT_EQ(wave_balanced_splits(100, 64, 1, 8, 132), 1u);   // the doubling rule did not split
  // A tie keeps the doubling rule's count: at most 4 allowed, 2 splits (200 workgroups, 2 of
  // 32 steps on the busiest) score as 4 do; 33 tiles of 64 steps score 16 at 4 and at 8.
  EXPECT_EQ(split_wave_steps(100, 64, 2, 132), split_wave_steps(100, 64, 4, 132));
  EXPECT_EQ(wave_balanced_splits(100, 64, 4, 4, 132), 4u);
  EXPECT_EQ(split_wave_steps(33, 64, 4, 132), split_wave_steps(33, 64, 8, 132));
  EXPECT_EQ(wave_balanced_splits(33, 64, 8, 8, 132), 8u);
  // Among counts better than the doubling rule's, the fewest splits: 5 and 10 both take 26
  // steps for 25 tiles of 128 (8 take 32).
  EXPECT_EQ(wave_balanced_splits(25, 128, 8, 16, 132), 5u);
}

// The tail split's rule (ops/conv/split_waves.h, tail_split) on D-FINE's 1x1 convs at 80x80
// (100 pixel columns of 64; 132 multiprocessors holding three 64x64 / BK 16 tiles each).
TEST(WebGpuConvOp, TailSplitModel) {
  using webgpu::tail_split;
  // 640 -> 256: 400 tiles, 4 past the round of 396: the last column (4 tiles) in 20 pieces
  // of 2 of its 40 K steps (132 / 4 = 33 pieces would be shorter than kTailMinSteps).
  auto t = tail_split(100, 4, 40, 132, 3, 32);
  EXPECT_EQ(t.tail_cols, 1u);
  EXPECT_EQ(t.splits, 20u);
  // 512 -> 512: 800 tiles, 8 past two rounds; 132 / 8 = 16 pieces, or max_splits.
  t = tail_split(100, 8, 32, 132, 3, 32);
  EXPECT_EQ(t.tail_cols, 1u);
  EXPECT_EQ(t.splits, 16u);
  EXPECT_EQ(tail_split(100, 8, 32, 132, 3, 12).splits, 12u);
  // 256 -> 256: 16 K steps, so 8 pieces of 2, which save less than the reduce costs (64 ->
  // 62 units).
  EXPECT_EQ(tail_split(100, 4, 16, 132, 3, 32).tail_cols, 0u);
  // Six tiles past the round in rows of 3: two columns, 132 / 6 = 22 pieces.
  t = tail_split(134, 3, 64, 132, 3, 32);
  EXPECT_EQ(t.tail_cols, 2u);
  EXPECT_EQ(t.splits, 22u);
  // No split: within one round, whole rounds, an unknown GPU, a tail too large for the idle
  // multiprocessors (200 tiles past the round), too few K steps, one column in all.
  EXPECT_EQ(tail_split(99, 4, 40, 132, 3, 32).tail_cols, 0u);
  EXPECT_EQ(tail_split(198, 4, 40, 132, 3, 32).tail_cols, 0u);
  EXPECT_EQ(tail_split(100, 4, 40, 0, 3, 32).tail_cols, 0u);
  EXPECT_EQ(tail_split(149, 4, 40, 132, 3, 32).tail_cols, 0u);
  EXPECT_EQ(tail_split(100, 4, 3, 132, 3, 32).tail_cols, 0u);
  EXPECT_EQ(tail_split(1, 400, 40, 132, 3, 32).tail_cols, 0u);
  // Short K: 4 steps, 2 pieces of 2.
  EXPECT_EQ(tail_split(100, 4, 4, 132, 3, 32).tail_cols, 0u);
}

// The tail split runs and matches: a grid of two rows of tiles (a batch of 2, 40 channels)
// one column past a full round of 16 multiprocessors (GraphOptions::gpu_multiprocessors) at
// the workgroups a multiprocessor holds on this adapter (its workgroup memory over the
// tile's 16 KiB), the last column 48 pixels wide, 500 input channels (32 K steps, the last
// short), with the bias, a fused residual add and relu; the tail's 8 pieces and
// conv2d_pw_tail_reduce against the float64 reference, and the same graph without the split.
TEST(WebGpuConvOp, PointwiseGemmTailSplit) {
  auto device = gpu::Device::create();
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  const uint64_t per_mp = (*device)->limits().max_compute_workgroup_storage_size / 16384;
  ASSERT_GE(per_mp, 1u);
  const int64_t cols = static_cast<int64_t>(16 * per_mp / 2 + 1);  // 2 rows: one column past the round
  const ConvCase k{2, 500, 16, 4 * cols - 1, 40, 1, 1, 1, 0, 1, 1, true};
  std::mt19937 rng(81);
  const auto [xt, wt, bt, oh, ow] = random_conv(k, rng);
  const Tensor rt = test::random_tensor(ScalarType::kFloat, {k.n, k.oc, oh, ow}, rng, -1, 1);
  std::vector<double> want = conv_ref(k, xt, wt, &bt, oh, ow);
  residual_relu_ref(want, rt);
  for (const bool tail : {true, false}) {
    test::VkGraphBuilder b;
    b.profile = true;
    b.conv_pw_gemm = 1;  // the GEMM even on a grid under kPwGemmMinTiles (16 KiB of workgroup memory)
    b.gpu_multiprocessors = 16;
    b.conv_pw_tail = tail;
    int x = b.input(ScalarType::kFloat, {k.n, k.c, k.h, k.w});
    int r = b.input(ScalarType::kFloat, {k.n, k.oc, oh, ow});
    b.output(add_residual_relu(b, add_conv(b, k, x, wt, &bt, oh, ow), r, {k.n, k.oc, oh, ow}));
    auto res = b.run({Value::make_tensor(xt), Value::make_tensor(rt)});
    ASSERT_TRUE(res.ok()) << describe(k) << ": " << res.status().to_string();
    expect_close((*res)[0].tensor, want, describe(k) + (tail ? " tail split" : " no tail split"));
    if (tail) {
      ASSERT_EQ(b.kernels.size(), 2u) << kernel_list(b.kernels);
      EXPECT_NE(b.kernels[0].find("conv2d_pw_gemm_vec4:tail8"), std::string::npos) << kernel_list(b.kernels);
      EXPECT_EQ(test::count_kernel(b.kernels, "conv2d_pw_tail_reduce"), 1u) << kernel_list(b.kernels);
    } else {
      ASSERT_EQ(b.kernels.size(), 1u) << kernel_list(b.kernels);
      EXPECT_EQ(b.kernels[0].find(":tail"), std::string::npos) << kernel_list(b.kernels);
    }
  }
}

// The split count the wave model picks runs and matches: 4 tiles over 1,020 input channels
// (64 K steps of 16, the last short), which the doubling rule splits 8 ways; told of 12
// multiprocessors, the model takes 3 (one round of 21 steps instead of three of 8). Both
// against the float64 reference, each count read from the GEMM's profile label.
TEST(WebGpuConvOp, PointwiseGemmSplitByWaves) {
  std::mt19937 rng(80);
  const ConvCase k{1, 1020, 16, 16, 64, 1, 1, 1, 0, 1, 1, true};
  const auto [xt, wt, bt, oh, ow] = random_conv(k, rng);
  const std::vector<double> want = conv_ref(k, xt, wt, &bt, oh, ow);
  for (const auto& [mps, label] : {std::pair<uint32_t, const char*>{0, "conv2d_pw_gemm_vec4:ks8"},
                                   std::pair<uint32_t, const char*>{12, "conv2d_pw_gemm_vec4:ks3"}}) {
    test::VkGraphBuilder b;
    b.profile = true;
    b.conv_pw_gemm = 1;
    b.conv_splitk_fill = 512;
    b.gpu_multiprocessors = mps;
    int x = b.input(ScalarType::kFloat, {k.n, k.c, k.h, k.w});
    b.output(add_conv(b, k, x, wt, &bt, oh, ow));
    auto res = b.run({Value::make_tensor(xt)});
    ASSERT_TRUE(res.ok()) << res.status().to_string();
    expect_close((*res)[0].tensor, want, std::string(label));
    ASSERT_EQ(b.kernels.size(), 2u) << kernel_list(b.kernels);
    EXPECT_NE(b.kernels[0].find(label), std::string::npos) << kernel_list(b.kernels);
  }
}

double hardswish(double v) {
  const float f = static_cast<float>(v);
  return f * std::min(std::max(f + 3.f, 0.f), 6.f) / 6.f;
}


// conv2d_igemm (dense, constant f32 weights): edge tiles in pixels (M not a multiple of
// 64, tiles across the batch boundary) and channels (out_c 5..70 with 32- and 64-channel
// tiles), K not a multiple of 16, strides, dilation, padding, non-square kernels, no
// bias, and the split-K path (small planes with long K: 2, 4 or 8 splits, then
// conv2d_splitk_reduce), channel-inner K (in_c >= 16), against the float64 reference; the first two also with a clamp
// (applied by conv2d_igemm itself, then by the reduce pass).
// Also where conv2d_block stays (out_c < 8 on a plane of more than 8192 pixels).
TEST(WebGpuConvOp, ImplicitGemm) {
  std::mt19937 rng(75);
  struct Case {
    ConvCase k;
    const char* kernel;  // the conv's shader
    size_t dispatches;   // 2 with the split-K reduce pass
  };
  const std::vector<Case> cases = {
      {{1, 5, 13, 11, 37, 3, 3, 1, 1, 1, 1, true}, "conv2d_igemm", 1},
      {{1, 9, 12, 14, 70, 5, 3, 1, 2, 1, 1, true}, "conv2d_igemm", 1},  // 3 x 3 tiles (32-channel): unsplit
      {{2, 7, 17, 19, 12, 3, 3, 2, 2, 2, 1, false}, "conv2d_igemm", 1},
      {{1, 24, 9, 10, 20, 3, 3, 1, 1, 1, 1, true}, "conv2d_igemm", 2},
      {{1, 64, 6, 6, 16, 3, 3, 1, 1, 1, 1, false}, "conv2d_igemm", 2},
      {{1, 6, 10, 10, 5, 3, 3, 1, 1, 3, 1, true}, "conv2d_igemm", 1},
      // in_c >= 16: K in the order (ky, kx, c) (CIN_INNER; the in_c 24 and 64 cases above
      // too, in_c 24 with K steps across two taps): batch 2, a 3x5 kernel at stride 2,
      // dilation 3; out_c <= 16 (here and above) in the 16-channel tile.
      {{2, 16, 11, 13, 40, 3, 3, 1, 1, 1, 1, true}, "conv2d_igemm", 2},
      {{1, 32, 15, 17, 24, 3, 5, 2, 2, 1, 1, false}, "conv2d_igemm", 2},
      {{1, 16, 9, 10, 7, 3, 3, 1, 3, 3, 1, true}, "conv2d_igemm", 2},
      // out_c 96 (and 70 above): three 32-channel tiles (GraphOptions::conv_narrow_tail),
      // here with channel-inner K over 5x5 taps and split over K.
      {{1, 32, 7, 9, 96, 5, 5, 1, 2, 1, 1, true}, "conv2d_igemm", 2},
      {{1, 3, 97, 101, 3, 3, 3, 1, 1, 1, 1, true}, "conv2d_block", 1},
  };
  for (const Case& c : cases) {
    const ConvCase& k = c.k;
    const auto [xt, wt, bt, oh, ow] = random_conv(k, rng);
    const std::vector<double> conv = conv_ref(k, xt, wt, k.bias ? &bt : nullptr, oh, ow);
    // Each implicit-GEMM case also at 8 rows an invocation (GraphOptions::conv_rm8; its
    // 32- and 64-channel tiles), unclamped.
    for (int run = 0; run < 3; ++run) {
      const bool with_clamp = run == 1, rm8 = run == 2;
      if (with_clamp && &c - cases.data() >= 2) continue;
      if (rm8 && std::string(c.kernel) != "conv2d_igemm") continue;
      test::VkGraphBuilder b;
      b.profile = true;
      b.conv_rm8 = rm8 ? 1 : 0;
      int x = b.input(ScalarType::kFloat, {k.n, k.c, k.h, k.w});
      const double lo = -0.5, hi = 0.75;
      int y = add_conv(b, k, x, wt, k.bias ? &bt : nullptr, oh, ow, with_clamp ? &lo : nullptr, with_clamp ? &hi : nullptr);
      b.output(y);
      auto r = b.run({Value::make_tensor(xt)});
      ASSERT_TRUE(r.ok()) << describe(k) << ": " << r.status().to_string();
      std::vector<double> want = conv;
      if (with_clamp)
        for (double& v : want) v = std::min(std::max(v, lo), hi);
      expect_close((*r)[0].tensor, want, describe(k) + (with_clamp ? " clamped" : "") + (rm8 ? " RM 8" : ""));
      ASSERT_EQ(b.kernels.size(), c.dispatches) << describe(k) << ": " << kernel_list(b.kernels);
      EXPECT_NE(b.kernels[0].find(c.kernel), std::string::npos) << describe(k) << ": " << kernel_list(b.kernels);
      if (c.dispatches == 2) {
        EXPECT_NE(b.kernels[1].find("conv2d_splitk_reduce"), std::string::npos) << describe(k) << ": " << kernel_list(b.kernels);
      }
    }
  }
}

// A 1-D conv (height 1) runs conv2d_igemm too.
TEST(WebGpuConvOp, ImplicitGemm1d) {
  std::mt19937 rng(76);
  // 1-D: x [2, 9, 29], w [19, 9, 5], stride 2, padding 3, dilation 2.
  const ConvCase k{2, 9, 1, 29, 19, 1, 5, 2, 3, 2, 1, true};
  const int64_t ow = out_dim(k.w, k.kw, k.stride, k.pad, k.dil);
  Tensor xt = test::random_tensor(ScalarType::kFloat, {k.n, k.c, k.w}, rng, -1, 1);
  Tensor wt = test::random_tensor(ScalarType::kFloat, {k.oc, k.c, k.kw}, rng, -1, 1);
  Tensor bt = test::random_tensor(ScalarType::kFloat, {k.oc}, rng, -1, 1);
  test::VkGraphBuilder b;
  b.profile = true;
  int x = b.input(ScalarType::kFloat, {k.n, k.c, k.w});
  int y = b.tensor(ScalarType::kFloat, {k.n, k.oc, ow});
  b.op("aten.convolution.default", {x, b.constant(wt), b.constant(bt), b.int_list({k.stride}), b.int_list({k.pad}),
                                    b.int_list({k.dil}), b.bool_value(false), b.int_list({0}), b.int_value(1), y});
  b.output(y);
  auto r = b.run({Value::make_tensor(xt)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  std::vector<double> want(static_cast<size_t>(k.n * k.oc * ow));
  {
    const float* xp = xt.data_as<float>();
    const float* wp = wt.data_as<float>();
    for (int64_t bi = 0; bi < k.n; ++bi)
      for (int64_t o = 0; o < k.oc; ++o)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = bt.data_as<float>()[o];
          for (int64_t c = 0; c < k.c; ++c)
            for (int64_t v = 0; v < k.kw; ++v) {
              const int64_t ix = j * k.stride - k.pad + v * k.dil;
              if (ix >= 0 && ix < k.w) acc += double(xp[(bi * k.c + c) * k.w + ix]) * wp[(o * k.c + c) * k.kw + v];
            }
          want[static_cast<size_t>((bi * k.oc + o) * ow + j)] = acc;
        }
  }
  expect_close((*r)[0].tensor, want, "1-D conv");
  EXPECT_NE(b.kernels[0].find("conv2d_igemm"), std::string::npos) << kernel_list(b.kernels);
}

// A batch norm exported as y * scale[1, C, 1, 1] + shift[1, C, 1, 1] (constants staged
// through et_vk.prepack, as D-FINE's HGNetV2 has it) after a conv folds into the conv's
// weights and bias, and a relu after it is the epilogue: one dispatch for conv2d_igemm,
// conv2d_pw_gemm, conv2d_pw and a depthwise conv2d_direct, with bias and without; the
// constant as either operand, and a subtract. A clamped conv (et_vk.conv_with_clamp) keeps
// the multiply.
TEST(WebGpuConvOp, FusedChannelAffine) {
  std::mt19937 rng(80);
  const std::vector<ConvCase> cases = {ConvCase{1, 6, 11, 13, 40, 3, 3, 1, 1, 1, 1, true},
                                       ConvCase{2, 19, 17, 16, 70, 1, 1, 1, 0, 1, 1, false},
                                       ConvCase{1, 40, 9, 9, 24, 1, 1, 1, 0, 1, 1, true},
                                       ConvCase{1, 12, 10, 9, 12, 3, 3, 1, 1, 1, 12, false}};
  for (const ConvCase& k : cases) {
    for (int variant = 0; variant < 3; ++variant) {  // y * s + t; s * y - t; clamped conv
      if (variant == 2 && &k != &cases.front()) continue;
      const auto [xt, wt, bt, oh, ow] = random_conv(k, rng);
      Tensor st = test::random_tensor(ScalarType::kFloat, {1, k.oc, 1, 1}, rng, 0.5, 2);
      Tensor tt = test::random_tensor(ScalarType::kFloat, {1, k.oc, 1, 1}, rng, -1, 1);
      test::VkGraphBuilder b;
      b.profile = true;
      int x = b.input(ScalarType::kFloat, {k.n, k.c, k.h, k.w});
      const double lo = -0.6;
      int y = add_conv(b, k, x, wt, k.bias ? &bt : nullptr, oh, ow, variant == 2 ? &lo : nullptr);
      auto staged = [&](const Tensor& c) {
        int id = b.tensor(ScalarType::kFloat, {1, k.oc, 1, 1});
        b.op("et_vk.prepack.default", {b.constant(c), id});
        return id;
      };
      int s_id = staged(st), t_id = staged(tt);
      int m = b.tensor(ScalarType::kFloat, {k.n, k.oc, oh, ow});
      if (variant == 1) b.op("aten.mul.Tensor", {s_id, y, m});
      else b.op("aten.mul.Tensor", {y, s_id, m});
      int a = b.tensor(ScalarType::kFloat, {k.n, k.oc, oh, ow});
      if (variant == 1) b.op("aten.sub.Tensor", {m, t_id, b.int_value(1), a});
      else b.op("aten.add.Tensor", {m, t_id, b.int_value(1), a});
      int z = b.tensor(ScalarType::kFloat, {k.n, k.oc, oh, ow});
      b.op("aten.relu.default", {a, z});
      b.output(z);
      auto r = b.run({Value::make_tensor(xt)});
      ASSERT_TRUE(r.ok()) << describe(k) << ": " << r.status().to_string();
      std::vector<double> want = conv_ref(k, xt, wt, k.bias ? &bt : nullptr, oh, ow);
      const int64_t plane = oh * ow;
      for (size_t i = 0; i < want.size(); ++i) {
        const int64_t o = (static_cast<int64_t>(i) / plane) % k.oc;
        double v = variant == 2 ? std::max(want[i], lo) : want[i];
        v = v * st.data_as<float>()[o] + (variant == 1 ? -1.0 : 1.0) * tt.data_as<float>()[o];
        want[i] = std::max(v, 0.0);
      }
      expect_close((*r)[0].tensor, want, describe(k) + " variant " + std::to_string(variant));
      const std::string list = kernel_list(b.kernels);
      ASSERT_FALSE(b.kernels.empty());
      if (variant < 2) {
        EXPECT_NE(b.kernels[0].find("+affine"), std::string::npos) << "not folded: " << list;
        EXPECT_EQ(list.find("binary"), std::string::npos) << list;
        EXPECT_EQ(list.find("unary"), std::string::npos) << list;
      } else {
        EXPECT_EQ(b.kernels[0].find("+affine"), std::string::npos) << "folded past the clamp: " << list;
        // The affine and relu run after the conv: one elementwise chain (chain_fusion.h).
        EXPECT_NE(list.find("elementwise_chain"), std::string::npos) << list;
      }
    }
  }
}

// One row of the activation-epilogue table: a conv of each of `convs`, then the ops `tail`
// adds reading its output y (returning the graph's outputs), against the float64 conv with
// `ref` applied to each value.
struct EpilogueCase {
  const char* name;  // the gtest name (its seed too)
  std::vector<ConvCase> convs;
  std::function<std::vector<int>(test::VkGraphBuilder&, int y, const std::vector<int64_t>& shape)> tail;
  std::function<double(double)> ref;
  bool fused;                  // the tail is the conv's epilogue: "+N" in its label, no unary/binary
  const char* kernel = "";     // the conv's shader, where a row pins it
  double extra_rel_tol = 0;    // on top of tol(): exp may differ from the host's by a few ulp
};

// The four convs of the epilogue rows: conv2d_igemm, conv2d_igemm split-K (the epilogue in
// the reduce pass), and two pointwise ones (conv2d_pw_gemm / conv2d_pw by size).
const ConvCase kIgemm{1, 6, 11, 13, 40, 3, 3, 1, 1, 1, 1, true}, kIgemmSplit{1, 48, 5, 7, 24, 3, 3, 1, 1, 1, 1, true},
    kPwLarge{2, 19, 17, 16, 70, 1, 1, 1, 0, 1, 1, false}, kPwSmall{1, 40, 9, 9, 24, 1, 1, 1, 0, 1, 1, true};

int add_unary(test::VkGraphBuilder& b, const char* op, int y, const std::vector<int64_t>& shape) {
  int z = b.tensor(ScalarType::kFloat, shape);
  b.op(op, {y, z});
  return z;
}

// SiLU as exported: s = sigmoid(y), then y * s (or s * y); s also an output where asked.
std::vector<int> add_silu(test::VkGraphBuilder& b, int y, const std::vector<int64_t>& shape, bool s_first,
                          bool s_output) {
  int s = add_unary(b, "aten.sigmoid.default", y, shape);
  int z = b.tensor(ScalarType::kFloat, shape);
  b.op("aten.mul.Tensor", {s_first ? s : y, s_first ? y : s, z});
  return s_output ? std::vector<int>{z, s} : std::vector<int>{z};
}

double silu(double v) {
  const float f = static_cast<float>(v);
  return f * (1.f / (1.f + std::exp(-f)));
}

std::vector<int> add_leaky_relu(test::VkGraphBuilder& b, int y, const std::vector<int64_t>& shape, bool default_slope) {
  int z = b.tensor(ScalarType::kFloat, shape);
  b.op("aten.leaky_relu.default", {y, default_slope ? b.none() : b.double_value(0.2), z});
  return {z};
}

double leaky_relu(double v, double slope) {
  return v >= 0 ? v : static_cast<double>(static_cast<float>(v) * static_cast<float>(slope));
}

std::vector<int> add_gelu(test::VkGraphBuilder& b, int y, const std::vector<int64_t>& shape, bool tanh_form) {
  int z = b.tensor(ScalarType::kFloat, shape);
  b.op("aten.gelu.default", {y, tanh_form ? b.string_value("tanh") : b.string_value("none"), z});
  return {z};
}

double gelu_erf(double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); }
double gelu_tanh(double v) {
  return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
}

const EpilogueCase kEpilogueCases[] = {
    // A fused activation lands in conv2d_igemm's own epilogue (no split) and in the split-K
    // reduce pass.
    {"Hardswish", {kIgemm, kIgemmSplit},
     [](test::VkGraphBuilder& b, int y, const std::vector<int64_t>& shape) {
       return std::vector<int>{add_unary(b, "aten.hardswish.default", y, shape)};
     },
     hardswish, true, "conv2d_igemm"},
    // SiLU after a conv is its epilogue (D-FINE's ConvNormLayer): conv2d_igemm, its split-K
    // reduce pass, conv2d_pw_gemm, conv2d_pw.
    {"SiluYTimesSigmoid", {kIgemm, kIgemmSplit, kPwLarge, kPwSmall},
     [](test::VkGraphBuilder& b, int y, const std::vector<int64_t>& shape) { return add_silu(b, y, shape, false, false); },
     silu, true, "", 2e-4},
    {"SiluSigmoidTimesY", {kIgemm, kIgemmSplit, kPwLarge, kPwSmall},
     [](test::VkGraphBuilder& b, int y, const std::vector<int64_t>& shape) { return add_silu(b, y, shape, true, false); },
     silu, true, "", 2e-4},
    // When the sigmoid's result is read elsewhere too (a graph output), nothing is fused.
    {"SiluSigmoidAlsoOutput", {kPwSmall},
     [](test::VkGraphBuilder& b, int y, const std::vector<int64_t>& shape) { return add_silu(b, y, shape, false, true); },
     silu, false, "", 2e-4},
    // leaky_relu (a slope, or none: 0.01) after a conv is its epilogue (Real-ESRGAN's convs):
    // in conv2d_igemm itself, in the split-K reduce pass, in conv2d_pw_gemm.
    {"LeakyRelu", {kIgemm, kIgemmSplit, kPwLarge},
     [](test::VkGraphBuilder& b, int y, const std::vector<int64_t>& shape) { return add_leaky_relu(b, y, shape, false); },
     [](double v) { return leaky_relu(v, 0.2); }, true},
    // GELU after a conv is its epilogue (Whisper's conv stem: conv1d -> gelu, twice).
    {"GeluErf", {kIgemm, kIgemmSplit, kPwLarge, kPwSmall},
     [](test::VkGraphBuilder& b, int y, const std::vector<int64_t>& shape) { return add_gelu(b, y, shape, false); },
     gelu_erf, true, "", 2e-6},
    // Whisper's second conv1d as exported: conv, clone, GELU; the copy folds away with it.
    {"GeluErfAfterClone", {kIgemm, kIgemmSplit},
     [](test::VkGraphBuilder& b, int y, const std::vector<int64_t>& shape) {
       int c = b.tensor(ScalarType::kFloat, shape);
       b.op("aten.clone.default", {y, b.none(), c});
       return add_gelu(b, c, shape, false);
     },
     gelu_erf, true, "", 2e-6},
    {"GeluTanh", {kIgemm, kPwLarge},
     [](test::VkGraphBuilder& b, int y, const std::vector<int64_t>& shape) { return add_gelu(b, y, shape, true); },
     gelu_tanh, true, "", 2e-6},
    {"LeakyReluDefaultSlope", {kIgemm, kIgemmSplit, kPwLarge},
     [](test::VkGraphBuilder& b, int y, const std::vector<int64_t>& shape) { return add_leaky_relu(b, y, shape, true); },
     [](double v) { return leaky_relu(v, 0.01); }, true},
};

void PrintTo(const EpilogueCase& c, std::ostream* os) { *os << c.name; }

class WebGpuConvOpEpilogue : public ::testing::TestWithParam<EpilogueCase> {};

TEST_P(WebGpuConvOpEpilogue, MatchesReference) {
  const EpilogueCase& c = GetParam();
  const std::string name = c.name;
  std::mt19937 rng = test::case_rng(c.name);
  for (const ConvCase& k : c.convs) {
    const std::string what = name + " " + describe(k);
    const auto [xt, wt, bt, oh, ow] = random_conv(k, rng);
    test::VkGraphBuilder b;
    b.profile = true;
    int x = b.input(ScalarType::kFloat, {k.n, k.c, k.h, k.w});
    int y = add_conv(b, k, x, wt, k.bias ? &bt : nullptr, oh, ow);
    for (int out : c.tail(b, y, {k.n, k.oc, oh, ow})) b.output(out);
    auto r = b.run({Value::make_tensor(xt)});
    ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
    std::vector<double> want = conv_ref(k, xt, wt, k.bias ? &bt : nullptr, oh, ow);
    const Tensor& got = (*r)[0].tensor;
    ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size())) << what;
    for (size_t i = 0; i < want.size(); ++i) {
      const double v = c.ref(want[i]);
      ASSERT_NEAR(got.data_as<float>()[i], v, tol(v) + c.extra_rel_tol * std::fabs(v)) << what << " at " << i;
    }
    ASSERT_FALSE(b.kernels.empty()) << what;
    const std::string list = kernel_list(b.kernels);
    EXPECT_NE(b.kernels[0].find(c.kernel), std::string::npos) << what << ": " << list;
    if (c.fused) {
      EXPECT_NE(b.kernels[0].find("+1"), std::string::npos) << what << " not fused: " << list;
      EXPECT_EQ(list.find("unary"), std::string::npos) << what << ": " << list;
      EXPECT_EQ(list.find("binary"), std::string::npos) << what << ": " << list;
    } else {
      EXPECT_NE(list.find("unary"), std::string::npos) << what << " fused though it should not be: " << list;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(, WebGpuConvOpEpilogue, ::testing::ValuesIn(kEpilogueCases), test::CaseName());

// An op that does not read the conv's result, between the conv and its activation (Whisper's
// position-embedding lookup between its first conv1d and that GELU), is passed over: the
// GELU still folds into the conv, and the op in between runs as before. A tensor that such
// an op produces is not taken as the conv's residual (it would not exist yet when the conv
// runs): the add stays an op of its own. Every output against its reference.
TEST(WebGpuConvOp, EpiloguePassesOverAnUnrelatedOp) {
  std::mt19937 rng(80);
  for (const bool residual : {false, true}) {
    const ConvCase k = residual ? kPwLarge : kIgemm;
    const std::string what = std::string(residual ? "residual made between " : "gelu after an op between ") + describe(k);
    const auto [xt, wt, bt, oh, ow] = random_conv(k, rng);
    const std::vector<int64_t> shape = {k.n, k.oc, oh, ow};
    const Tensor ca = test::random_tensor(ScalarType::kFloat, shape, rng, -1, 1);
    const Tensor cb = test::random_tensor(ScalarType::kFloat, shape, rng, -1, 1);
    test::VkGraphBuilder b;
    b.profile = true;
    int x = b.input(ScalarType::kFloat, {k.n, k.c, k.h, k.w});
    int y = add_conv(b, k, x, wt, k.bias ? &bt : nullptr, oh, ow);
    int between = b.tensor(ScalarType::kFloat, shape);  // ca + cb, read by nothing of the conv's
    b.op("aten.add.Tensor", {b.constant(ca), b.constant(cb), b.int_value(1), between});
    int z = b.tensor(ScalarType::kFloat, shape);
    if (residual) b.op("aten.add.Tensor", {y, between, b.int_value(1), z});
    else b.op("aten.gelu.default", {y, b.string_value("none"), z});
    b.output(z);
    b.output(between);
    auto r = b.run({Value::make_tensor(xt)});
    ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
    const std::vector<double> conv = conv_ref(k, xt, wt, k.bias ? &bt : nullptr, oh, ow);
    const float* got = (*r)[0].tensor.data_as<float>();
    const float* got_between = (*r)[1].tensor.data_as<float>();
    for (size_t i = 0; i < conv.size(); ++i) {
      const double s = double(ca.data_as<float>()[i]) + cb.data_as<float>()[i];
      const double want = residual ? conv[i] + s : gelu_erf(conv[i]);
      ASSERT_NEAR(got[i], want, tol(want) + 2e-6 * std::fabs(want)) << what << " at " << i;
      ASSERT_NEAR(got_between[i], s, 1e-6) << what << " (the op in between) at " << i;
    }
    const std::string list = kernel_list(b.kernels);
    if (residual) {
      EXPECT_EQ(b.kernels[0].find("residual"), std::string::npos) << what << ": " << list;
    } else {
      EXPECT_NE(b.kernels[0].find("+1"), std::string::npos) << what << " not fused: " << list;
      EXPECT_EQ(list.find("unary"), std::string::npos) << what << ": " << list;
    }
  }
}

// Weights computed at run time (a graph input, not a constant) cannot be repacked for
// conv2d_block at build: the dense conv falls back to conv2d_oc4, same values.
TEST(WebGpuConvOp, RuntimeWeights) {
  std::mt19937 rng(74);
  for (const ConvCase& k : {kCases[7], kCases[8], kCases[11]}) {
    const auto [xt, wt, bt, oh, ow] = random_conv(k, rng);
    test::VkGraphBuilder b;
    int x = b.input(ScalarType::kFloat, {k.n, k.c, k.h, k.w});
    int w = b.input(ScalarType::kFloat, {k.oc, k.c, k.kh, k.kw});
    int y = b.tensor(ScalarType::kFloat, {k.n, k.oc, oh, ow});
    b.op("aten.convolution.default", {x, w, b.none(), b.int_list({k.stride, k.stride}), b.int_list({k.pad, k.pad}),
                                      b.int_list({k.dil, k.dil}), b.bool_value(false), b.int_list({0, 0}),
                                      b.int_value(1), y});
    b.output(y);
    auto r = b.run({Value::make_tensor(xt), Value::make_tensor(wt)});
    ASSERT_TRUE(r.ok()) << describe(k) << ": " << r.status().to_string();
    expect_close((*r)[0].tensor, conv_ref(k, xt, wt, nullptr, oh, ow), describe(k) + " runtime weights");
  }
}

// conv -> hardswish / relu / clamp / hardtanh: one dispatch, same values as unfused.
TEST(WebGpuConvOp, FusedActivations) {
  std::mt19937 rng(72);
  struct Act {
    const char* name;
    std::function<double(double)> ref;
  };
  const std::vector<Act> acts = {
      {"aten.hardswish.default", hardswish},
      {"aten.relu.default", [](double v) { return std::max(v, 0.0); }},
      {"aten.clamp.default", [](double v) { return std::min(std::max(v, -0.25), 0.5); }},
      {"aten.hardtanh.default", [](double v) { return std::min(std::max(v, -1.0), 1.0); }},
  };
  for (const ConvCase& k : {kCases[1], kCases[3], kCases[4], kCases[7], kCases[9]}) {
    const auto [xt, wt, bt, oh, ow] = random_conv(k, rng);
    const std::vector<double> conv = conv_ref(k, xt, wt, k.bias ? &bt : nullptr, oh, ow);
    for (const Act& act : acts) {
      size_t dispatches[2] = {0, 0};
      for (bool fuse : {false, true}) {
        test::VkGraphBuilder b;
        b.fuse = fuse;
        int x = b.input(ScalarType::kFloat, {k.n, k.c, k.h, k.w});
        int y = add_conv(b, k, x, wt, k.bias ? &bt : nullptr, oh, ow);
        int z = b.tensor(ScalarType::kFloat, {k.n, k.oc, oh, ow});
        const std::string name = act.name;
        if (name == "aten.clamp.default") b.op(act.name, {y, b.double_value(-0.25), b.double_value(0.5), z});
        else if (name == "aten.hardtanh.default") b.op(act.name, {y, b.double_value(-1), b.double_value(1), z});
        else b.op(act.name, {y, z});
        b.output(z);
        auto r = b.run({Value::make_tensor(xt)});
        ASSERT_TRUE(r.ok()) << describe(k) << " " << name << ": " << r.status().to_string();
        std::vector<double> want = conv;
        for (double& v : want) v = act.ref(static_cast<float>(v));
        expect_close((*r)[0].tensor, want, describe(k) + " " + name + (fuse ? " fused" : ""));
        dispatches[fuse] = b.dispatches;
      }
      EXPECT_EQ(dispatches[1] + 1, dispatches[0]) << describe(k) << " " << act.name;
    }
  }
}

// Squeeze-and-excitation as MobileNetV3 exports it: mean -> conv+relu -> conv ->
// hardsigmoid spelled add(3) / clamp(0) / clamp(6) / div(6) with the scalars as constant
// tensors copied through prepack/clone -> x * s -> pointwise conv -> hardswish. Fused: the
// add..div chain goes into the second conv, the multiply and the hardswish into the last
// one, and the scalar copies are dropped.
TEST(WebGpuConvOp, FusedSqueezeExcitation) {
  std::mt19937 rng(73);
  for (auto [n, c, hw, squeeze, oc] : std::vector<std::array<int64_t, 5>>{{1, 96, 7, 24, 40}, {2, 40, 5, 16, 13}}) {
    Tensor xt = test::random_tensor(ScalarType::kFloat, {n, c, hw, hw}, rng, -1, 1);
    Tensor w1 = test::random_tensor(ScalarType::kFloat, {squeeze, c, 1, 1}, rng, -1, 1);
    Tensor b1 = test::random_tensor(ScalarType::kFloat, {squeeze}, rng, -1, 1);
    Tensor w2 = test::random_tensor(ScalarType::kFloat, {c, squeeze, 1, 1}, rng, -1, 1);
    Tensor b2 = test::random_tensor(ScalarType::kFloat, {c}, rng, -1, 1);
    Tensor w3 = test::random_tensor(ScalarType::kFloat, {oc, c, 1, 1}, rng, -1, 1);
    Tensor three = Tensor::make_owned(ScalarType::kLong, {}), six = Tensor::make_owned(ScalarType::kLong, {});
    three.data_as<int64_t>()[0] = 3;
    six.data_as<int64_t>()[0] = 6;

    // Reference.
    std::vector<double> mean(static_cast<size_t>(n * c), 0.0);
    for (int64_t i = 0; i < n * c; ++i) {
      double s = 0;
      for (int64_t p = 0; p < hw * hw; ++p) s += xt.data_as<float>()[i * hw * hw + p];
      mean[static_cast<size_t>(i)] = static_cast<float>(s / double(hw * hw));
    }
    std::vector<double> gate(static_cast<size_t>(n * c));
    for (int64_t b = 0; b < n; ++b) {
      std::vector<double> h(static_cast<size_t>(squeeze));
      for (int64_t q = 0; q < squeeze; ++q) {
        double acc = b1.data_as<float>()[q];
        for (int64_t i = 0; i < c; ++i) acc += mean[static_cast<size_t>(b * c + i)] * w1.data_as<float>()[q * c + i];
        h[static_cast<size_t>(q)] = static_cast<float>(std::max(acc, 0.0));
      }
      for (int64_t i = 0; i < c; ++i) {
        double acc = b2.data_as<float>()[i];
        for (int64_t q = 0; q < squeeze; ++q) acc += h[static_cast<size_t>(q)] * w2.data_as<float>()[i * squeeze + q];
        gate[static_cast<size_t>(b * c + i)] = std::min(std::max(static_cast<float>(acc) + 3.0, 0.0), 6.0) / 6.0;
      }
    }
    std::vector<double> want(static_cast<size_t>(n * oc * hw * hw));
    for (int64_t b = 0; b < n; ++b)
      for (int64_t o = 0; o < oc; ++o)
        for (int64_t p = 0; p < hw * hw; ++p) {
          double acc = 0;
          for (int64_t i = 0; i < c; ++i)
            acc += double(static_cast<float>(xt.data_as<float>()[(b * c + i) * hw * hw + p] * gate[static_cast<size_t>(b * c + i)])) *
                   w3.data_as<float>()[o * c + i];
          want[static_cast<size_t>((b * oc + o) * hw * hw + p)] = hardswish(acc);
        }

    size_t dispatches[2] = {0, 0};
    for (int run = 0; run < 3; ++run) {
      const bool fuse = run > 0;
      test::VkGraphBuilder b;
      b.fuse = fuse;
      b.conv_pw_gemm = run == 2 ? 1 : 0;  // the fused input scale in conv2d_pw, then conv2d_pw_gemm
      const ConvCase k1{n, c, 1, 1, squeeze, 1, 1, 1, 0, 1, 1, true}, k2{n, squeeze, 1, 1, c, 1, 1, 1, 0, 1, 1, true},
          k3{n, c, hw, hw, oc, 1, 1, 1, 0, 1, 1, false};
      int x = b.input(ScalarType::kFloat, {n, c, hw, hw});
      // Scalars: constant -> prepack -> dim-order copy (to float) -> clone, as exported.
      auto scalar = [&](const Tensor& v) {
        int k = b.constant(v);
        int packed = b.tensor(ScalarType::kInt, {});
        b.op("et_vk.prepack.default", {k, packed});
        int f = b.tensor(ScalarType::kFloat, {});
        b.op("dim_order_ops._to_dim_order_copy.default",
             {packed, b.none(), b.none(), b.none(), b.none(), b.bool_value(false), b.int_list({}), f});
        return f;
      };
      int s3 = scalar(three), s6 = scalar(six);
      int m = b.tensor(ScalarType::kFloat, {n, c, 1, 1});
      b.op("aten.mean.dim", {x, b.int_list({-1, -2}), b.bool_value(true), b.none(), m});
      const double zero = 0;
      int h = add_conv(b, k1, m, w1, &b1, 1, 1, &zero, nullptr);
      int g = add_conv(b, k2, h, w2, &b2, 1, 1);
      int c3 = b.tensor(ScalarType::kFloat, {});
      b.op("aten.clone.default", {s3, b.none(), c3});
      int t1 = b.tensor(ScalarType::kFloat, {n, c, 1, 1});
      b.op("aten.add.Tensor", {g, c3, b.int_value(1), t1});
      int t2 = b.tensor(ScalarType::kFloat, {n, c, 1, 1});
      b.op("aten.clamp.default", {t1, b.double_value(0), b.none(), t2});
      int t3 = b.tensor(ScalarType::kFloat, {n, c, 1, 1});
      b.op("aten.clamp.default", {t2, b.none(), b.int_value(6), t3});
      int c6 = b.tensor(ScalarType::kFloat, {});
      b.op("aten.clone.default", {s6, b.none(), c6});
      int t4 = b.tensor(ScalarType::kFloat, {n, c, 1, 1});
      b.op("aten.div.Tensor", {t3, c6, t4});
      int xs = b.tensor(ScalarType::kFloat, {n, c, hw, hw});
      b.op("aten.mul.Tensor", {t4, x, xs});
      int y = add_conv(b, k3, xs, w3, nullptr, hw, hw);
      int z = b.tensor(ScalarType::kFloat, {n, oc, hw, hw});
      b.op("aten.hardswish.default", {y, z});
      b.output(z);
      auto r = b.run({Value::make_tensor(xt)});
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      expect_close((*r)[0].tensor, want, std::string("squeeze-excitation run ") + std::to_string(run));
      if (run < 2) dispatches[fuse] = b.dispatches;
      else EXPECT_EQ(b.dispatches, 5u);
    }
    // Unfused: 2 scalar copies, mean, 3 convs, 2 clones, add, 2 clamps, div, mul,
    // hardswish, output copy = 15. Fused: mean, 3 convs, output copy.
    EXPECT_EQ(dispatches[0], 15u);
    EXPECT_EQ(dispatches[1], 5u);
  }
}

// conv -> add(y, r) (either order, alpha) -> relu: pointwise convs take the add and the
// relu (one dispatch); other convs fuse neither, the add and relu become one elementwise
// chain (chain_fusion.h): conv, chain.
TEST(WebGpuConvOp, FusedResidualAdd) {
  std::mt19937 rng(75);
  for (const ConvCase& k : {kCases[3], kCases[4], kCases[0], kCases[7]}) {
    const bool pointwise = k.kh == 1 && k.kw == 1;
    const auto [xt, wt, bt, oh, ow] = random_conv(k, rng);
    Tensor rt = test::random_tensor(ScalarType::kFloat, {k.n, k.oc, oh, ow}, rng, -1, 1);
    const std::vector<double> conv = conv_ref(k, xt, wt, k.bias ? &bt : nullptr, oh, ow);
    for (int variant = 0; variant < 4; ++variant) {
      const double alpha = variant % 2 == 0 ? 0.5 : 1.0;
      test::VkGraphBuilder b;
      b.conv_pw_gemm = variant < 2 ? 0 : 1;  // pointwise: conv2d_pw, then conv2d_pw_gemm
      b.conv_splitk_fill = 1;                // no split-K reduce pass (PointwiseGemmSplitK has it)
      int x = b.input(ScalarType::kFloat, {k.n, k.c, k.h, k.w});
      int r = b.input(ScalarType::kFloat, {k.n, k.oc, oh, ow});
      int y = add_conv(b, k, x, wt, k.bias ? &bt : nullptr, oh, ow);
      int s = b.tensor(ScalarType::kFloat, {k.n, k.oc, oh, ow});
      if (variant % 2 == 0) b.op("aten.add.Tensor", {y, r, b.double_value(alpha), s});
      else b.op("aten.add.Tensor", {r, y, b.int_value(1), s});
      int z = b.tensor(ScalarType::kFloat, {k.n, k.oc, oh, ow});
      b.op("aten.relu.default", {s, z});
      b.output(z);
      auto res = b.run({Value::make_tensor(xt), Value::make_tensor(rt)});
      ASSERT_TRUE(res.ok()) << describe(k) << ": " << res.status().to_string();
      std::vector<double> want = conv;
      for (size_t i = 0; i < want.size(); ++i) {
        const float sum = static_cast<float>(want[i]) + static_cast<float>(alpha * rt.data_as<float>()[i]);
        want[i] = std::max(sum, 0.f);
      }
      expect_close((*res)[0].tensor, want, describe(k) + " residual variant " + std::to_string(variant));
      EXPECT_EQ(b.dispatches, pointwise ? 2u : 3u) << describe(k);
    }
  }
}

// The exporter's memory plan ping-pongs between a few buffers, so a fused conv's output
// often shares its planned buffer with the conv's input: the fusion then moves it to a
// buffer of its own. Stem conv -> hardswish -> pointwise conv -> relu, then v * mean(v) ->
// pointwise conv -> + v, with buffers shared the way MobileNetV3's plan shares them.
TEST(WebGpuConvOp, FusionUnderSharedBuffers) {
  std::mt19937 rng(76);
  const int64_t c = 8, hw = 9, oc = 12;
  Tensor xt = test::random_tensor(ScalarType::kFloat, {1, 3, 2 * hw, 2 * hw}, rng, -1, 1);
  Tensor w1 = test::random_tensor(ScalarType::kFloat, {c, 3, 3, 3}, rng, -1, 1);
  Tensor b1 = test::random_tensor(ScalarType::kFloat, {c}, rng, -1, 1);
  Tensor w2 = test::random_tensor(ScalarType::kFloat, {oc, c, 1, 1}, rng, -1, 1);
  Tensor w3 = test::random_tensor(ScalarType::kFloat, {oc, oc, 1, 1}, rng, -1, 1);
  std::vector<Value> outs[2];
  size_t dispatches[2] = {0, 0};
  for (bool fuse : {false, true}) {
    test::VkGraphBuilder b;
    b.fuse = fuse;
    const ConvCase k2{1, c, hw, hw, oc, 1, 1, 1, 0, 1, 1, false};
    int x = b.input(ScalarType::kFloat, {1, 3, 2 * hw, 2 * hw}, 0);
    int y = b.tensor(ScalarType::kFloat, {1, c, hw, hw}, 1);
    {
      int w = b.constant(w1), bi = b.constant(b1);
      b.op("aten.convolution.default", {x, w, bi, b.int_list({2, 2}), b.int_list({1, 1}), b.int_list({1, 1}),
                                        b.bool_value(false), b.int_list({0, 0}), b.int_value(1), y});
    }
    int z = b.tensor(ScalarType::kFloat, {1, c, hw, hw}, 0);
    b.op("aten.hardswish.default", {y, z});
    int u = add_conv(b, k2, z, w2, nullptr, hw, hw);  // own buffer
    int v = b.tensor(ScalarType::kFloat, {1, oc, hw, hw}, 0);
    b.op("aten.relu.default", {u, v});
    // v * mean(v): the conv's planned output (buffer 2) is the scale's, which the fused
    // conv reads; the residual add reads v again.
    int vs = b.tensor(ScalarType::kFloat, {1, oc, hw, hw}, 1);
    int s2 = b.tensor(ScalarType::kFloat, {1, oc, 1, 1}, 2);
    b.op("aten.mean.dim", {v, b.int_list({-1, -2}), b.bool_value(true), b.none(), s2});
    b.op("aten.mul.Tensor", {v, s2, vs});
    int q = b.tensor(ScalarType::kFloat, {1, oc, hw, hw}, 2);
    {
      int w = b.constant(w3);
      b.op("aten.convolution.default", {vs, w, b.none(), b.int_list({1, 1}), b.int_list({0, 0}), b.int_list({1, 1}),
                                        b.bool_value(false), b.int_list({0, 0}), b.int_value(1), q});
    }
    int r = b.tensor(ScalarType::kFloat, {1, oc, hw, hw}, 1);
    b.op("aten.add.Tensor", {q, v, b.int_value(1), r});
    b.output(r);
    auto res = b.run({Value::make_tensor(xt)});
    ASSERT_TRUE(res.ok()) << res.status().to_string();
    outs[fuse] = *res;
    dispatches[fuse] = b.dispatches;
  }
  // Reference.
  const ConvCase k1{1, 3, 2 * hw, 2 * hw, c, 3, 3, 2, 1, 1, 1, true};
  std::vector<double> y = conv_ref(k1, xt, w1, &b1, hw, hw);
  Tensor zt = Tensor::make_owned(ScalarType::kFloat, {1, c, hw, hw});
  for (size_t i = 0; i < y.size(); ++i) zt.data_as<float>()[i] = static_cast<float>(hardswish(y[i]));
  const ConvCase k2{1, c, hw, hw, oc, 1, 1, 1, 0, 1, 1, false};
  std::vector<double> u = conv_ref(k2, zt, w2, nullptr, hw, hw);
  std::vector<float> v(u.size());
  for (size_t i = 0; i < u.size(); ++i) v[i] = std::max(static_cast<float>(u[i]), 0.f);
  Tensor vst = Tensor::make_owned(ScalarType::kFloat, {1, oc, hw, hw});
  for (int64_t ch = 0; ch < oc; ++ch) {
    double m = 0;
    for (int64_t p = 0; p < hw * hw; ++p) m += v[static_cast<size_t>(ch * hw * hw + p)];
    const float mf = static_cast<float>(m / double(hw * hw));
    for (int64_t p = 0; p < hw * hw; ++p) vst.data_as<float>()[ch * hw * hw + p] = v[static_cast<size_t>(ch * hw * hw + p)] * mf;
  }
  const ConvCase k3{1, oc, hw, hw, oc, 1, 1, 1, 0, 1, 1, false};
  std::vector<double> want = conv_ref(k3, vst, w3, nullptr, hw, hw);
  for (size_t i = 0; i < want.size(); ++i) want[i] = static_cast<float>(want[i]) + v[i];
  expect_close(outs[0][0].tensor, want, "unfused");
  expect_close(outs[1][0].tensor, want, "fused");
  // Unfused: conv, hardswish, conv, relu, mean, mul, conv, add, output copy.
  EXPECT_EQ(dispatches[0], 9u);
  EXPECT_EQ(dispatches[1], 5u);
}

// No fusion where the conv's result has another reader or is itself a graph output.
TEST(WebGpuConvOp, NoFusionWithOtherReaders) {
  std::mt19937 rng(74);
  const ConvCase k = kCases[3];
  Tensor xt = test::random_tensor(ScalarType::kFloat, {k.n, k.c, k.h, k.w}, rng, -1, 1);
  Tensor wt = test::random_tensor(ScalarType::kFloat, {k.oc, k.c, 1, 1}, rng, -1, 1);
  const std::vector<double> conv = conv_ref(k, xt, wt, nullptr, k.h, k.w);
  for (bool conv_is_output : {false, true}) {
    test::VkGraphBuilder b;
    int x = b.input(ScalarType::kFloat, {k.n, k.c, k.h, k.w});
    int y = add_conv(b, k, x, wt, nullptr, k.h, k.w);
    int z = b.tensor(ScalarType::kFloat, {k.n, k.oc, k.h, k.w});
    b.op("aten.hardswish.default", {y, z});
    int s = b.tensor(ScalarType::kFloat, {k.n, k.oc, k.h, k.w});
    if (!conv_is_output) b.op("aten.add.Tensor", {y, z, b.int_value(1), s});
    b.output(conv_is_output ? y : s);
    b.output(z);
    auto r = b.run({Value::make_tensor(xt)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    std::vector<double> hs = conv, first = conv;
    for (double& v : hs) v = hardswish(v);
    if (!conv_is_output)
      for (size_t i = 0; i < first.size(); ++i) first[i] = static_cast<float>(conv[i]) + static_cast<float>(hs[i]);
    expect_close((*r)[0].tensor, first, conv_is_output ? "conv output" : "conv + hardswish(conv)");
    expect_close((*r)[1].tensor, hs, "hardswish");
  }
}

}  // namespace
}  // namespace wick
