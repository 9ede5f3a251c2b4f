#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

TEST(CpuNormalizationKernel, BatchNormInferenceAsInCnn) {
  Harness h;  // cpu/cnn_cpu: input [1,16,32,32], params [16], momentum 0.1, eps 1e-5
  const int64_t N = 2, C = 16, HW = 5 * 7;
  auto x = as_float32(random_values(N * C * HW, -2, 2, 80));
  auto w = as_float32(random_values(C, 0.5, 1.5, 81)), b = as_float32(random_values(C, -1, 1, 82));
  auto m = as_float32(random_values(C, -1, 1, 83)), v = as_float32(random_values(C, 0.1, 2, 84));
  int32_t tx = h.tensor(ScalarType::kFloat, {N, C, 5, 7}, x);
  int32_t tw = h.tensor(ScalarType::kFloat, {C}, w), tb = h.tensor(ScalarType::kFloat, {C}, b);
  int32_t tm = h.tensor(ScalarType::kFloat, {C}, m), tv = h.tensor(ScalarType::kFloat, {C}, v);
  int32_t o0 = h.tensor(ScalarType::kFloat, {N, C, 5, 7});
  int32_t o1 = h.tensor(ScalarType::kFloat, {0}), o2 = h.tensor(ScalarType::kFloat, {0});
  Status s = h.call("aten::_native_batch_norm_legit_no_training.out",
                    {tx, tw, tb, tm, tv, h.d(0.1), h.d(1e-5), o0, o1, o2, h.tensor_list({o0, o1, o2})});
  ASSERT_TRUE(s.ok()) << s.to_string();
  std::vector<double> want(x.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < HW; ++i) {
        const size_t k = static_cast<size_t>((n * C + c) * HW + i);
        const size_t cu = static_cast<size_t>(c);
        want[k] = (x[k] - m[cu]) / std::sqrt(v[cu] + 1e-5) * w[cu] + b[cu];
      }
  expect_near_all(h.data(o0), want, 1e-5);
  EXPECT_EQ(h.sizes(o1), (std::vector<int64_t>{0}));
}

TEST(CpuNormalizationKernel, BatchNormOptionalAffineAndErrors) {
  Harness h;
  const char* op = "aten::_native_batch_norm_legit_no_training.out";
  int32_t tx = h.tensor(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  int32_t tm = h.tensor(ScalarType::kFloat, {2}, {1, 2}), tv = h.tensor(ScalarType::kFloat, {2}, {4, 1});
  int32_t o0 = h.tensor(ScalarType::kFloat, {2, 2}), o1 = h.tensor(ScalarType::kFloat, {0}), o2 = h.tensor(ScalarType::kFloat, {0});
  // weight None, bias as the empty BYTE placeholder.
  int32_t none_b = h.tensor(ScalarType::kByte, {0});
  ASSERT_TRUE(h.call(op, {tx, h.none(), none_b, tm, tv, h.d(0.1), h.d(0), o0, o1, o2, h.tensor_list({o0, o1, o2})}).ok());
  EXPECT_EQ(h.data(o0), (std::vector<double>{0, 0, 1, 2}));
  int32_t bad = h.tensor(ScalarType::kFloat, {3});
  EXPECT_OP_ERROR(h.call(op, {tx, h.none(), h.none(), bad, tv, h.d(0.1), h.d(0), o0, o1, o2, h.tensor_list({o0, o1, o2})}), op);
  int32_t r1 = h.tensor(ScalarType::kFloat, {2});
  EXPECT_OP_ERROR(h.call(op, {r1, h.none(), h.none(), tm, tv, h.d(0.1), h.d(0), o0, o1, o2, h.tensor_list({o0, o1, o2})}), op);
}

// _native_batch_norm_legit.no_stats (nn.InstanceNorm2d's export): batch statistics per
// channel over N and H*W, biased variance; mean and invstd come back shaped [C].
TEST(CpuNormalizationKernel, BatchNormNoStatsUsesBatchStatistics) {
  Harness h;
  const char* op = "aten::_native_batch_norm_legit.no_stats_out";
  const int64_t N = 3, C = 4, HW = 6 * 5;
  auto x = as_float32(random_values(N * C * HW, 1, 6, 90));  // offset mean: checks the variance's two passes
  auto b = as_float32(random_values(C, -1, 1, 91));
  int32_t tx = h.tensor(ScalarType::kFloat, {N, C, 6, 5}, x), tb = h.tensor(ScalarType::kFloat, {C}, b);
  int32_t o0 = h.tensor(ScalarType::kFloat, {N, C, 6, 5}), o1 = h.tensor(ScalarType::kFloat, {C}), o2 = h.tensor(ScalarType::kFloat, {C});
  // weight None: scale 1.
  Status s = h.call(op, {tx, h.none(), tb, h.b(true), h.d(0.1), h.d(1e-5), o0, o1, o2, h.tensor_list({o0, o1, o2})});
  ASSERT_TRUE(s.ok()) << s.to_string();
  std::vector<double> want(x.size()), mean(C), invstd(C);
  for (int64_t c = 0; c < C; ++c) {
    double m = 0, v = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t i = 0; i < HW; ++i) m += x[static_cast<size_t>((n * C + c) * HW + i)] / (N * HW);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t i = 0; i < HW; ++i) {
        const double d = x[static_cast<size_t>((n * C + c) * HW + i)] - m;
        v += d * d / (N * HW);
      }
    mean[static_cast<size_t>(c)] = m;
    invstd[static_cast<size_t>(c)] = 1 / std::sqrt(v + 1e-5);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t i = 0; i < HW; ++i) {
        const size_t k = static_cast<size_t>((n * C + c) * HW + i);
        want[k] = (x[k] - m) * invstd[static_cast<size_t>(c)] + b[static_cast<size_t>(c)];
      }
  }
  expect_near_all(h.data(o0), want, 1e-5);
  expect_near_all(h.data(o1), mean, 1e-6);
  expect_near_all(h.data(o2), invstd, 1e-5);
  EXPECT_EQ(h.sizes(o1), (std::vector<int64_t>{C}));
  // A weight of the wrong length, and a 1-D input, are errors naming the op.
  int32_t bad_w = h.tensor(ScalarType::kFloat, {C + 1});
  EXPECT_OP_ERROR(h.call(op, {tx, bad_w, tb, h.b(true), h.d(0.1), h.d(1e-5), o0, o1, o2, h.tensor_list({o0, o1, o2})}), op);
  int32_t r1 = h.tensor(ScalarType::kFloat, {4});
  EXPECT_OP_ERROR(h.call(op, {r1, h.none(), h.none(), h.b(true), h.d(0.1), h.d(1e-5), o0, o1, o2, h.tensor_list({o0, o1, o2})}), op);
}

// The same op against PyTorch (scripts/export_ops/batch_norm_no_stats_ref.py, torch 2.11 on
// the device machine: torch.ops.aten._native_batch_norm_legit.no_stats, fp32, CPU), batch 2.
TEST(CpuNormalizationKernel, BatchNormNoStatsMatchesPyTorch) {
  Harness h;
  std::vector<double> x(2 * 3 * 4 * 5);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)) * 3 + 0.01 * static_cast<double>(i));
  const std::vector<double> want_out = {
      -0.287112623, -0.0184572116, 0.214169115, 0.379613489, 0.455815941, 0.432794929, 0.313998431, 0.11583703,
      -0.134536937, -0.402904391, -0.652610958, -0.849527895, -0.966671348, -0.987854421, -0.909877837, -0.742963314,
      -0.50936985, -0.240381137, 0.0279286206, 0.259577036, 1.04225373, 1.17969334, 1.13378882, 0.911366284,
      0.543143034, 0.0795695186, -0.415998369, -0.875874519, -1.2372036, -1.45046806, -1.48619032, -1.33892214,
      -1.02798235, -0.594841778, -0.0975107476, 0.397312641, 0.823269665, 1.12332237, 1.25747347, 1.20817924,
      1.72498846, 1.12096226, 0.363232911, -0.444644392, -1.19232738, -1.77762079, -2.12030792, -2.17300797,
      -1.92758811, -1.41626501, -0.707243681, 0.104512841, 0.910137057, 1.60159147, 2.08629084, 2.2996335,
      2.21374416, 1.84124744, 1.23355913, 0.473926932, -0.292513311, -0.540147603, -0.73327589, -0.845427096,
      -0.861089945, -0.777812421, -0.606533706, -0.370103329, -0.100189015, 0.167009741, 0.395660967, 0.555149853,
      0.624222517, 0.593862295, 0.468510568, 0.265465111, 0.0125393085, -0.255702376, -0.502622664, -0.69446981,
      -1.22638464, -1.25190771, -1.09487069, -0.77591449, -0.337594986, 0.161376551, 0.654080033, 1.0744437,
      1.36618662, 1.49043596, 1.43098843, 1.19650352, 0.819330871, 0.351132154, -0.144110605, -0.598755419,
      -0.950654805, -1.1515677, -1.17368805, -1.01340878, -1.00510228, -0.287735611, 0.526583433, 1.32864046,
      2.01088071, 2.48196626, 2.67913747, 2.57670856, 2.18954229, 1.57103992, 0.805912554, -0.00128329592,
      -0.740297616, -1.3101083, -1.63259447, -1.66310894, -1.39652193, -0.867914796, -0.147832155, 0.66726613};
  const std::vector<double> want_mean = {0.355008394, 0.596074045, 0.835933685};
  const std::vector<double> want_invstd = {0.490763724, 0.453143865, 0.492524475};
  int32_t tx = h.tensor(ScalarType::kFloat, {2, 3, 4, 5}, x);
  int32_t tw = h.tensor(ScalarType::kFloat, {3}, {0.5, 1.0, 1.5}), tb = h.tensor(ScalarType::kFloat, {3}, {-0.2, 0.0, 0.3});
  int32_t o0 = h.tensor(ScalarType::kFloat, {2, 3, 4, 5}), o1 = h.tensor(ScalarType::kFloat, {3}), o2 = h.tensor(ScalarType::kFloat, {3});
  Status s = h.call("aten::_native_batch_norm_legit.no_stats_out",
                    {tx, tw, tb, h.b(true), h.d(0.1), h.d(1e-5), o0, o1, o2, h.tensor_list({o0, o1, o2})});
  ASSERT_TRUE(s.ok()) << s.to_string();
  expect_near_all(h.data(o0), want_out, 2e-6);
  expect_near_all(h.data(o1), want_mean, 1e-6);
  expect_near_all(h.data(o2), want_invstd, 1e-6);
}

TEST(CpuNormalizationKernel, LayerNorm) {
  Harness h;
  auto x = as_float32(random_values(3 * 2 * 5, -2, 2, 85));
  auto w = as_float32(random_values(10, 0.5, 1.5, 86)), b = as_float32(random_values(10, -1, 1, 87));
  int32_t tx = h.tensor(ScalarType::kFloat, {3, 2, 5}, x);
  int32_t tw = h.tensor(ScalarType::kFloat, {2, 5}, w), tb = h.tensor(ScalarType::kFloat, {2, 5}, b);
  int32_t o0 = h.tensor(ScalarType::kFloat, {3, 2, 5}), o1 = h.tensor(ScalarType::kFloat, {3, 1, 1}),
          o2 = h.tensor(ScalarType::kFloat, {3, 1, 1});
  Status s = h.call("aten::native_layer_norm.out",
                    {tx, h.int_list({2, 5}), tw, tb, h.d(1e-5), o0, o1, o2, h.tensor_list({o0, o1, o2})});
  ASSERT_TRUE(s.ok()) << s.to_string();
  std::vector<double> want(30), mean(3), rstd(3);
  for (size_t r = 0; r < 3; ++r) {
    double m = 0, v = 0;
    for (size_t i = 0; i < 10; ++i) m += x[r * 10 + i] / 10;
    for (size_t i = 0; i < 10; ++i) v += (x[r * 10 + i] - m) * (x[r * 10 + i] - m) / 10;
    mean[r] = m;
    rstd[r] = 1 / std::sqrt(v + 1e-5);
    for (size_t i = 0; i < 10; ++i) want[r * 10 + i] = (x[r * 10 + i] - m) * rstd[r] * w[i] + b[i];
  }
  expect_near_all(h.data(o0), want, 1e-5);
  expect_near_all(h.data(o1), mean, 1e-6);
  expect_near_all(h.data(o2), rstd, 1e-5);
  EXPECT_OP_ERROR(h.call("aten::native_layer_norm.out",
                         {tx, h.int_list({5, 2}), tw, tb, h.d(1e-5), o0, o1, o2, h.tensor_list({o0, o1, o2})}),
                  "aten::native_layer_norm.out");
}

TEST(CpuNormalizationKernel, GroupNorm) {
  Harness h;
  const int64_t N = 2, C = 4, HW = 3, G = 2;
  auto x = as_float32(random_values(N * C * HW, -2, 2, 88));
  int32_t tx = h.tensor(ScalarType::kFloat, {N, C, HW}, x);
  int32_t tw = h.tensor(ScalarType::kFloat, {C}, {1, 2, 3, 4}), tb = h.tensor(ScalarType::kFloat, {C}, {0, 0, 1, 1});
  int32_t o0 = h.tensor(ScalarType::kFloat, {N, C, HW}), o1 = h.tensor(ScalarType::kFloat, {N, G}),
          o2 = h.tensor(ScalarType::kFloat, {N, G});
  Status s = h.call("aten::native_group_norm.out", {tx, tw, tb, h.i(N), h.i(C), h.i(HW), h.i(G), h.d(1e-5), o0, o1, o2,
                                                    h.tensor_list({o0, o1, o2})});
  ASSERT_TRUE(s.ok()) << s.to_string();
  std::vector<double> want(x.size());
  const double wv[] = {1, 2, 3, 4}, bv[] = {0, 0, 1, 1};
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < G; ++g) {
      const size_t base = static_cast<size_t>((n * C + g * 2) * HW), len = 2 * HW;
      double m = 0, v = 0;
      for (size_t i = 0; i < len; ++i) m += x[base + i] / len;
      for (size_t i = 0; i < len; ++i) v += (x[base + i] - m) * (x[base + i] - m) / len;
      for (size_t i = 0; i < len; ++i) {
        const size_t c = static_cast<size_t>(g * 2) + i / HW;
        want[base + i] = (x[base + i] - m) / std::sqrt(v + 1e-5) * wv[c] + bv[c];
      }
    }
  expect_near_all(h.data(o0), want, 1e-5);
}

}  // namespace
}  // namespace wick::cpu::testing
