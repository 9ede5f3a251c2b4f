// Randomized test of et_vk.sdpa (ops/attention, sdpa_plain.wgsl) against a CPU reference of
// ExecuTorch's sdpa_impl (custom_ops_lib.py): softmax(q k^T * scale + mask) v on [B,H,S,D],
// scale None (1/sqrt(D)) or given, no mask / [Sq,Skv] / [B,H,Sq,Skv] masks, and k, v with one
// head shared by every query head (torch.matmul's broadcast); 1e-5 absolute.
#include <gtest/gtest.h>

#include <cmath>

#include "single_op.h"

namespace wick {
namespace {

TEST(WebGpuSdpaPlain, MatchesSoftmaxAttention) {
  std::mt19937 rng(17);
  struct Cfg {
    int64_t b, h, hk, sq, skv, d;
    int mask;  // 0 none, 1 [Sq,Skv], 2 [B,H,Sq,Skv]
    bool scale;
  };
  for (const Cfg& c : {Cfg{1, 2, 2, 3, 5, 8, 0, false}, Cfg{2, 3, 1, 4, 6, 4, 1, true}, Cfg{1, 2, 2, 2, 7, 16, 2, false}}) {
    Tensor q = test::random_tensor(ScalarType::kFloat, {c.b, c.h, c.sq, c.d}, rng);
    Tensor k = test::random_tensor(ScalarType::kFloat, {c.b, c.hk, c.skv, c.d}, rng);
    Tensor v = test::random_tensor(ScalarType::kFloat, {c.b, c.hk, c.skv, c.d}, rng);
    std::vector<int64_t> ms = c.mask == 1 ? std::vector<int64_t>{c.sq, c.skv} : std::vector<int64_t>{c.b, c.h, c.sq, c.skv};
    Tensor m = test::random_tensor(ScalarType::kFloat, ms, rng, -3, 0);
    test::VkGraphBuilder b;
    int iq = b.input(ScalarType::kFloat, q.sizes), ik = b.input(ScalarType::kFloat, k.sizes), iv = b.input(ScalarType::kFloat, v.sizes);
    int out = b.tensor(ScalarType::kFloat, q.sizes);
    b.op("et_vk.sdpa.default", {iq, ik, iv, c.mask ? b.constant(m) : b.none(), c.scale ? b.double_value(0.7) : b.none(), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(q), Value::make_tensor(k), Value::make_tensor(v)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    const Tensor& got = (*r)[0].tensor;
    ASSERT_EQ(got.sizes, q.sizes);
    const double scale = c.scale ? 0.7 : 1.0 / std::sqrt(double(c.d));
    const float *qs = q.data_as<float>(), *ks = k.data_as<float>(), *vs = v.data_as<float>(), *mk = m.data_as<float>();
    for (int64_t bb = 0; bb < c.b; ++bb)
      for (int64_t hh = 0; hh < c.h; ++hh)
        for (int64_t i = 0; i < c.sq; ++i) {
          const int64_t kvh = c.hk == 1 ? 0 : hh, kb = (bb * c.hk + kvh) * c.skv * c.d;
          const int64_t qb = ((bb * c.h + hh) * c.sq + i) * c.d;
          std::vector<double> s(static_cast<size_t>(c.skv));
          double mx = -1e300, sum = 0;
          for (int64_t j = 0; j < c.skv; ++j) {
            double dot = 0;
            for (int64_t e = 0; e < c.d; ++e) dot += double(qs[qb + e]) * ks[kb + j * c.d + e];
            dot *= scale;
            if (c.mask == 1) dot += mk[i * c.skv + j];
            if (c.mask == 2) dot += mk[((bb * c.h + hh) * c.sq + i) * c.skv + j];
            s[static_cast<size_t>(j)] = dot;
            mx = std::max(mx, dot);
          }
          for (double& x : s) sum += (x = std::exp(x - mx));
          for (int64_t e = 0; e < c.d; ++e) {
            double acc = 0;
            for (int64_t j = 0; j < c.skv; ++j) acc += s[static_cast<size_t>(j)] / sum * vs[kb + j * c.d + e];
            ASSERT_NEAR(got.data_as<float>()[qb + e], acc, 1e-5) << "b " << bb << " h " << hh << " i " << i << " e " << e;
          }
        }
  }
}

TEST(WebGpuSdpaPlain, MismatchedMaskIsNamed) {
  test::VkGraphBuilder b;
  int iq = b.input(ScalarType::kFloat, {1, 1, 2, 4}), ik = b.input(ScalarType::kFloat, {1, 1, 3, 4});
  int iv = b.input(ScalarType::kFloat, {1, 1, 3, 4});
  int out = b.tensor(ScalarType::kFloat, {1, 1, 2, 4});
  b.op("et_vk.sdpa.default", {iq, ik, iv, b.constant(Tensor::make_owned(ScalarType::kFloat, {2, 2})), b.none(), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1, 1, 2, 4})),
                  Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1, 1, 3, 4})),
                  Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1, 1, 3, 4}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("attn_mask"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace wick
