#include <gtest/gtest.h>

#include <random>

#include "kernels/cpu/kernel_test_util.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu::testing {
namespace {

struct ConvCase {
  std::vector<int64_t> in, w;
  std::vector<int64_t> stride, pad, dil;
  int64_t groups = 1;
  bool bias = true;
};

// Direct definition: each output element gathers in[n, ic, oh*s - p + kh*d, ...] * w.
std::vector<double> conv2d_ref(const std::vector<double>& x, const std::vector<int64_t>& xs, const std::vector<double>& w,
                               const std::vector<int64_t>& ws, const std::vector<double>* b, const ConvCase& c,
                               std::vector<int64_t>& os) {
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], OC = ws[0], ICG = ws[1], KH = ws[2], KW = ws[3];
  const int64_t OH = (H + 2 * c.pad[0] - c.dil[0] * (KH - 1) - 1) / c.stride[0] + 1;
  const int64_t OW = (W + 2 * c.pad[1] - c.dil[1] * (KW - 1) - 1) / c.stride[1] + 1;
  os = {N, OC, OH, OW};
  const int64_t ocg = OC / c.groups;
  std::vector<double> out(static_cast<size_t>(N * OC * OH * OW));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oc = 0; oc < OC; ++oc)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double acc = b ? (*b)[static_cast<size_t>(oc)] : 0;
          const int64_t g = oc / ocg;
          for (int64_t icg = 0; icg < ICG; ++icg)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t ih = oh * c.stride[0] - c.pad[0] + kh * c.dil[0];
                const int64_t iw = ow * c.stride[1] - c.pad[1] + kw * c.dil[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                const int64_t ic = g * ICG + icg;
                acc += x[static_cast<size_t>(((n * C + ic) * H + ih) * W + iw)] *
                       w[static_cast<size_t>(((oc * ICG + icg) * KH + kh) * KW + kw)];
              }
          out[static_cast<size_t>(((n * OC + oc) * OH + oh) * OW + ow)] = acc;
        }
  return out;
}

void run_conv2d(const ConvCase& c, uint32_t seed) {
  Harness h;
  auto x = as_float32(random_values(static_cast<size_t>(numel(c.in)), -1, 1, seed));
  auto w = as_float32(random_values(static_cast<size_t>(numel(c.w)), -1, 1, seed + 1));
  auto b = as_float32(random_values(static_cast<size_t>(c.w[0]), -1, 1, seed + 2));
  std::vector<int64_t> os;
  auto want = conv2d_ref(x, c.in, w, c.w, c.bias ? &b : nullptr, c, os);
  int32_t tx = h.tensor(ScalarType::kFloat, c.in, x), tw = h.tensor(ScalarType::kFloat, c.w, w);
  int32_t tb = c.bias ? h.tensor(ScalarType::kFloat, {c.w[0]}, b) : h.none();
  int32_t out = h.tensor(ScalarType::kFloat, os);
  Status s = h.call("aten::convolution.out", {tx, tw, tb, h.int_list(c.stride), h.int_list(c.pad), h.int_list(c.dil),
                                              h.b(false), h.int_list({0, 0}), h.i(c.groups), out, out});
  ASSERT_TRUE(s.ok()) << s.to_string();
  expect_near_all(h.data(out), want, 1e-4);
}

TEST(CpuConvKernel, CnnFixtureLayers) {
  // cpu/cnn_cpu: 3x3 convs with padding 1, stride 1 then 2.
  run_conv2d({{1, 3, 32, 32}, {16, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}}, 40);
  run_conv2d({{1, 16, 32, 32}, {32, 16, 3, 3}, {2, 2}, {1, 1}, {1, 1}}, 41);
  run_conv2d({{1, 32, 16, 16}, {64, 32, 3, 3}, {2, 2}, {1, 1}, {1, 1}}, 42);
}

TEST(CpuConvKernel, GroupsDilationAsymmetricNoBias) {
  run_conv2d({{2, 4, 9, 7}, {6, 2, 2, 3}, {2, 1}, {0, 2}, {2, 1}, 2, false}, 43);
  run_conv2d({{1, 6, 5, 5}, {6, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 6, true}, 44);  // depthwise
  run_conv2d({{3, 2, 1, 1}, {4, 2, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, true}, 45);  // 1x1 spatial
  run_conv2d({{1, 1, 4, 6}, {1, 1, 4, 6}, {3, 3}, {0, 0}, {1, 1}, 1, true}, 46);  // kernel == input
}

// The fp32 register-blocked path (4 output channels x 8 columns): 1x1 convolutions run on
// flattened planes (7x7 = 49 pixels: 6 full blocks and a tail), channel counts that leave
// a partial block (6 = 4 + 2, in a group too), strided rows whose interior takes the
// gather without bounds checks and whose edges take the checked one, batches, and wide
// rows with 5x5 kernels and padding 2 (ESRGAN's).
TEST(CpuConvKernel, BlockedPathEdgesAndTails) {
  run_conv2d({{1, 24, 7, 7}, {6, 24, 1, 1}, {1, 1}, {0, 0}, {1, 1}}, 50);
  run_conv2d({{2, 8, 5, 3}, {12, 8, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, false}, 51);
  run_conv2d({{1, 3, 37, 41}, {16, 3, 3, 3}, {2, 2}, {1, 1}, {1, 1}}, 52);
  run_conv2d({{1, 5, 20, 35}, {7, 5, 3, 3}, {1, 3}, {2, 1}, {1, 2}, 1, false}, 53);
  run_conv2d({{1, 8, 12, 30}, {12, 4, 5, 5}, {1, 1}, {2, 2}, {1, 1}, 2, true}, 54);
  run_conv2d({{1, 16, 9, 26}, {8, 16, 3, 3}, {1, 1}, {1, 1}, {2, 2}}, 55);
}

TEST(CpuConvKernel, Conv1dAndScalarParams) {
  Harness h;
  auto x = as_float32(random_values(2 * 3 * 10, -1, 1, 47));
  auto w = as_float32(random_values(4 * 3 * 3, -1, 1, 48));
  int32_t tx = h.tensor(ScalarType::kFloat, {2, 3, 10}, x), tw = h.tensor(ScalarType::kFloat, {4, 3, 3}, w);
  // A None bias emitted as an empty BYTE tensor; stride given as one value.
  int32_t tb = h.tensor(ScalarType::kByte, {0});
  int32_t out = h.tensor(ScalarType::kFloat, {2, 4, 5});
  ASSERT_TRUE(h.call("aten::convolution.out", {tx, tw, tb, h.int_list({2}), h.int_list({1}), h.int_list({1}), h.b(false),
                                               h.int_list({0}), h.i(1), out, out})
                  .ok());
  ConvCase c{{2, 3, 1, 10}, {4, 3, 1, 3}, {1, 2}, {0, 1}, {1, 1}, 1, false};
  std::vector<int64_t> os;
  auto want = conv2d_ref(x, c.in, w, c.w, nullptr, c, os);
  EXPECT_EQ(os, (std::vector<int64_t>{2, 4, 1, 5}));
  expect_near_all(h.data(out), want, 1e-5);
}

TEST(CpuConvKernel, Transposed) {
  Harness h;
  // in [1,4,3,3], weight [4, 3 (out per group), 3, 3], groups 2 -> out channels 6.
  const int64_t N = 1, C = 4, H = 3, W = 3, G = 2, OCG = 3, K = 3, S = 2, P = 1, OP = 1;
  auto x = as_float32(random_values(N * C * H * W, -1, 1, 49));
  auto w = as_float32(random_values(C * OCG * K * K, -1, 1, 50));
  auto b = as_float32(random_values(G * OCG, -1, 1, 51));
  const int64_t OH = (H - 1) * S - 2 * P + (K - 1) + OP + 1, OW = OH;
  std::vector<double> want(static_cast<size_t>(N * G * OCG * OH * OW));
  // Reference as the gradient of a convolution: each output pixel gathers the inputs
  // that a forward convolution with the same parameters would have mapped onto it.
  for (int64_t oc = 0; oc < G * OCG; ++oc)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        double acc = b[static_cast<size_t>(oc)];
        const int64_t g = oc / OCG;
        for (int64_t icg = 0; icg < C / G; ++icg)
          for (int64_t kh = 0; kh < K; ++kh)
            for (int64_t kw = 0; kw < K; ++kw) {
              const int64_t th = oh + P - kh, tw2 = ow + P - kw;
              if (th % S != 0 || tw2 % S != 0) continue;
              const int64_t ih = th / S, iw = tw2 / S;
              if (th < 0 || tw2 < 0 || ih >= H || iw >= W) continue;
              const int64_t ic = g * (C / G) + icg;
              acc += x[static_cast<size_t>((ic * H + ih) * W + iw)] *
                     w[static_cast<size_t>(((ic * OCG + (oc % OCG)) * K + kh) * K + kw)];
            }
        want[static_cast<size_t>((oc * OH + oh) * OW + ow)] = acc;
      }
  int32_t tx = h.tensor(ScalarType::kFloat, {N, C, H, W}, x), tw = h.tensor(ScalarType::kFloat, {C, OCG, K, K}, w);
  int32_t tb = h.tensor(ScalarType::kFloat, {G * OCG}, b);
  int32_t out = h.tensor(ScalarType::kFloat, {N, G * OCG, OH, OW});
  Status s = h.call("aten::convolution.out", {tx, tw, tb, h.int_list({S, S}), h.int_list({P, P}), h.int_list({1, 1}),
                                              h.b(true), h.int_list({OP, OP}), h.i(G), out, out});
  ASSERT_TRUE(s.ok()) << s.to_string();
  expect_near_all(h.data(out), want, 1e-5);
}

TEST(CpuConvKernel, Float64) {
  Harness h;
  int32_t tx = h.tensor(ScalarType::kDouble, {1, 1, 2, 2}, {1, 2, 3, 4});
  int32_t tw = h.tensor(ScalarType::kDouble, {1, 1, 2, 2}, {1, 10, 100, 1000});
  int32_t out = h.tensor(ScalarType::kDouble, {1, 1, 1, 1});
  ASSERT_TRUE(h.call("aten::convolution.out", {tx, tw, h.none(), h.int_list({1, 1}), h.int_list({0, 0}),
                                               h.int_list({1, 1}), h.b(false), h.int_list({0, 0}), h.i(1), out, out})
                  .ok());
  EXPECT_EQ(h.data(out)[0], 4321);
}

TEST(CpuConvKernel, Errors) {
  Harness h;
  const char* op = "aten::convolution.out";
  int32_t tx = h.tensor(ScalarType::kFloat, {1, 3, 8, 8});
  int32_t out = h.tensor(ScalarType::kFloat, {1, 4, 8, 8});
  auto call = [&](int32_t w, int32_t bias, std::vector<int64_t> stride, int64_t groups) {
    return h.call(op, {tx, w, bias, h.int_list(stride), h.int_list({1, 1}), h.int_list({1, 1}), h.b(false),
                       h.int_list({0, 0}), h.i(groups), out, out});
  };
  Status s = call(h.tensor(ScalarType::kFloat, {4, 3, 3}), h.none(), {1, 1}, 1);
  EXPECT_OP_ERROR(s, op);
  EXPECT_NE(s.message().find("weight rank 3"), std::string::npos) << s.message();
  EXPECT_OP_ERROR(call(h.tensor(ScalarType::kFloat, {4, 2, 3, 3}), h.none(), {1, 1}, 1), op);  // channels
  EXPECT_OP_ERROR(call(h.tensor(ScalarType::kFloat, {4, 3, 3, 3}), h.none(), {0, 1}, 1), op);  // stride 0
  EXPECT_OP_ERROR(call(h.tensor(ScalarType::kFloat, {4, 3, 3, 3}), h.none(), {1, 1}, 2), op);  // groups
  EXPECT_OP_ERROR(call(h.tensor(ScalarType::kFloat, {4, 3, 3, 3}), h.tensor(ScalarType::kFloat, {5}), {1, 1}, 1), op);
  EXPECT_OP_ERROR(call(h.tensor(ScalarType::kDouble, {4, 3, 3, 3}), h.none(), {1, 1}, 1), op);  // dtype
  EXPECT_OP_ERROR(call(h.tensor(ScalarType::kFloat, {4, 3, 11, 11}), h.none(), {1, 1}, 1), op);  // too big
  EXPECT_OP_ERROR(call(h.tensor(ScalarType::kFloat, {4, 3, 3, 3}), h.none(), {1, 1, 1}, 1), op);  // param length
  EXPECT_TRUE(call(h.tensor(ScalarType::kFloat, {4, 3, 3, 3}), h.none(), {1, 1}, 1).ok());
}

}  // namespace
}  // namespace wick::cpu::testing

namespace wick::cpu::testing {
namespace {

// The fp32 fast paths (conv_gemm.cpp: packed 6 x 16 blocks, 256-row K chunks, 64-pixel tiles,
// output-channel chunks when tiles are few; conv_depthwise.cpp: stride-phase rows) against
// the double-precision direct definition above, on random geometries: odd sizes, strides,
// padding, dilation, groups, depthwise with channel multipliers, K past one chunk, at 1 and
// at 2 threads (the chunking differs).
TEST(CpuConvKernel, RandomGeometriesMatchDirectDefinition) {
  std::mt19937 gen(2026);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); };
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    for (int it = 0; it < 40; ++it) {
      ConvCase c;
      const int64_t kind = pick(0, 3);  // 0 dense, 1 grouped, 2 depthwise, 3 pointwise
      const int64_t groups = kind == 1 ? pick(2, 3) : 1;
      int64_t icg = kind == 3 && it % 4 == 0 ? pick(250, 300) : pick(1, 24);
      int64_t ocg = pick(1, 20);
      if (kind == 2) icg = 1;
      const int64_t n = pick(1, 2), kh = kind == 3 ? 1 : pick(1, 5), kw = kind == 3 ? 1 : pick(1, 5);
      const int64_t sh = kind == 3 ? 1 : pick(1, 3), sw = kind == 3 ? 1 : pick(1, 3);
      const int64_t dh = kind == 3 ? 1 : pick(1, 2), dw = kind == 3 ? 1 : pick(1, 2);
      const int64_t ph = kind == 3 ? 0 : pick(0, 2), pw = kind == 3 ? 0 : pick(0, 2);
      const int64_t channels = kind == 2 ? pick(2, 12) : groups * icg;
      const int64_t g = kind == 2 ? channels : groups;
      if (kind == 2) ocg = pick(1, 3);
      const int64_t h = pick(std::max<int64_t>(1, dh * (kh - 1) + 1 - 2 * ph), 30);
      const int64_t w = pick(std::max<int64_t>(1, dw * (kw - 1) + 1 - 2 * pw), 40);
      c.in = {n, channels, h, w};
      c.w = {g * ocg, channels / g, kh, kw};
      c.stride = {sh, sw};
      c.pad = {ph, pw};
      c.dil = {dh, dw};
      c.groups = g;
      c.bias = pick(0, 3) != 0;
      SCOPED_TRACE(::testing::Message() << "threads " << threads << " case " << it << ": in " << shape_to_string(c.in)
                                        << " w " << shape_to_string(c.w) << " stride " << sh << "," << sw << " pad "
                                        << ph << "," << pw << " dil " << dh << "," << dw << " groups " << g);
      run_conv2d(c, static_cast<uint32_t>(1000 + it));
    }
  }
  set_num_threads(0);
}

// conv_depthwise.cpp's register blocks: 4 rows x 16 columns and 8 rows x 8 columns, every
// count of leftover rows (out_h 1-17), planes 1-8 wide (one 8-column vector) and wider
// (16-column blocks and a partial last one), 3x3 and 5x5 at stride 1 and 2 with the
// padding of MobileNet (k / 2), padding larger than the kernel reach, dilation, and
// channel multipliers, at 1 and 2 threads, against the double-precision definition.
TEST(CpuConvKernel, DepthwiseBlocksAndLeftoverRows) {
  std::mt19937 gen(512);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); };
  int it = 0;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    for (int64_t out_h = 1; out_h <= 17; ++out_h) {
      ConvCase c;
      const int64_t k = pick(0, 1) ? 5 : 3, s = pick(1, 2), dil = it % 5 == 4 ? 2 : 1, mult = it % 7 == 6 ? 2 : 1;
      const int64_t pad = it % 6 == 5 ? k : k / 2 * dil;
      const int64_t out_w = it % 2 ? pick(1, 8) : pick(9, 40), channels = pick(1, 6);
      // the input size that gives out_h x out_w at this stride (plus 0..s-1 unused)
      const int64_t h = std::max<int64_t>(1, (out_h - 1) * s + dil * (k - 1) + 1 - 2 * pad + pick(0, s - 1));
      const int64_t w = std::max<int64_t>(1, (out_w - 1) * s + dil * (k - 1) + 1 - 2 * pad + pick(0, s - 1));
      c.in = {pick(1, 2), channels, h, w};
      c.w = {channels * mult, 1, k, k};
      c.stride = {s, s};
      c.pad = {pad, pad};
      c.dil = {dil, dil};
      c.groups = channels;
      c.bias = it % 3 != 0;
      SCOPED_TRACE(::testing::Message() << "threads " << threads << " case " << it << ": in " << shape_to_string(c.in)
                                        << " w " << shape_to_string(c.w) << " stride " << s << " pad " << pad
                                        << " dil " << dil);
      run_conv2d(c, static_cast<uint32_t>(3000 + it));
      ++it;
    }
  }
  set_num_threads(0);
}

// 1x1 convolutions whose pixel tiles are read in place (whole 16-column panels) with a packed
// partial last panel, or packed whole (planes 256 pixels apart), K past one 256-row chunk,
// at 1 and 2 threads; and the 3x3 stride-2
// stem whose im2col rows are gathered 8 even columns at a time (rows past 16 + 8 wide).
TEST(CpuConvKernel, PointwiseInPlacePanelsAndStride2Gather) {
  uint32_t seed = 4000;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    for (const auto& [c, p] : std::vector<std::pair<int64_t, int64_t>>{{16, 7}, {24, 9}, {300, 8}, {20, 4}, {72, 13}}) {
      for (const int64_t oc : {6, 16, 25}) {
        SCOPED_TRACE(::testing::Message() << "threads " << threads << " 1x1 " << c << " -> " << oc << " on " << p << "x"
                                          << p + 3);
        run_conv2d({{1, c, p, p + 3}, {oc, c, 1, 1}, {1, 1}, {0, 0}, {1, 1}}, seed++);
      }
    }
    // planes a multiple of 256 pixels apart take the packed panels instead (L1 aliasing)
    run_conv2d({{1, 40, 16, 16}, {24, 40, 1, 1}, {1, 1}, {0, 0}, {1, 1}}, seed++);
    run_conv2d({{2, 300, 8, 64}, {7 + 9 * threads, 300, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, false}, seed++);
    for (const int64_t w : {17, 33, 45, 224}) {
      SCOPED_TRACE(::testing::Message() << "threads " << threads << " stem 3x3/2 on 3x" << w);
      run_conv2d({{1, 3, 11, w}, {16, 3, 3, 3}, {2, 2}, {1, 1}, {1, 1}}, seed++);
      run_conv2d({{1, 3, 9, w}, {8, 3, 3, 3}, {2, 2}, {0, 0}, {1, 1}, 1, false}, seed++);
    }
  }
  set_num_threads(0);
}

}  // namespace
}  // namespace wick::cpu::testing
