#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

// Reference reduction over a 4-D tensor: visits every element by explicit coordinates
// and folds into the output cell picked by the kept coordinates.
std::vector<double> reduce_ref4(const std::vector<double>& x, const std::vector<int64_t>& s, const std::vector<bool>& red,
                                double init, const std::function<double(double, double)>& fold) {
  std::vector<int64_t> os;
  for (size_t d = 0; d < 4; ++d)
    if (!red[d]) os.push_back(s[d]);
  std::vector<double> out(static_cast<size_t>(numel(os)), init);
  for (int64_t a = 0; a < s[0]; ++a)
    for (int64_t b = 0; b < s[1]; ++b)
      for (int64_t c = 0; c < s[2]; ++c)
        for (int64_t d = 0; d < s[3]; ++d) {
          const int64_t coord[4] = {a, b, c, d};
          int64_t o = 0;
          for (size_t k = 0; k < 4; ++k)
            if (!red[k]) o = o * s[k] + coord[k];
          const double v = x[static_cast<size_t>(((a * s[1] + b) * s[2] + c) * s[3] + d)];
          out[static_cast<size_t>(o)] = fold(out[static_cast<size_t>(o)], v);
        }
  return out;
}

TEST(CpuReduceKernel, SumDimAsInFixture) {
  Harness h;  // ops_undelegated/sum_dim: sum.IntList_out(x[2,8,16,20], [1], False, None)
  std::vector<int64_t> s = {2, 8, 16, 20};
  auto x = as_float32(random_values(numel(s), -1, 1, 31));
  int32_t tx = h.tensor(ScalarType::kFloat, s, x);
  int32_t out = h.tensor(ScalarType::kFloat, {2, 16, 20});
  ASSERT_TRUE(h.call("aten::sum.IntList_out", {tx, h.int_list({1}), h.b(false), h.none(), out, out}).ok());
  expect_near_all(h.data(out), reduce_ref4(x, s, {false, true, false, false}, 0, std::plus<double>()), 1e-5);
}

TEST(CpuReduceKernel, MeanOverHWAsInFixtures) {
  Harness h;  // ops_undelegated/mean_hw: dims [2,3]; cpu/cnn_cpu: dims [-1,-2] keepdim
  std::vector<int64_t> s = {2, 8, 16, 20};
  auto x = as_float32(random_values(numel(s), -1, 1, 32));
  int32_t tx = h.tensor(ScalarType::kFloat, s, x);
  auto want = reduce_ref4(x, s, {false, false, true, true}, 0, std::plus<double>());
  for (double& v : want) v /= 16 * 20;
  int32_t out = h.tensor(ScalarType::kFloat, {2, 8});
  ASSERT_TRUE(h.call("aten::mean.out", {tx, h.int_list({2, 3}), h.b(false), h.none(), out, out}).ok());
  expect_near_all(h.data(out), want, 1e-6);
  int32_t kout = h.tensor(ScalarType::kFloat, {2, 8, 1, 1});
  ASSERT_TRUE(h.call("aten::mean.out", {tx, h.int_list({-1, -2}), h.b(true), h.none(), kout, kout}).ok());
  expect_near_all(h.data(kout), want, 1e-6);
}

TEST(CpuReduceKernel, AllDimsWhenDimIsNoneOrEmpty) {
  Harness h;
  int32_t tx = h.tensor(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  int32_t out = h.tensor(ScalarType::kFloat, {});
  ASSERT_TRUE(h.call("aten::sum.IntList_out", {tx, h.none(), h.b(false), h.none(), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{21}));
  ASSERT_TRUE(h.call("aten::mean.out", {tx, h.int_list({}), h.b(false), h.none(), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{3.5}));
  int32_t kout = h.tensor(ScalarType::kFloat, {1, 1});
  ASSERT_TRUE(h.call("aten::sum.IntList_out", {tx, h.none(), h.b(true), h.none(), kout, kout}).ok());
  EXPECT_EQ(h.data(kout), (std::vector<double>{21}));
}

TEST(CpuReduceKernel, SumDtypes) {
  Harness h;
  // bool and int inputs sum into int64.
  int32_t tb = h.tensor(ScalarType::kBool, {4}, {1, 0, 1, 1});
  int32_t lout = h.tensor(ScalarType::kLong, {});
  ASSERT_TRUE(h.call("aten::sum.IntList_out", {tb, h.int_list({0}), h.b(false), h.none(), lout, lout}).ok());
  EXPECT_EQ(h.data(lout), (std::vector<double>{3}));
  // dtype= must agree with out.
  int32_t tf = h.tensor(ScalarType::kFloat, {3}, {0.5, 1.5, 2});
  int32_t dout = h.tensor(ScalarType::kDouble, {});
  ASSERT_TRUE(h.call("aten::sum.IntList_out", {tf, h.int_list({0}), h.b(false), h.i(7), dout, dout}).ok());
  EXPECT_EQ(h.data(dout), (std::vector<double>{4}));
  EXPECT_OP_ERROR(h.call("aten::sum.IntList_out", {tf, h.int_list({0}), h.b(false), h.i(6), dout, dout}),
                  "aten::sum.IntList_out");
  // Mean needs a floating result.
  int32_t ti = h.tensor(ScalarType::kInt, {2}, {1, 2});
  EXPECT_OP_ERROR(h.call("aten::mean.out", {ti, h.int_list({0}), h.b(false), h.none(), lout, lout}), "aten::mean.out");
  int32_t fout = h.tensor(ScalarType::kFloat, {});
  ASSERT_TRUE(h.call("aten::mean.out", {ti, h.int_list({0}), h.b(false), h.i(6), fout, fout}).ok());
  EXPECT_EQ(h.data(fout), (std::vector<double>{1.5}));
}

TEST(CpuReduceKernel, EmptyReductions) {
  Harness h;
  int32_t tx = h.tensor(ScalarType::kFloat, {2, 0});
  int32_t out = h.tensor(ScalarType::kFloat, {2});
  ASSERT_TRUE(h.call("aten::sum.IntList_out", {tx, h.int_list({1}), h.b(false), h.none(), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0, 0}));
  ASSERT_TRUE(h.call("aten::mean.out", {tx, h.int_list({1}), h.b(false), h.none(), out, out}).ok());
  EXPECT_TRUE(std::isnan(h.data(out)[0]));
  int32_t vals = h.tensor(ScalarType::kFloat, {2}), idx = h.tensor(ScalarType::kLong, {2});
  EXPECT_OP_ERROR(h.call("aten::max.dim_max", {tx, h.i(1), h.b(false), vals, idx, h.tensor_list({vals, idx})}),
                  "aten::max.dim_max");
}

TEST(CpuReduceKernel, DimErrors) {
  Harness h;
  int32_t tx = h.tensor(ScalarType::kFloat, {2, 3});
  int32_t out = h.tensor(ScalarType::kFloat, {2});
  EXPECT_OP_ERROR(h.call("aten::sum.IntList_out", {tx, h.int_list({2}), h.b(false), h.none(), out, out}),
                  "aten::sum.IntList_out");
  EXPECT_OP_ERROR(h.call("aten::sum.IntList_out", {tx, h.int_list({1, -1}), h.b(false), h.none(), out, out}),
                  "aten::sum.IntList_out");
  EXPECT_OP_ERROR(h.call("aten::sum.IntList_out", {tx, h.int_list({0}), h.b(false), h.none(), out, out}),
                  "aten::sum.IntList_out");  // out [2] but result [3]
}

TEST(CpuReduceKernel, AnyAlongLastDimAsInAttentionMasks) {
  Harness h;  // any.out(mask[1,4,8,8], -1, True)
  std::vector<int64_t> s = {1, 4, 8, 8};
  auto m = random_ints(numel(s), 0, 1, 33);
  for (int k = 0; k < 8; ++k) m[static_cast<size_t>(8 * 5 + k)] = 0;  // one all-false row
  int32_t tx = h.tensor(ScalarType::kBool, s, m);
  int32_t out = h.tensor(ScalarType::kBool, {1, 4, 8, 1});
  ASSERT_TRUE(h.call("aten::any.out", {tx, h.i(-1), h.b(true), out, out}).ok());
  auto want = reduce_ref4(m, s, {false, false, false, true}, 0, [](double a, double v) { return (a != 0 || v != 0) ? 1 : 0; });
  EXPECT_EQ(h.data(out), want);
  EXPECT_EQ(h.data(out)[5], 0);
  int32_t all = h.tensor(ScalarType::kBool, {});
  ASSERT_TRUE(h.call("aten::all.all_out", {tx, all, all}).ok());
  EXPECT_EQ(h.data(all)[0], 0);
  ASSERT_TRUE(h.call("aten::any.all_out", {tx, all, all}).ok());
  EXPECT_EQ(h.data(all)[0], 1);
  int32_t dout = h.tensor(ScalarType::kBool, {4});
  ASSERT_TRUE(h.call("aten::any.dims_out", {tx, h.int_list({0, 2, 3}), h.b(false), dout, dout}).ok());
  int32_t fout = h.tensor(ScalarType::kFloat, {1, 4, 8, 1});
  EXPECT_OP_ERROR(h.call("aten::any.out", {tx, h.i(-1), h.b(true), fout, fout}), "aten::any.out");
  // Float input: nonzero is true, NaN included.
  int32_t tf = h.tensor(ScalarType::kFloat, {3}, {0, std::nan(""), 0});
  int32_t b0 = h.tensor(ScalarType::kBool, {});
  ASSERT_TRUE(h.call("aten::any.out", {tf, h.i(0), h.b(false), b0, b0}).ok());
  EXPECT_EQ(h.data(b0)[0], 1);
}

// any() over the innermost dims of a bool or uint8 tensor takes a word-at-a-time path:
// rows whose length is not a multiple of 8 (tails), rows true only in their last byte,
// uint8 values other than 1, two reduced dims at once, and a mask that reduces an inner
// but not the innermost dim (the general path) must all agree with the reference.
TEST(CpuReduceKernel, AnyOverInnermostDimsOddLengths) {
  Harness h;
  std::vector<int64_t> s = {2, 3, 5, 13};
  auto m = random_ints(numel(s), 0, 12, 35);
  for (double& v : m) v = v == 0 ? 7 : 0;  // sparse: ~1 in 13 nonzero, value 7
  for (int k = 0; k < 13; ++k) m[static_cast<size_t>(13 * 4 + k)] = k == 12 ? 7 : 0;  // only the last byte
  for (int k = 0; k < 13; ++k) m[static_cast<size_t>(13 * 9 + k)] = 0;                  // an all-false row
  auto any_ref = [](double a, double v) { return (a != 0 || v != 0) ? 1 : 0; };
  for (ScalarType dt : {ScalarType::kBool, ScalarType::kByte}) {
    std::vector<double> in = m;
    if (dt == ScalarType::kBool)
      for (double& v : in) v = v != 0 ? 1 : 0;
    int32_t tx = h.tensor(dt, s, in);
    int32_t out = h.tensor(ScalarType::kBool, {2, 3, 5, 1});
    ASSERT_TRUE(h.call("aten::any.out", {tx, h.i(-1), h.b(true), out, out}).ok());
    auto got = h.data(out);
    EXPECT_EQ(got, reduce_ref4(in, s, {false, false, false, true}, 0, any_ref));
    EXPECT_EQ(got[4], 1);
    EXPECT_EQ(got[9], 0);
    int32_t out2 = h.tensor(ScalarType::kBool, {2, 3});
    ASSERT_TRUE(h.call("aten::any.dims_out", {tx, h.int_list({2, 3}), h.b(false), out2, out2}).ok());
    EXPECT_EQ(h.data(out2), reduce_ref4(in, s, {false, false, true, true}, 0, any_ref));
    int32_t out3 = h.tensor(ScalarType::kBool, {2, 3, 13});
    ASSERT_TRUE(h.call("aten::any.out", {tx, h.i(2), h.b(false), out3, out3}).ok());
    EXPECT_EQ(h.data(out3), reduce_ref4(in, s, {false, false, true, false}, 0, any_ref));
  }
}

TEST(CpuReduceKernel, MaxDimAsInDfine) {
  Harness h;  // demos/dfine_tiny: max.dim_max(x[1,336,80], -1, False)
  std::vector<int64_t> s = {1, 336, 80};
  auto x = as_float32(random_values(numel(s), -5, 5, 34));
  x[80 * 7 + 3] = x[80 * 7 + 60] = 100;  // a tie: the first index wins
  int32_t tx = h.tensor(ScalarType::kFloat, s, x);
  int32_t vals = h.tensor(ScalarType::kFloat, {1, 336}), idx = h.tensor(ScalarType::kLong, {1, 336});
  ASSERT_TRUE(h.call("aten::max.dim_max", {tx, h.i(-1), h.b(false), vals, idx, h.tensor_list({vals, idx})}).ok());
  auto v = h.data(vals), ix = h.data(idx);
  for (size_t r = 0; r < 336; ++r) {
    double best = -1e30;
    size_t bi = 0;
    for (size_t c = 0; c < 80; ++c)
      if (x[r * 80 + c] > best) {
        best = x[r * 80 + c];
        bi = c;
      }
    ASSERT_EQ(v[r], best) << r;
    ASSERT_EQ(ix[r], static_cast<double>(bi)) << r;
  }
  EXPECT_EQ(ix[7], 3);
}

TEST(CpuReduceKernel, MaxMinDimKeepdimNaNAndInts) {
  Harness h;
  const double nan = std::nan("");
  int32_t tx = h.tensor(ScalarType::kFloat, {2, 3}, {1, nan, 3, -1, -5, -2});
  int32_t vals = h.tensor(ScalarType::kFloat, {1, 3}), idx = h.tensor(ScalarType::kLong, {1, 3});
  ASSERT_TRUE(h.call("aten::max.dim_max", {tx, h.i(0), h.b(true), vals, idx, h.tensor_list({vals, idx})}).ok());
  expect_near_all(h.data(vals), {1, nan, 3}, 0);
  EXPECT_EQ(h.data(idx), (std::vector<double>{0, 0, 0}));
  int32_t v2 = h.tensor(ScalarType::kFloat, {2}), i2 = h.tensor(ScalarType::kLong, {2});
  ASSERT_TRUE(h.call("aten::min.dim_min", {tx, h.i(1), h.b(false), v2, i2, h.tensor_list({v2, i2})}).ok());
  expect_near_all(h.data(v2), {nan, -5}, 0);
  EXPECT_EQ(h.data(i2), (std::vector<double>{1, 1}));
  int32_t ti = h.tensor(ScalarType::kInt, {4}, {3, 9, 9, -1});
  int32_t iv = h.tensor(ScalarType::kInt, {}), ii = h.tensor(ScalarType::kLong, {});
  ASSERT_TRUE(h.call("aten::max.dim_max", {ti, h.i(0), h.b(false), iv, ii, h.tensor_list({iv, ii})}).ok());
  EXPECT_EQ(h.data(iv)[0], 9);
  EXPECT_EQ(h.data(ii)[0], 1);
  // values must keep self's dtype; indices must be int64.
  int32_t wrong = h.tensor(ScalarType::kInt, {});
  EXPECT_OP_ERROR(h.call("aten::max.dim_max", {ti, h.i(0), h.b(false), iv, wrong, h.tensor_list({iv, wrong})}),
                  "aten::max.dim_max");
  EXPECT_OP_ERROR(h.call("aten::max.dim_max", {ti, h.i(1), h.b(false), iv, ii, h.tensor_list({iv, ii})}),
                  "aten::max.dim_max");
}

TEST(CpuReduceKernel, AmaxArgmax) {
  Harness h;
  int32_t tx = h.tensor(ScalarType::kFloat, {2, 3}, {1, 7, 3, 9, -5, 2});
  int32_t out = h.tensor(ScalarType::kFloat, {3});
  ASSERT_TRUE(h.call("aten::amax.out", {tx, h.int_list({0}), h.b(false), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{9, 7, 3}));
  ASSERT_TRUE(h.call("aten::amin.out", {tx, h.int_list({0}), h.b(false), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{1, -5, 2}));
  int32_t all = h.tensor(ScalarType::kFloat, {});
  ASSERT_TRUE(h.call("aten::amax.out", {tx, h.int_list({}), h.b(false), all, all}).ok());
  EXPECT_EQ(h.data(all)[0], 9);
  int32_t ai = h.tensor(ScalarType::kLong, {});
  ASSERT_TRUE(h.call("aten::argmax.out", {tx, h.none(), h.b(false), ai, ai}).ok());
  EXPECT_EQ(h.data(ai)[0], 3);
  int32_t ak = h.tensor(ScalarType::kLong, {2, 1});
  ASSERT_TRUE(h.call("aten::argmin.out", {tx, h.i(1), h.b(true), ak, ak}).ok());
  EXPECT_EQ(h.data(ak), (std::vector<double>{0, 1}));
}

TEST(CpuReduceKernel, ProdAndVar) {
  Harness h;
  int32_t tx = h.tensor(ScalarType::kDouble, {2, 3}, {1, 2, 3, 4, 5, 6});
  int32_t out = h.tensor(ScalarType::kDouble, {2});
  ASSERT_TRUE(h.call("aten::prod.int_out", {tx, h.i(1), h.b(false), h.none(), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{6, 120}));
  ASSERT_TRUE(h.call("aten::var.correction_out", {tx, h.int_list({1}), h.none(), h.b(false), out, out}).ok());
  expect_near_all(h.data(out), {1, 1}, 1e-12);
  ASSERT_TRUE(h.call("aten::var.correction_out", {tx, h.int_list({1}), h.i(0), h.b(false), out, out}).ok());
  expect_near_all(h.data(out), {2.0 / 3, 2.0 / 3}, 1e-12);
}

TEST(CpuReduceKernel, ZeroDimInput) {
  Harness h;
  int32_t tx = h.tensor(ScalarType::kFloat, {}, {4});
  int32_t out = h.tensor(ScalarType::kFloat, {});
  ASSERT_TRUE(h.call("aten::sum.IntList_out", {tx, h.int_list({-1}), h.b(false), h.none(), out, out}).ok());
  EXPECT_EQ(h.data(out)[0], 4);
  EXPECT_OP_ERROR(h.call("aten::sum.IntList_out", {tx, h.int_list({1}), h.b(false), h.none(), out, out}),
                  "aten::sum.IntList_out");
}

}  // namespace
}  // namespace wick::cpu::testing
