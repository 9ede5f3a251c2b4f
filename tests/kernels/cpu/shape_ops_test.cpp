#include <gtest/gtest.h>

#include <numeric>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

std::vector<double> iota(size_t n, double start = 0) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(CpuShapeKernel, PermuteTransposeAsInMlp) {
  Harness h;  // cpu/mlp_cpu: permute_copy(w[10,128], [1,0])
  auto w = iota(10 * 128);
  int32_t tw = h.tensor(ScalarType::kFloat, {10, 128}, w);
  int32_t out = h.tensor(ScalarType::kFloat, {128, 10});
  ASSERT_TRUE(h.call("aten::permute_copy.out", {tw, h.int_list({1, 0}), out, out}).ok());
  auto got = h.data(out);
  for (int64_t r = 0; r < 128; ++r)
    for (int64_t c = 0; c < 10; ++c) ASSERT_EQ(got[static_cast<size_t>(r * 10 + c)], w[static_cast<size_t>(c * 128 + r)]);
}

TEST(CpuShapeKernel, Permute3dNegativeDimsAndErrors) {
  Harness h;
  const char* op = "aten::permute_copy.out";
  int32_t x = h.tensor(ScalarType::kInt, {2, 3, 4}, iota(24));
  int32_t out = h.tensor(ScalarType::kInt, {4, 2, 3});
  ASSERT_TRUE(h.call(op, {x, h.int_list({-1, 0, 1}), out, out}).ok());
  std::vector<double> want;
  for (int c = 0; c < 4; ++c)
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 3; ++b) want.push_back(a * 12 + b * 4 + c);
  EXPECT_EQ(h.data(out), want);
  EXPECT_OP_ERROR(h.call(op, {x, h.int_list({0, 0, 1}), out, out}), op);
  EXPECT_OP_ERROR(h.call(op, {x, h.int_list({0, 1}), out, out}), op);
  EXPECT_OP_ERROR(h.call(op, {x, h.int_list({0, 1, 3}), out, out}), op);
  int32_t tout = h.tensor(ScalarType::kInt, {4, 3, 2});
  ASSERT_TRUE(h.call("aten::transpose_copy.int_out", {x, h.i(0), h.i(-1), tout, tout}).ok());
  want.clear();
  for (int c = 0; c < 4; ++c)
    for (int b = 0; b < 3; ++b)
      for (int a = 0; a < 2; ++a) want.push_back(a * 12 + b * 4 + c);
  EXPECT_EQ(h.data(tout), want);
}

TEST(CpuShapeKernel, CopyInplaceAsInKvWriteBack) {
  Harness h;  // models/llama_et_kv: copy_(buffer, updated, False) -> buffer
  auto src = random_values(2 * 32 * 16, -1, 1, 130);
  int32_t buf = h.tensor(ScalarType::kFloat, {1, 2, 32, 16});
  int32_t tsrc = h.tensor(ScalarType::kFloat, {1, 2, 32, 16}, src);
  ASSERT_TRUE(h.call("aten::copy_", {buf, tsrc, h.b(false), buf}).ok());
  EXPECT_EQ(h.data(buf), as_float32(src));
  // Broadcasting source, dtype conversion, and a distinct return slot that aliases self.
  int32_t self = h.tensor(ScalarType::kLong, {2, 3});
  int32_t row = h.tensor(ScalarType::kFloat, {3}, {1.9, -2.5, 3});
  int32_t ret = h.tensor(ScalarType::kLong, {2, 3});
  ASSERT_TRUE(h.call("aten::copy_", {self, row, h.b(false), ret}).ok());
  EXPECT_EQ(h.data(self), (std::vector<double>{1, -2, 3, 1, -2, 3}));
  EXPECT_EQ(h.t(ret).data, h.t(self).data);
  int32_t bad = h.tensor(ScalarType::kFloat, {2});
  EXPECT_OP_ERROR(h.call("aten::copy_", {self, bad, h.b(false), self}), "aten::copy_");
}

TEST(CpuShapeKernel, ViewCloneAndDtypeCopies) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {2, 6}, iota(12, -5));
  int32_t out = h.tensor(ScalarType::kFloat, {3, 4});
  ASSERT_TRUE(h.call("aten::view_copy.out", {x, h.int_list({-1, 4}), out, out}).ok());
  EXPECT_EQ(h.data(out), iota(12, -5));
  EXPECT_OP_ERROR(h.call("aten::view_copy.out", {x, h.int_list({5, -1}), out, out}), "aten::view_copy.out");
  EXPECT_OP_ERROR(h.call("aten::view_copy.out", {x, h.int_list({-1, -1}), out, out}), "aten::view_copy.out");
  int32_t c = h.tensor(ScalarType::kFloat, {2, 6});
  ASSERT_TRUE(h.call("aten::clone.out", {x, h.none(), c, c}).ok());
  EXPECT_EQ(h.data(c), iota(12, -5));
  int32_t i = h.tensor(ScalarType::kInt, {2, 6});
  ASSERT_TRUE(h.call("aten::_to_copy.out", {x, h.b(false), h.none(), i, i}).ok());
  EXPECT_EQ(h.data(i), iota(12, -5));
  int32_t b = h.tensor(ScalarType::kBool, {2, 6});
  ASSERT_TRUE(h.call("dim_order_ops::_to_dim_order_copy.out", {x, h.b(false), h.int_list({0, 1}), b, b}).ok());
  auto bv = h.data(b);
  for (size_t k = 0; k < 12; ++k) EXPECT_EQ(bv[k], k == 5 ? 0 : 1);
  EXPECT_OP_ERROR(h.call("dim_order_ops::_to_dim_order_copy.out", {x, h.b(false), h.int_list({1, 0}), b, b}),
                  "dim_order_ops::_to_dim_order_copy.out");
  ASSERT_TRUE(h.call("dim_order_ops::_clone_dim_order.out", {x, h.b(false), h.none(), c, c}).ok());
}

TEST(CpuShapeKernel, SqueezeUnsqueezeSelectSlice) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {2, 1, 3}, iota(6));
  int32_t u = h.tensor(ScalarType::kFloat, {2, 1, 3, 1});
  ASSERT_TRUE(h.call("aten::unsqueeze_copy.out", {x, h.i(-1), u, u}).ok());
  int32_t s = h.tensor(ScalarType::kFloat, {2, 3});
  ASSERT_TRUE(h.call("aten::squeeze_copy.dim_out", {x, h.i(1), s, s}).ok());
  ASSERT_TRUE(h.call("aten::squeeze_copy.dims_out", {x, h.int_list({0, 1}), s, s}).ok());  // dim 0 is not 1: kept
  ASSERT_TRUE(h.call("aten::squeeze_copy.out", {u, s, s}).ok());
  EXPECT_EQ(h.data(s), iota(6));

  int32_t y = h.tensor(ScalarType::kFloat, {3, 4}, iota(12));
  int32_t row = h.tensor(ScalarType::kFloat, {4});
  ASSERT_TRUE(h.call("aten::select_copy.int_out", {y, h.i(0), h.i(-1), row, row}).ok());
  EXPECT_EQ(h.data(row), (std::vector<double>{8, 9, 10, 11}));
  int32_t col = h.tensor(ScalarType::kFloat, {3});
  ASSERT_TRUE(h.call("aten::select_copy.int_out", {y, h.i(1), h.i(2), col, col}).ok());
  EXPECT_EQ(h.data(col), (std::vector<double>{2, 6, 10}));
  EXPECT_OP_ERROR(h.call("aten::select_copy.int_out", {y, h.i(1), h.i(4), col, col}), "aten::select_copy.int_out");

  int32_t sl = h.dynamic(ScalarType::kFloat, {3, 4});
  ASSERT_TRUE(h.call("aten::slice_copy.Tensor_out", {y, h.i(1), h.i(1), h.none(), h.i(2), sl, sl}).ok());
  EXPECT_EQ(h.sizes(sl), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(h.data(sl), (std::vector<double>{1, 3, 5, 7, 9, 11}));
  ASSERT_TRUE(h.call("aten::slice_copy.Tensor_out", {y, h.i(0), h.i(-2), h.i(100), h.i(1), sl, sl}).ok());
  EXPECT_EQ(h.sizes(sl), (std::vector<int64_t>{2, 4}));
  ASSERT_TRUE(h.call("aten::slice_copy.Tensor_out", {y, h.i(0), h.i(2), h.i(1), h.i(1), sl, sl}).ok());
  EXPECT_EQ(h.sizes(sl), (std::vector<int64_t>{0, 4}));
  EXPECT_OP_ERROR(h.call("aten::slice_copy.Tensor_out", {y, h.i(0), h.i(0), h.i(1), h.i(0), sl, sl}),
                  "aten::slice_copy.Tensor_out");
}

TEST(CpuShapeKernel, ExpandFlipRepeatPad) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {2, 1}, {1, 2});
  int32_t e = h.tensor(ScalarType::kFloat, {2, 2, 3});
  ASSERT_TRUE(h.call("aten::expand_copy.out", {x, h.int_list({2, -1, 3}), h.b(false), e, e}).ok());
  EXPECT_EQ(h.data(e), (std::vector<double>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
  EXPECT_OP_ERROR(h.call("aten::expand_copy.out", {x, h.int_list({3, 3}), h.b(false), e, e}), "aten::expand_copy.out");

  int32_t y = h.tensor(ScalarType::kInt, {2, 3}, iota(6));
  int32_t f = h.tensor(ScalarType::kInt, {2, 3});
  ASSERT_TRUE(h.call("aten::flip.out", {y, h.int_list({0, -1}), f, f}).ok());
  EXPECT_EQ(h.data(f), (std::vector<double>{5, 4, 3, 2, 1, 0}));

  int32_t r = h.tensor(ScalarType::kInt, {2, 4, 3});
  ASSERT_TRUE(h.call("aten::repeat.out", {y, h.int_list({2, 2, 1}), r, r}).ok());
  auto rv = h.data(r);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 3; ++c) ASSERT_EQ(rv[static_cast<size_t>((a * 4 + b) * 3 + c)], (b % 2) * 3 + c);

  int32_t p = h.tensor(ScalarType::kInt, {2, 5});
  ASSERT_TRUE(h.call("aten::constant_pad_nd.out", {y, h.int_list({1, 1}), h.i(-1), p, p}).ok());
  EXPECT_EQ(h.data(p), (std::vector<double>{-1, 0, 1, 2, -1, -1, 3, 4, 5, -1}));
  int32_t p2 = h.tensor(ScalarType::kInt, {3, 2});
  ASSERT_TRUE(h.call("aten::constant_pad_nd.out", {y, h.int_list({-1, 0, 0, 1}), h.i(9), p2, p2}).ok());
  EXPECT_EQ(h.data(p2), (std::vector<double>{1, 2, 4, 5, 9, 9}));
  EXPECT_OP_ERROR(h.call("aten::constant_pad_nd.out", {y, h.int_list({1}), h.i(0), p, p}), "aten::constant_pad_nd.out");
}

TEST(CpuShapeKernel, CatStackSplit) {
  Harness h;
  int32_t a = h.tensor(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  int32_t b = h.tensor(ScalarType::kInt, {2, 1}, {5, 6});
  int32_t legacy_empty = h.tensor(ScalarType::kFloat, {0});
  int32_t out = h.tensor(ScalarType::kFloat, {2, 3});
  ASSERT_TRUE(h.call("aten::cat.out", {h.tensor_list({a, legacy_empty, b}), h.i(-1), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{1, 2, 5, 3, 4, 6}));
  int32_t out0 = h.tensor(ScalarType::kFloat, {4, 2});
  ASSERT_TRUE(h.call("aten::cat.out", {h.tensor_list({a, a}), h.i(0), out0, out0}).ok());
  EXPECT_EQ(h.data(out0), (std::vector<double>{1, 2, 3, 4, 1, 2, 3, 4}));
  EXPECT_OP_ERROR(h.call("aten::cat.out", {h.tensor_list({a, b}), h.i(0), out0, out0}), "aten::cat.out");
  int32_t iout = h.tensor(ScalarType::kInt, {4, 2});
  EXPECT_OP_ERROR(h.call("aten::cat.out", {h.tensor_list({a, a}), h.i(0), iout, iout}), "aten::cat.out");

  int32_t st = h.tensor(ScalarType::kFloat, {2, 2, 2});
  ASSERT_TRUE(h.call("aten::stack.out", {h.tensor_list({a, a}), h.i(2), st, st}).ok());
  EXPECT_EQ(h.data(st), (std::vector<double>{1, 1, 2, 2, 3, 3, 4, 4}));

  int32_t x = h.tensor(ScalarType::kFloat, {5, 2}, iota(10));
  int32_t s1 = h.tensor(ScalarType::kFloat, {2, 2}), s2 = h.tensor(ScalarType::kFloat, {3, 2});
  ASSERT_TRUE(h.call("aten::split_with_sizes_copy.out", {x, h.int_list({2, 3}), h.i(0), h.tensor_list({s1, s2})}).ok());
  EXPECT_EQ(h.data(s1), iota(4));
  EXPECT_EQ(h.data(s2), iota(6, 4));
  EXPECT_OP_ERROR(h.call("aten::split_with_sizes_copy.out", {x, h.int_list({2, 2}), h.i(0), h.tensor_list({s1, s2})}),
                  "aten::split_with_sizes_copy.out");
  int32_t c1 = h.tensor(ScalarType::kFloat, {2, 2}), c2 = h.tensor(ScalarType::kFloat, {2, 2}), c3 = h.tensor(ScalarType::kFloat, {1, 2});
  ASSERT_TRUE(h.call("aten::split_copy.Tensor_out", {x, h.i(2), h.i(0), h.tensor_list({c1, c2, c3})}).ok());
  EXPECT_EQ(h.data(c3), (std::vector<double>{8, 9}));
  int32_t u0 = h.tensor(ScalarType::kFloat, {5}), u1 = h.tensor(ScalarType::kFloat, {5});
  ASSERT_TRUE(h.call("aten::unbind_copy.int_out", {x, h.i(1), h.tensor_list({u0, u1})}).ok());
  EXPECT_EQ(h.data(u1), (std::vector<double>{1, 3, 5, 7, 9}));
}

TEST(CpuShapeKernel, PixelShuffleRoundTrip) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {1, 8, 2, 3}, iota(48));
  int32_t y = h.tensor(ScalarType::kFloat, {1, 2, 4, 6});
  ASSERT_TRUE(h.call("aten::pixel_shuffle.out", {x, h.i(2), y, y}).ok());
  auto yv = h.data(y);
  // out[c, h*r+i, w*r+j] = in[c*r*r + i*r + j, h, w]
  for (int c = 0; c < 2; ++c)
    for (int hh = 0; hh < 2; ++hh)
      for (int i = 0; i < 2; ++i)
        for (int w = 0; w < 3; ++w)
          for (int j = 0; j < 2; ++j)
            ASSERT_EQ(yv[static_cast<size_t>((c * 4 + hh * 2 + i) * 6 + w * 2 + j)], ((c * 4 + i * 2 + j) * 2 + hh) * 3 + w);
  int32_t z = h.tensor(ScalarType::kFloat, {1, 8, 2, 3});
  ASSERT_TRUE(h.call("aten::pixel_unshuffle.out", {y, h.i(2), z, z}).ok());
  EXPECT_EQ(h.data(z), iota(48));
}

}  // namespace
}  // namespace wick::cpu::testing
