#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

// Reference broadcasting: maps each output coordinate to input coordinates by clamping
// size-1 dims, independently of the kernels' stride arithmetic.
std::vector<double> broadcast_ref(const std::vector<int64_t>& as, const std::vector<double>& a,
                                  const std::vector<int64_t>& bs, const std::vector<double>& b,
                                  const std::vector<int64_t>& os, const std::function<double(double, double)>& f) {
  std::vector<double> out(static_cast<size_t>(numel(os)));
  for (int64_t lin = 0; lin < numel(os); ++lin) {
    std::vector<int64_t> coord(os.size());
    int64_t rem = lin;
    for (size_t d = os.size(); d-- > 0;) {
      coord[d] = rem % os[d];
      rem /= os[d];
    }
    auto index = [&](const std::vector<int64_t>& s) {
      int64_t idx = 0;
      const size_t lead = os.size() - s.size();
      for (size_t d = 0; d < s.size(); ++d) idx = idx * s[d] + (s[d] == 1 ? 0 : coord[lead + d]);
      return idx;
    };
    out[static_cast<size_t>(lin)] = f(a[static_cast<size_t>(index(as))], b[static_cast<size_t>(index(bs))]);
  }
  return out;
}

TEST(CpuBinaryKernel, AddWithAlphaSameShape) {
  Harness h;
  auto a = as_float32(random_values(24, -2, 2, 1)), b = as_float32(random_values(24, -2, 2, 2));
  int32_t ta = h.tensor(ScalarType::kFloat, {2, 3, 4}, a), tb = h.tensor(ScalarType::kFloat, {2, 3, 4}, b);
  int32_t out = h.tensor(ScalarType::kFloat, {2, 3, 4});
  ASSERT_TRUE(h.call("aten::add.out", {ta, tb, h.i(2), out, out}).ok());
  std::vector<double> want(24);
  for (size_t k = 0; k < 24; ++k) want[k] = a[k] + 2 * b[k];
  expect_near_all(h.data(out), want, 1e-6);
}

TEST(CpuBinaryKernel, AddBroadcastsOddShapes) {
  Harness h;
  std::vector<int64_t> as = {3, 1, 5}, bs = {1, 4, 1}, os = {3, 4, 5};
  auto a = as_float32(random_values(15, -1, 1, 3)), b = as_float32(random_values(4, -1, 1, 4));
  int32_t ta = h.tensor(ScalarType::kFloat, as, a), tb = h.tensor(ScalarType::kFloat, bs, b);
  int32_t out = h.tensor(ScalarType::kFloat, os);
  ASSERT_TRUE(h.call("aten::add.out", {ta, tb, h.i(1), out, out}).ok());
  expect_near_all(h.data(out), broadcast_ref(as, a, bs, b, os, [](double x, double y) { return x + y; }), 1e-6);
}

TEST(CpuBinaryKernel, MulBroadcastsLowerRank) {
  Harness h;
  std::vector<int64_t> as = {2, 3, 4}, bs = {4}, os = {2, 3, 4};
  auto a = random_ints(24, -5, 5, 5), b = random_ints(4, -5, 5, 6);
  int32_t ta = h.tensor(ScalarType::kDouble, as, a), tb = h.tensor(ScalarType::kDouble, bs, b);
  int32_t out = h.tensor(ScalarType::kDouble, os);
  ASSERT_TRUE(h.call("aten::mul.out", {ta, tb, out, out}).ok());
  EXPECT_EQ(h.data(out), broadcast_ref(as, a, bs, b, os, [](double x, double y) { return x * y; }));
}

// One operand constant over runs of trailing elements (a squeeze-excite scale [N, C, 1, 1]
// against [N, C, H, W]; its fast path), on either side, at lower rank, and shapes that
// only look alike (a broadcast leading dim, a 1 in the middle) which take the general one.
TEST(CpuBinaryKernel, TrailingRunBroadcasts) {
  struct Case {
    std::vector<int64_t> as, bs, os;
  };
  const std::vector<Case> cases = {
      {{2, 3, 5, 7}, {2, 3, 1, 1}, {2, 3, 5, 7}}, {{1, 4, 1, 1}, {1, 4, 3, 3}, {1, 4, 3, 3}},
      {{2, 3, 5, 7}, {3, 1, 1}, {2, 3, 5, 7}},   {{1, 6, 4, 4}, {6, 1, 1}, {1, 6, 4, 4}},
      {{2, 3, 5, 7}, {1, 3, 1, 1}, {2, 3, 5, 7}}, {{2, 3, 5, 7}, {2, 1, 5, 1}, {2, 3, 5, 7}},
      {{4, 5}, {4, 1}, {4, 5}},                   {{3, 4}, {1}, {3, 4}}};
  uint32_t seed = 70;
  for (const Case& c : cases) {
    Harness h;
    auto a = as_float32(random_values(static_cast<size_t>(numel(c.as)), -1, 1, seed++));
    auto b = as_float32(random_values(static_cast<size_t>(numel(c.bs)), -1, 1, seed++));
    int32_t ta = h.tensor(ScalarType::kFloat, c.as, a), tb = h.tensor(ScalarType::kFloat, c.bs, b);
    int32_t out = h.tensor(ScalarType::kFloat, c.os);
    ASSERT_TRUE(h.call("aten::mul.out", {ta, tb, out, out}).ok());
    SCOPED_TRACE(shape_to_string(c.as) + " * " + shape_to_string(c.bs));
    expect_near_all(h.data(out), broadcast_ref(c.as, a, c.bs, b, c.os, [](double x, double y) { return x * y; }), 1e-6);
    int32_t out2 = h.tensor(ScalarType::kFloat, c.os);
    ASSERT_TRUE(h.call("aten::sub.out", {tb, ta, h.i(1), out2, out2}).ok());
    expect_near_all(h.data(out2), broadcast_ref(c.bs, b, c.as, a, c.os, [](double x, double y) { return x - y; }), 1e-6);
  }
}

TEST(CpuBinaryKernel, IntPlusFloatPromotesToFloat) {
  Harness h;
  int32_t ta = h.tensor(ScalarType::kInt, {3}, {1, 2, 3});
  int32_t tb = h.tensor(ScalarType::kFloat, {3}, {0.5, 0.25, -1});
  int32_t out = h.tensor(ScalarType::kFloat, {3});
  ASSERT_TRUE(h.call("aten::add.out", {ta, tb, h.i(1), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{1.5, 2.25, 2}));
  // The float result cannot be written to an int tensor.
  int32_t iout = h.tensor(ScalarType::kInt, {3});
  EXPECT_OP_ERROR(h.call("aten::add.out", {ta, tb, h.i(1), iout, iout}), "aten::add.out");
}

TEST(CpuBinaryKernel, IntegerAddWrapsInResultDtype) {
  Harness h;
  // int8 + int8 is int8 in PyTorch: 100 + 100 wraps to -56 even when out is int64.
  int32_t ta = h.tensor(ScalarType::kChar, {2}, {100, -3});
  int32_t tb = h.tensor(ScalarType::kChar, {2}, {100, 4});
  int32_t out = h.tensor(ScalarType::kLong, {2});
  ASSERT_TRUE(h.call("aten::add.out", {ta, tb, h.i(1), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{-56, 1}));
}

TEST(CpuBinaryKernel, Uint8WithInt8PromotesToInt16) {
  Harness h;
  int32_t ta = h.tensor(ScalarType::kByte, {2}, {200, 5});
  int32_t tb = h.tensor(ScalarType::kChar, {2}, {100, -10});
  int32_t out = h.tensor(ScalarType::kShort, {2});
  ASSERT_TRUE(h.call("aten::add.out", {ta, tb, h.i(1), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{300, -5}));
}

TEST(CpuBinaryKernel, ZeroDimTensorDoesNotWidenDimTensor) {
  Harness h;
  // float32[3] + float64[] stays float32 (zero-dim tensors rank below dimensioned ones)...
  int32_t ta = h.tensor(ScalarType::kFloat, {3}, {1, 2, 3});
  int32_t tb = h.tensor(ScalarType::kDouble, {}, {0.1});
  int32_t out = h.tensor(ScalarType::kFloat, {3});
  ASSERT_TRUE(h.call("aten::add.out", {ta, tb, h.i(1), out, out}).ok());
  expect_near_all(h.data(out), {1.1f, 2.1f, 3.1f}, 1e-7);
  // ...but int64[3] + float64[] takes the zero-dim tensor's higher category.
  int32_t ti = h.tensor(ScalarType::kLong, {3}, {1, 2, 3});
  int32_t dout = h.tensor(ScalarType::kDouble, {3});
  ASSERT_TRUE(h.call("aten::add.out", {ti, tb, h.i(1), dout, dout}).ok());
  expect_near_all(h.data(dout), {1.1, 2.1, 3.1}, 1e-15);
}

TEST(CpuBinaryKernel, BoolArithmetic) {
  Harness h;
  int32_t ta = h.tensor(ScalarType::kBool, {4}, {0, 0, 1, 1});
  int32_t tb = h.tensor(ScalarType::kBool, {4}, {0, 1, 0, 1});
  int32_t out = h.tensor(ScalarType::kBool, {4});
  ASSERT_TRUE(h.call("aten::mul.out", {ta, tb, out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0, 0, 0, 1}));
  ASSERT_TRUE(h.call("aten::add.out", {ta, tb, h.b(true), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0, 1, 1, 1}));
  EXPECT_OP_ERROR(h.call("aten::sub.out", {ta, tb, h.i(1), out, out}), "aten::sub.out");
}

TEST(CpuBinaryKernel, AddScalarAsInRmsNorm) {
  Harness h;  // ops/rms_norm: add.Scalar_out(x[2,10,1], 1e-06, 1)
  auto x = as_float32(random_values(20, 0, 1, 7));
  int32_t tx = h.tensor(ScalarType::kFloat, {2, 10, 1}, x);
  int32_t out = h.tensor(ScalarType::kFloat, {2, 10, 1});
  ASSERT_TRUE(h.call("aten::add.Scalar_out", {tx, h.d(1e-6), h.i(1), out, out}).ok());
  std::vector<double> want(20);
  for (size_t k = 0; k < 20; ++k) want[k] = static_cast<float>(static_cast<float>(x[k]) + static_cast<float>(1e-6));
  EXPECT_EQ(h.data(out), want);
}

TEST(CpuBinaryKernel, ScalarPromotion) {
  Harness h;
  int32_t ti = h.tensor(ScalarType::kInt, {3}, {1, 2, 3});
  // int tensor + float scalar -> float; out int is refused.
  int32_t fout = h.tensor(ScalarType::kFloat, {3});
  ASSERT_TRUE(h.call("aten::add.Scalar_out", {ti, h.d(0.5), h.i(1), fout, fout}).ok());
  EXPECT_EQ(h.data(fout), (std::vector<double>{1.5, 2.5, 3.5}));
  int32_t iout = h.tensor(ScalarType::kInt, {3});
  EXPECT_OP_ERROR(h.call("aten::add.Scalar_out", {ti, h.d(0.5), h.i(1), iout, iout}), "aten::add.Scalar_out");
  // int tensor + int scalar stays int; a float alpha with ints is an error.
  ASSERT_TRUE(h.call("aten::add.Scalar_out", {ti, h.i(10), h.i(2), iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{21, 22, 23}));
  EXPECT_OP_ERROR(h.call("aten::add.Scalar_out", {ti, h.i(10), h.d(2.5), iout, iout}), "aten::add.Scalar_out");
  // sub / rsub with a scalar.
  ASSERT_TRUE(h.call("aten::sub.Scalar_out", {ti, h.i(1), h.i(1), iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{0, 1, 2}));
  ASSERT_TRUE(h.call("aten::rsub.Scalar_out", {ti, h.i(10), h.i(2), iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{8, 6, 4}));
}

TEST(CpuBinaryKernel, MulScalarAsInAttention) {
  Harness h;  // sdpa: mul.Scalar_out(q[1,4,16,32], 0.420448207627)
  const double s = 0.420448207627;
  auto x = as_float32(random_values(4 * 16 * 32, -3, 3, 8));
  int32_t tx = h.tensor(ScalarType::kFloat, {1, 4, 16, 32}, x);
  int32_t out = h.tensor(ScalarType::kFloat, {1, 4, 16, 32});
  ASSERT_TRUE(h.call("aten::mul.Scalar_out", {tx, h.d(s), out, out}).ok());
  auto got = h.data(out);
  for (size_t k = 0; k < x.size(); ++k) ASSERT_EQ(got[k], static_cast<float>(static_cast<float>(x[k]) * static_cast<float>(s)));
}

TEST(CpuBinaryKernel, MaximumPropagatesNaNAndBroadcasts) {
  Harness h;
  const double nan = std::nan("");
  int32_t ta = h.tensor(ScalarType::kFloat, {2, 3}, {1, nan, -1, 4, 5, -6});
  int32_t tb = h.tensor(ScalarType::kFloat, {3}, {0, 0, nan});
  int32_t out = h.tensor(ScalarType::kFloat, {2, 3});
  ASSERT_TRUE(h.call("aten::maximum.out", {ta, tb, out, out}).ok());
  expect_near_all(h.data(out), {1, nan, nan, 4, 5, nan}, 0);
  ASSERT_TRUE(h.call("aten::minimum.out", {ta, tb, out, out}).ok());
  expect_near_all(h.data(out), {0, nan, nan, 0, 0, nan}, 0);
  int32_t ia = h.tensor(ScalarType::kLong, {3}, {-5, 7, 2}), ib = h.tensor(ScalarType::kLong, {1}, {3});
  int32_t iout = h.tensor(ScalarType::kLong, {3});
  ASSERT_TRUE(h.call("aten::maximum.out", {ia, ib, iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{3, 7, 3}));
}

TEST(CpuBinaryKernel, MaximumMatchesReferenceOnFixtureShape) {
  Harness h;  // ops_undelegated/maximum: [2,8,12] x [2,8,12]
  auto a = as_float32(random_values(192, -1, 1, 9)), b = as_float32(random_values(192, -1, 1, 10));
  int32_t ta = h.tensor(ScalarType::kFloat, {2, 8, 12}, a), tb = h.tensor(ScalarType::kFloat, {2, 8, 12}, b);
  int32_t out = h.tensor(ScalarType::kFloat, {2, 8, 12});
  ASSERT_TRUE(h.call("aten::maximum.out", {ta, tb, out, out}).ok());
  std::vector<double> want(192);
  for (size_t k = 0; k < 192; ++k) want[k] = std::max(a[k], b[k]);
  EXPECT_EQ(h.data(out), want);
}

TEST(CpuBinaryKernel, DivisionModes) {
  Harness h;
  int32_t ta = h.tensor(ScalarType::kLong, {4}, {7, -7, 7, -7});
  int32_t tb = h.tensor(ScalarType::kLong, {4}, {2, 2, -2, -2});
  // True division of integers gives float.
  int32_t fout = h.tensor(ScalarType::kFloat, {4});
  ASSERT_TRUE(h.call("aten::div.out", {ta, tb, fout, fout}).ok());
  EXPECT_EQ(h.data(fout), (std::vector<double>{3.5, -3.5, -3.5, 3.5}));
  int32_t iout = h.tensor(ScalarType::kLong, {4});
  EXPECT_OP_ERROR(h.call("aten::div.out", {ta, tb, iout, iout}), "aten::div.out");
  ASSERT_TRUE(h.call("aten::div.out_mode", {ta, tb, h.str("trunc"), iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{3, -3, -3, 3}));
  ASSERT_TRUE(h.call("aten::div.out_mode", {ta, tb, h.str("floor"), iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{3, -4, -4, 3}));
  ASSERT_TRUE(h.call("aten::floor_divide.out", {ta, tb, iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{3, -4, -4, 3}));
  EXPECT_OP_ERROR(h.call("aten::div.out_mode", {ta, tb, h.str("round"), iout, iout}), "aten::div.out_mode");
  // Python-style remainder takes the divisor's sign; fmod the dividend's.
  ASSERT_TRUE(h.call("aten::remainder.Tensor_out", {ta, tb, iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{1, 1, -1, -1}));
  ASSERT_TRUE(h.call("aten::fmod.Tensor_out", {ta, tb, iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{1, -1, 1, -1}));
  // Float floor division and remainder.
  int32_t fa = h.tensor(ScalarType::kDouble, {3}, {-7.5, 7.5, 1});
  int32_t dout = h.tensor(ScalarType::kDouble, {3});
  ASSERT_TRUE(h.call("aten::div.Scalar_mode_out", {fa, h.i(2), h.str("floor"), dout, dout}).ok());
  EXPECT_EQ(h.data(dout), (std::vector<double>{-4, 3, 0}));
  ASSERT_TRUE(h.call("aten::remainder.Scalar_out", {fa, h.i(2), dout, dout}).ok());
  EXPECT_EQ(h.data(dout), (std::vector<double>{0.5, 1.5, 1}));
  ASSERT_TRUE(h.call("aten::div.Scalar_out", {fa, h.i(0), dout, dout}).ok());
  expect_near_all(h.data(dout), {-INFINITY, INFINITY, INFINITY}, 0);
}

TEST(CpuBinaryKernel, IntegerDivisionByZeroIsAnError) {
  Harness h;
  int32_t ta = h.tensor(ScalarType::kInt, {2}, {1, 2}), tb = h.tensor(ScalarType::kInt, {2}, {1, 0});
  int32_t out = h.tensor(ScalarType::kInt, {2});
  EXPECT_OP_ERROR(h.call("aten::div.out_mode", {ta, tb, h.str("trunc"), out, out}), "aten::div.out_mode");
  EXPECT_OP_ERROR(h.call("aten::remainder.Tensor_out", {ta, tb, out, out}), "aten::remainder.Tensor_out");
  // INT64_MIN / -1 wraps instead of trapping.
  int32_t ma = h.tensor(ScalarType::kLong, {1}), mb = h.tensor(ScalarType::kLong, {1}, {-1});
  h.t(ma).data_as<int64_t>()[0] = INT64_MIN;
  int32_t mout = h.tensor(ScalarType::kLong, {1});
  ASSERT_TRUE(h.call("aten::div.out_mode", {ma, mb, h.str("floor"), mout, mout}).ok());
  EXPECT_EQ(h.t(mout).data_as<int64_t>()[0], INT64_MIN);
}

TEST(CpuBinaryKernel, Pow) {
  Harness h;
  int32_t ti = h.tensor(ScalarType::kLong, {4}, {2, -3, 0, 5});
  int32_t iout = h.tensor(ScalarType::kLong, {4});
  ASSERT_TRUE(h.call("aten::pow.Tensor_Scalar_out", {ti, h.i(3), iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{8, -27, 0, 125}));
  EXPECT_OP_ERROR(h.call("aten::pow.Tensor_Scalar_out", {ti, h.i(-1), iout, iout}), "aten::pow.Tensor_Scalar_out");
  int32_t tf = h.tensor(ScalarType::kFloat, {3}, {4, 9, 2});
  int32_t fout = h.tensor(ScalarType::kFloat, {3});
  ASSERT_TRUE(h.call("aten::pow.Tensor_Scalar_out", {tf, h.d(0.5), fout, fout}).ok());
  expect_near_all(h.data(fout), {2, 3, std::sqrt(2.0)}, 1e-6);
  ASSERT_TRUE(h.call("aten::pow.Scalar_out", {h.i(2), tf, fout, fout}).ok());
  EXPECT_EQ(h.data(fout), (std::vector<double>{16, 512, 4}));
  int32_t te = h.tensor(ScalarType::kFloat, {3}, {1, 0.5, -1});
  ASSERT_TRUE(h.call("aten::pow.Tensor_Tensor_out", {tf, te, fout, fout}).ok());
  expect_near_all(h.data(fout), {4, 3, 0.5}, 1e-6);
}

TEST(CpuBinaryKernel, Comparisons) {
  Harness h;
  int32_t ta = h.tensor(ScalarType::kFloat, {2, 2}, {1, 2, 3, std::nan("")});
  int32_t tb = h.tensor(ScalarType::kLong, {2}, {2, 2});
  int32_t out = h.tensor(ScalarType::kBool, {2, 2});
  ASSERT_TRUE(h.call("aten::lt.Tensor_out", {ta, tb, out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{1, 0, 0, 0}));
  ASSERT_TRUE(h.call("aten::ne.Tensor_out", {ta, tb, out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{1, 0, 1, 1}));
  ASSERT_TRUE(h.call("aten::ge.Scalar_out", {ta, h.d(2.0), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0, 1, 1, 0}));
  ASSERT_TRUE(h.call("aten::eq.Scalar_out", {ta, h.i(3), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0, 0, 1, 0}));
  // Comparison results cast into a float out.
  int32_t fout = h.tensor(ScalarType::kFloat, {2, 2});
  ASSERT_TRUE(h.call("aten::gt.Scalar_out", {ta, h.i(1), fout, fout}).ok());
  EXPECT_EQ(h.data(fout), (std::vector<double>{0, 1, 1, 0}));
  ASSERT_TRUE(h.call("aten::le.Scalar_out", {ta, h.i(1), fout, fout}).ok());
  EXPECT_EQ(h.data(fout), (std::vector<double>{1, 0, 0, 0}));
}

TEST(CpuBinaryKernel, LogicalAndBitwise) {
  Harness h;
  int32_t ta = h.tensor(ScalarType::kFloat, {4}, {0, 0, 2.5, -1});
  int32_t tb = h.tensor(ScalarType::kLong, {4}, {0, 3, 0, 7});
  int32_t out = h.tensor(ScalarType::kBool, {4});
  ASSERT_TRUE(h.call("aten::logical_and.out", {ta, tb, out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0, 0, 0, 1}));
  ASSERT_TRUE(h.call("aten::logical_or.out", {ta, tb, out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0, 1, 1, 1}));
  ASSERT_TRUE(h.call("aten::logical_xor.out", {ta, tb, out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0, 1, 1, 0}));
  int32_t ia = h.tensor(ScalarType::kInt, {3}, {12, 10, -1}), ib = h.tensor(ScalarType::kInt, {3}, {10, 6, 5});
  int32_t iout = h.tensor(ScalarType::kInt, {3});
  ASSERT_TRUE(h.call("aten::bitwise_and.Tensor_out", {ia, ib, iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{8, 2, 5}));
  ASSERT_TRUE(h.call("aten::bitwise_xor.Scalar_out", {ia, h.i(1), iout, iout}).ok());
  EXPECT_EQ(h.data(iout), (std::vector<double>{13, 11, -2}));
  int32_t fout = h.tensor(ScalarType::kFloat, {4});
  EXPECT_OP_ERROR(h.call("aten::bitwise_or.Tensor_out", {ta, ta, fout, fout}), "aten::bitwise_or.Tensor_out");
}

TEST(CpuBinaryKernel, WhereSelectsAndBroadcasts) {
  Harness h;
  int32_t cond = h.tensor(ScalarType::kBool, {2, 1}, {1, 0});
  int32_t x = h.tensor(ScalarType::kFloat, {3}, {1, 2, 3});
  int32_t y = h.tensor(ScalarType::kFloat, {}, {-1});
  int32_t out = h.tensor(ScalarType::kFloat, {2, 3});
  ASSERT_TRUE(h.call("aten::where.self_out", {cond, x, y, out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{1, 2, 3, -1, -1, -1}));
  int32_t bad = h.tensor(ScalarType::kFloat, {2}, {1, 0});
  EXPECT_OP_ERROR(h.call("aten::where.self_out", {bad, x, y, out, out}), "aten::where.self_out");
}

TEST(CpuBinaryKernel, DynamicOutResizesWithinBound) {
  Harness h;
  int32_t ta = h.tensor(ScalarType::kFloat, {3, 4}, random_values(12, 0, 1, 11));
  int32_t tb = h.tensor(ScalarType::kFloat, {4}, random_values(4, 0, 1, 12));
  int32_t out = h.dynamic(ScalarType::kFloat, {16, 4});
  ASSERT_TRUE(h.call("aten::mul.out", {ta, tb, out, out}).ok());
  EXPECT_EQ(h.sizes(out), (std::vector<int64_t>{3, 4}));
  // Beyond the bound: an error, not an overflow.
  int32_t big = h.tensor(ScalarType::kFloat, {17, 4});
  EXPECT_OP_ERROR(h.call("aten::mul.out", {big, tb, out, out}), "aten::mul.out");
  // A static out of the wrong shape is refused too.
  int32_t fixed = h.tensor(ScalarType::kFloat, {4, 4});
  EXPECT_OP_ERROR(h.call("aten::mul.out", {ta, tb, fixed, fixed}), "aten::mul.out");
}

TEST(CpuBinaryKernel, DegenerateShapes) {
  Harness h;
  int32_t ta = h.tensor(ScalarType::kFloat, {0, 3});
  int32_t tb = h.tensor(ScalarType::kFloat, {1, 3}, {1, 2, 3});
  int32_t out = h.dynamic(ScalarType::kFloat, {2, 3});
  ASSERT_TRUE(h.call("aten::add.out", {ta, tb, h.i(1), out, out}).ok());
  EXPECT_EQ(h.sizes(out), (std::vector<int64_t>{0, 3}));
  int32_t s0 = h.tensor(ScalarType::kFloat, {}, {2});
  int32_t s1 = h.tensor(ScalarType::kFloat, {}, {3});
  int32_t sout = h.tensor(ScalarType::kFloat, {});
  ASSERT_TRUE(h.call("aten::mul.out", {s0, s1, sout, sout}).ok());
  EXPECT_EQ(h.data(sout), (std::vector<double>{6}));
  // A size-1 dim broadcasts against a size-0 one.
  int32_t one = h.tensor(ScalarType::kFloat, {1}, {5});
  int32_t zero = h.tensor(ScalarType::kFloat, {0});
  int32_t zout = h.dynamic(ScalarType::kFloat, {4});
  ASSERT_TRUE(h.call("aten::add.out", {one, zero, h.i(1), zout, zout}).ok());
  EXPECT_EQ(h.sizes(zout), (std::vector<int64_t>{0}));
}

TEST(CpuBinaryKernel, BadArgumentsAreErrors) {
  Harness h;
  int32_t ta = h.tensor(ScalarType::kFloat, {2, 3});
  int32_t tb = h.tensor(ScalarType::kFloat, {4});
  int32_t out = h.tensor(ScalarType::kFloat, {2, 3});
  EXPECT_OP_ERROR(h.call("aten::add.out", {ta, tb, h.i(1), out, out}), "aten::add.out");  // no broadcast
  EXPECT_OP_ERROR(h.call("aten::add.out", {ta, h.i(3), h.i(1), out, out}), "aten::add.out");  // Int, not Tensor
  EXPECT_OP_ERROR(h.call("aten::add.out", {ta, ta, out, out}), "aten::add.out");           // too few values
  EXPECT_OP_ERROR(h.call("aten::mul.out", {ta, 12345, out, out}), "aten::mul.out");        // index out of range
  Tensor& nc = h.t(ta);
  nc.dim_order = {1, 0};
  Status s = h.call("aten::mul.out", {ta, ta, out, out});
  EXPECT_OP_ERROR(s, "aten::mul.out");
  EXPECT_EQ(s.code(), ErrorCode::kNotSupported);
}

}  // namespace
}  // namespace wick::cpu::testing
