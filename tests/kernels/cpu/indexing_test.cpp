#include <gtest/gtest.h>

#include <numeric>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

TEST(CpuIndexingKernel, IndexRowOfMaskAsInLlamaKv) {
  Harness h;  // models/llama_et_kv: index.Tensor_out(mask bool[32,32], [input_pos long[1]])
  std::vector<double> mask(32 * 32);
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c) mask[static_cast<size_t>(r * 32 + c)] = c <= r;
  int32_t tm = h.tensor(ScalarType::kBool, {32, 32}, mask);
  int32_t pos = h.tensor(ScalarType::kLong, {1}, {5});
  int32_t out = h.tensor(ScalarType::kBool, {1, 32});
  ASSERT_TRUE(h.call("aten::index.Tensor_out", {tm, h.optional_tensor_list({pos}), out, out}).ok());
  std::vector<double> want(mask.begin() + 5 * 32, mask.begin() + 6 * 32);
  EXPECT_EQ(h.data(out), want);
  // Negative indices count from the end; out of range is an error.
  store_double(h.t(pos), 0, -1);
  ASSERT_TRUE(h.call("aten::index.Tensor_out", {tm, h.optional_tensor_list({pos}), out, out}).ok());
  EXPECT_EQ(h.data(out), std::vector<double>(mask.begin() + 31 * 32, mask.end()));
  store_double(h.t(pos), 0, 32);
  EXPECT_OP_ERROR(h.call("aten::index.Tensor_out", {tm, h.optional_tensor_list({pos}), out, out}), "aten::index.Tensor_out");
  store_double(h.t(pos), 0, -33);
  EXPECT_OP_ERROR(h.call("aten::index.Tensor_out", {tm, h.optional_tensor_list({pos}), out, out}), "aten::index.Tensor_out");
}

TEST(CpuIndexingKernel, BroadcastIndicesAsInLlamaHf) {
  Harness h;  // models/llama_hf_tiny: self long[1,8], indices [long[1,1,1,1], long[1,1,8,1]]
  int32_t self = h.tensor(ScalarType::kLong, {1, 8}, {10, 11, 12, 13, 14, 15, 16, 17});
  int32_t i0 = h.tensor(ScalarType::kLong, {1, 1, 1, 1}, {0});
  int32_t i1 = h.tensor(ScalarType::kLong, {1, 1, 8, 1}, {7, 6, 5, 4, 3, 2, 1, 0});
  int32_t out = h.tensor(ScalarType::kLong, {1, 1, 8, 1});
  ASSERT_TRUE(h.call("aten::index.Tensor_out", {self, h.optional_tensor_list({i0, i1}), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{17, 16, 15, 14, 13, 12, 11, 10}));
  int32_t i2 = h.tensor(ScalarType::kLong, {1, 1, 1, 8}, {0, 2, 4, 6, 1, 3, 5, 7});
  int32_t out2 = h.tensor(ScalarType::kLong, {1, 1, 1, 8});
  ASSERT_TRUE(h.call("aten::index.Tensor_out", {self, h.optional_tensor_list({i0, i2}), out2, out2}).ok());
  EXPECT_EQ(h.data(out2), (std::vector<double>{10, 12, 14, 16, 11, 13, 15, 17}));
}

TEST(CpuIndexingKernel, NoneSlicesAndPlacement) {
  Harness h;
  // x[2,3,4] = arange; x[:, idx] with idx [2] -> [2,2,4] (adjacent: index dims in place).
  int32_t x = h.tensor(ScalarType::kFloat, {2, 3, 4}, iota(24));
  int32_t idx = h.tensor(ScalarType::kInt, {2}, {2, 0});
  int32_t none_placeholder = h.tensor(ScalarType::kByte, {0});
  int32_t out = h.tensor(ScalarType::kFloat, {2, 2, 4});
  ASSERT_TRUE(h.call("aten::index.Tensor_out", {x, h.optional_tensor_list({none_placeholder, idx}), out, out}).ok());
  std::vector<double> want;
  for (int a = 0; a < 2; ++a)
    for (int j : {2, 0})
      for (int c = 0; c < 4; ++c) want.push_back(a * 12 + j * 4 + c);
  EXPECT_EQ(h.data(out), want);
  // x[i, :, k] with i, k broadcasting to [2]: non-adjacent, so the index dims go first -> [2,3].
  int32_t i = h.tensor(ScalarType::kLong, {2}, {1, 0});
  int32_t k = h.tensor(ScalarType::kLong, {1}, {3});
  int32_t out2 = h.tensor(ScalarType::kFloat, {2, 3});
  ASSERT_TRUE(h.call("aten::index.Tensor_out", {x, h.optional_tensor_list({i, -1, k}), out2, out2}).ok());
  EXPECT_EQ(h.data(out2), (std::vector<double>{15, 19, 23, 3, 7, 11}));
  // Too many indices.
  int32_t out3 = h.tensor(ScalarType::kFloat, {2});
  EXPECT_OP_ERROR(h.call("aten::index.Tensor_out", {x, h.optional_tensor_list({i, i, i, i}), out3, out3}),
                  "aten::index.Tensor_out");
  // Index tensors must be integer or bool.
  int32_t fidx = h.tensor(ScalarType::kFloat, {1}, {0});
  EXPECT_OP_ERROR(h.call("aten::index.Tensor_out", {x, h.optional_tensor_list({fidx}), out3, out3}),
                  "aten::index.Tensor_out");
  // Incompatible index shapes.
  int32_t i3 = h.tensor(ScalarType::kLong, {3}, {0, 1, 0});
  EXPECT_OP_ERROR(h.call("aten::index.Tensor_out", {x, h.optional_tensor_list({i, i3}), out3, out3}),
                  "aten::index.Tensor_out");
}

TEST(CpuIndexingKernel, BoolMask) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  int32_t m = h.tensor(ScalarType::kBool, {2, 3}, {1, 0, 1, 0, 0, 1});
  int32_t out = h.dynamic(ScalarType::kFloat, {6});
  ASSERT_TRUE(h.call("aten::index.Tensor_out", {x, h.optional_tensor_list({m}), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{1, 3, 6}));
  // A mask over dim 1 only.
  int32_t m1 = h.tensor(ScalarType::kBool, {3}, {0, 1, 1});
  int32_t out2 = h.tensor(ScalarType::kFloat, {2, 2});
  ASSERT_TRUE(h.call("aten::index.Tensor_out", {x, h.optional_tensor_list({-1, m1}), out2, out2}).ok());
  EXPECT_EQ(h.data(out2), (std::vector<double>{2, 3, 5, 6}));
  int32_t bad = h.tensor(ScalarType::kBool, {2});
  EXPECT_OP_ERROR(h.call("aten::index.Tensor_out", {x, h.optional_tensor_list({-1, bad}), out2, out2}),
                  "aten::index.Tensor_out");
}

TEST(CpuIndexingKernel, IndexPutKvCache) {
  Harness h;  // models/llama_et_kv: index_put(cache[1,2,32,16], [None, None, pos long[1]], v[2,1,16])
  auto cache = iota(2 * 32 * 16);
  auto vals = random_values(2 * 16, -1, 1, 90);
  int32_t tc = h.tensor(ScalarType::kFloat, {1, 2, 32, 16}, cache);
  int32_t pos = h.tensor(ScalarType::kLong, {1}, {3});
  int32_t tv = h.tensor(ScalarType::kFloat, {2, 1, 16}, vals);
  int32_t out = h.tensor(ScalarType::kFloat, {1, 2, 32, 16});
  Status s = h.call("aten::index_put.out", {tc, h.optional_tensor_list({-1, -1, pos}), tv, h.b(false), out, out});
  ASSERT_TRUE(s.ok()) << s.to_string();
  auto want = as_float32(cache);
  for (int hd = 0; hd < 2; ++hd)
    for (int d = 0; d < 16; ++d) want[static_cast<size_t>((hd * 32 + 3) * 16 + d)] = static_cast<float>(vals[static_cast<size_t>(hd * 16 + d)]);
  EXPECT_EQ(h.data(out), want);
  EXPECT_EQ(h.data(tc), as_float32(cache));  // self untouched
  // Out-of-range position.
  store_double(h.t(pos), 0, 32);
  EXPECT_OP_ERROR(h.call("aten::index_put.out", {tc, h.optional_tensor_list({-1, -1, pos}), tv, h.b(false), out, out}),
                  "aten::index_put.out");
  // Values that do not broadcast to the indexed shape [1,2,1,16].
  store_double(h.t(pos), 0, 0);
  int32_t bad = h.tensor(ScalarType::kFloat, {3, 16});
  EXPECT_OP_ERROR(h.call("aten::index_put.out", {tc, h.optional_tensor_list({-1, -1, pos}), bad, h.b(false), out, out}),
                  "aten::index_put.out");
  int32_t dbl = h.tensor(ScalarType::kDouble, {2, 1, 16});
  EXPECT_OP_ERROR(h.call("aten::index_put.out", {tc, h.optional_tensor_list({-1, -1, pos}), dbl, h.b(false), out, out}),
                  "aten::index_put.out");
}

TEST(CpuIndexingKernel, IndexPutAccumulateAndInPlace) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kLong, {5}, {0, 0, 0, 0, 0});
  int32_t idx = h.tensor(ScalarType::kLong, {4}, {1, 3, 1, -1});
  int32_t v = h.tensor(ScalarType::kLong, {4}, {10, 20, 30, 40});
  int32_t out = h.tensor(ScalarType::kLong, {5});
  ASSERT_TRUE(h.call("aten::index_put.out", {x, h.optional_tensor_list({idx}), v, h.b(true), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0, 40, 0, 20, 40}));
  // Without accumulate the last write wins; a scalar value broadcasts; out may be self.
  int32_t one = h.tensor(ScalarType::kLong, {}, {7});
  ASSERT_TRUE(h.call("aten::index_put.out", {x, h.optional_tensor_list({idx}), one, h.b(false), x, x}).ok());
  EXPECT_EQ(h.data(x), (std::vector<double>{0, 7, 0, 7, 7}));
  // Boolean mask put.
  int32_t m = h.tensor(ScalarType::kBool, {5}, {1, 0, 0, 0, 1});
  int32_t mv = h.tensor(ScalarType::kLong, {2}, {-1, -2});
  ASSERT_TRUE(h.call("aten::index_put.out", {x, h.optional_tensor_list({m}), mv, h.b(false), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{-1, 7, 0, 7, -2}));
}

TEST(CpuIndexingKernel, IndexSelectEmbeddingGather) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {3, 4}, iota(12));
  int32_t idx = h.tensor(ScalarType::kLong, {2}, {3, 0});
  int32_t out = h.tensor(ScalarType::kFloat, {3, 2});
  ASSERT_TRUE(h.call("aten::index_select.out", {x, h.i(-1), idx, out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{3, 0, 7, 4, 11, 8}));
  int32_t bad = h.tensor(ScalarType::kLong, {1}, {4});
  int32_t out1 = h.tensor(ScalarType::kFloat, {3, 1});
  EXPECT_OP_ERROR(h.call("aten::index_select.out", {x, h.i(1), bad, out1, out1}), "aten::index_select.out");

  int32_t tok = h.tensor(ScalarType::kLong, {2, 2}, {2, 0, 1, 2});
  int32_t emb = h.tensor(ScalarType::kFloat, {2, 2, 4});
  ASSERT_TRUE(h.call("aten::embedding.out", {x, tok, h.i(-1), h.b(false), h.b(false), emb, emb}).ok());
  EXPECT_EQ(h.data(emb), (std::vector<double>{8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  store_double(h.t(tok), 3, 3);
  EXPECT_OP_ERROR(h.call("aten::embedding.out", {x, tok, h.i(-1), h.b(false), h.b(false), emb, emb}), "aten::embedding.out");

  int32_t gi = h.tensor(ScalarType::kLong, {2, 2}, {0, 3, 1, 1});
  int32_t gout = h.tensor(ScalarType::kFloat, {2, 2});
  ASSERT_TRUE(h.call("aten::gather.out", {x, h.i(1), gi, h.b(false), gout, gout}).ok());
  EXPECT_EQ(h.data(gout), (std::vector<double>{0, 3, 5, 5}));
  EXPECT_OP_ERROR(h.call("aten::gather.out", {x, h.i(0), gi, h.b(false), gout, gout}), "aten::gather.out");  // 3 >= 3 rows
  int32_t gi0 = h.tensor(ScalarType::kLong, {2, 2}, {0, 2, 1, 1});
  ASSERT_TRUE(h.call("aten::gather.out", {x, h.i(0), gi0, h.b(false), gout, gout}).ok());
  EXPECT_EQ(h.data(gout), (std::vector<double>{0, 9, 4, 5}));
  store_double(h.t(gi), 0, 9);
  EXPECT_OP_ERROR(h.call("aten::gather.out", {x, h.i(1), gi, h.b(false), gout, gout}), "aten::gather.out");
}

// Index tensors [N, 1] and [1, N] broadcast to N^2 elements: with N = 2^16 and two 2x2
// tensors around them, the offsets alone were 32 GiB, allocated before any check.
TEST(CpuIndexingKernel, BroadcastIndicesBeyondEveryTensorAreAnError) {
  Harness h;
  const int64_t n = 1 << 16;
  int32_t self = h.tensor(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  int32_t rows = h.tensor(ScalarType::kLong, {n, 1});  // zeros: in bounds
  int32_t cols = h.tensor(ScalarType::kLong, {1, n});
  int32_t out = h.tensor(ScalarType::kFloat, {2, 2});
  EXPECT_OP_ERROR(h.call("aten::index.Tensor_out", {self, h.optional_tensor_list({rows, cols}), out, out}),
                  "aten::index.Tensor_out");
  int32_t v = h.tensor(ScalarType::kFloat, {}, {5});
  EXPECT_OP_ERROR(h.call("aten::index_put.out", {self, h.optional_tensor_list({rows, cols}), v, h.b(false), out, out}),
                  "aten::index_put.out");
  // Broadcasting within what the tensors hold still works: x[[0], [[0], [1]]] = 7.
  int32_t r1 = h.tensor(ScalarType::kLong, {1}, {0});
  int32_t c2 = h.tensor(ScalarType::kLong, {2, 1}, {0, 1});
  int32_t seven = h.tensor(ScalarType::kFloat, {}, {7});
  ASSERT_TRUE(h.call("aten::index_put.out", {self, h.optional_tensor_list({r1, c2}), seven, h.b(false), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{7, 7, 3, 4}));
}

}  // namespace
}  // namespace wick::cpu::testing
