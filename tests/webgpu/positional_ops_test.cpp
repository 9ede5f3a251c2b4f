// Randomized tests of ops/positional (et_vk.apply_rotary_emb_interleaved, et_vk.grid_priors)
// against CPU computations of the reference implementations in ExecuTorch's
// backends/vulkan/custom_ops_lib.py. RoPE within 1e-6 (two products and a sum in f32);
// grid priors exact (small integers plus an offset, times the stride).
#include <gtest/gtest.h>

#include <cmath>

#include "single_op.h"

namespace wick {
namespace {

TEST(WebGpuPositionalOps, ApplyRotaryEmbInterleavedRandomShapes) {
  std::mt19937 rng(31);
  struct Cfg {
    std::vector<int64_t> x, freqs;
  };
  // freqs_cis at any rank holding N x C values: [N, C] and [1, N, C/2, 2].
  for (const Cfg& c : {Cfg{{1, 8, 16}, {8, 16}}, Cfg{{2, 5, 6}, {1, 5, 3, 2}}, Cfg{{3, 33, 64}, {33, 64}}}) {
    test::VkGraphBuilder b;
    int x = b.input(ScalarType::kFloat, c.x);
    int f = b.input(ScalarType::kFloat, c.freqs);
    int out = b.tensor(ScalarType::kFloat, c.x);
    b.op("et_vk.apply_rotary_emb_interleaved.default", {x, f, out});
    b.output(out);
    Tensor tx = test::random_tensor(ScalarType::kFloat, c.x, rng);
    Tensor tf = test::random_tensor(ScalarType::kFloat, c.freqs, rng, -1, 1);
    auto r = b.run({Value::make_tensor(tx), Value::make_tensor(tf)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    const Tensor& got = (*r)[0].tensor;
    ASSERT_EQ(got.sizes, c.x);
    const int64_t nc = c.x[1] * c.x[2];
    const float* xs = tx.data_as<float>();
    const float* fs = tf.data_as<float>();
    for (int64_t e = 0; e < tx.numel(); e += 2) {
      const int64_t k = e % nc;
      const float cs = fs[k], sn = fs[k + 1];
      const float want_r = xs[e] * cs - xs[e + 1] * sn, want_i = xs[e] * sn + xs[e + 1] * cs;
      ASSERT_NEAR(got.data_as<float>()[e], want_r, 1e-6) << e;
      ASSERT_NEAR(got.data_as<float>()[e + 1], want_i, 1e-6) << e;
    }
  }
}

TEST(WebGpuPositionalOps, ApplyRotaryEmbInterleavedWrongFreqsIsNamed) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {1, 4, 8});
  int f = b.input(ScalarType::kFloat, {4, 6});
  int out = b.tensor(ScalarType::kFloat, {1, 4, 8});
  b.op("et_vk.apply_rotary_emb_interleaved.default", {x, f, out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1, 4, 8})),
                  Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {4, 6}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("freqs_cis [4, 6]"), std::string::npos) << r.status().message();
}

TEST(WebGpuPositionalOps, GridPriorsMatchesReference) {
  struct Cfg {
    std::vector<int64_t> x;
    int64_t stride;
    double offset;
  };
  for (const Cfg& c : {Cfg{{1, 4, 5, 6}, 8, 0.5}, Cfg{{2, 3, 1, 1}, 32, 0.0}, Cfg{{1, 2, 40, 23}, 16, 0.25}}) {
    const int64_t h = c.x[2], w = c.x[3];
    test::VkGraphBuilder b;
    int x = b.input(ScalarType::kFloat, c.x);
    int out = b.tensor(ScalarType::kFloat, {h * w, 2});
    b.op("et_vk.grid_priors.default", {x, b.int_value(c.stride), b.double_value(c.offset), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, c.x))});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    const Tensor& got = (*r)[0].tensor;
    ASSERT_EQ(got.sizes, (std::vector<int64_t>{h * w, 2}));
    const float off = static_cast<float>(c.offset), st = static_cast<float>(c.stride);
    for (int64_t i = 0; i < h * w; ++i) {
      ASSERT_EQ(got.data_as<float>()[2 * i], (static_cast<float>(i % w) + off) * st) << i;
      ASSERT_EQ(got.data_as<float>()[2 * i + 1], (static_cast<float>(i / w) + off) * st) << i;
    }
  }
}

}  // namespace
}  // namespace wick
