// Randomized test of et_vk.embedding_q4gsw (ops/quantized) against a CPU reference written
// from ExecuTorch's embedding_q4gsw_impl (backends/vulkan/custom_ops_lib.py): nibble pairs
// unpacked as (low, high) with is_linear_weight, else (high, low), minus 8, times the
// row's group scale, then a plain embedding lookup. Both nibble orders, 1-D and 2-D
// indices, a group size that does not divide dim; exact within fp32 rounding (1e-6).
#include <gtest/gtest.h>

#include <cmath>

#include "single_op.h"

namespace wick {
namespace {

TEST(WebGpuEmbeddingQ4gsw, MatchesExecuTorchReference) {
  std::mt19937 rng(7);
  struct Cfg {
    int64_t vocab, dim, group_size;
    std::vector<int64_t> idx_shape;
    bool linear;
  };
  for (const Cfg& c : {Cfg{11, 64, 32, {5}, true}, Cfg{11, 64, 32, {5}, false}, Cfg{7, 48, 32, {2, 3}, true},
                       Cfg{5, 32, 8, {1, 4}, false}}) {
    const int64_t bytes = c.dim / 2, groups = (c.dim + c.group_size - 1) / c.group_size;
    Tensor w = Tensor::make_owned(ScalarType::kByte, {c.vocab, bytes});
    std::uniform_int_distribution<int> byte(0, 255);
    for (int64_t i = 0; i < w.numel(); ++i) w.data_as<uint8_t>()[i] = static_cast<uint8_t>(byte(rng));
    Tensor s = test::random_tensor(ScalarType::kFloat, {c.vocab, groups}, rng, 0.01, 0.2);
    Tensor idx = Tensor::make_owned(ScalarType::kInt, c.idx_shape);
    std::uniform_int_distribution<int> tok(0, static_cast<int>(c.vocab - 1));
    for (int64_t i = 0; i < idx.numel(); ++i) idx.data_as<int32_t>()[i] = tok(rng);

    test::VkGraphBuilder b;
    int in = b.input(ScalarType::kInt, c.idx_shape);
    std::vector<int64_t> os = c.idx_shape;
    os.push_back(c.dim);
    int out = b.tensor(ScalarType::kFloat, os);
    b.op("et_vk.embedding_q4gsw.default",
         {b.constant(w), b.constant(s), b.int_value(c.group_size), in, b.bool_value(c.linear), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(idx)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    const Tensor& got = (*r)[0].tensor;
    ASSERT_EQ(got.sizes, os);
    const uint8_t* wb = w.data_as<uint8_t>();
    for (int64_t i = 0; i < idx.numel(); ++i) {
      const int64_t t = idx.data_as<int32_t>()[i];
      for (int64_t d = 0; d < c.dim; ++d) {
        const uint8_t byte = wb[t * bytes + d / 2];
        const int hi = (byte >> 4) - 8, lo = (byte & 0xF) - 8;
        const int q = (d % 2 == 0) == c.linear ? lo : hi;
        const float want = static_cast<float>(q) * s.data_as<float>()[t * groups + d / c.group_size];
        ASSERT_NEAR(got.data_as<float>()[i * c.dim + d], want, 1e-6)
            << "linear " << c.linear << " token " << t << " d " << d;
      }
    }
  }
}

TEST(WebGpuEmbeddingQ4gsw, ScalesThatDoNotCoverAreNamed) {
  test::VkGraphBuilder b;
  int in = b.input(ScalarType::kInt, {3});
  int out = b.tensor(ScalarType::kFloat, {3, 64});
  Tensor w = Tensor::make_owned(ScalarType::kByte, {4, 32});
  Tensor s = Tensor::make_owned(ScalarType::kFloat, {4, 1});  // 1 group of 32 < dim 64
  b.op("et_vk.embedding_q4gsw.default", {b.constant(w), b.constant(s), b.int_value(32), in, b.bool_value(true), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kInt, {3}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("do not cover"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace wick
