// Kernel arguments a hostile .pte can hold: any int64 or double where a kernel expects a
// small geometry value or a bound. Each call must fail with an error naming the operator
// (or succeed, where PyTorch's semantics give a result), never overflow int64 or convert
// an out-of-range double (undefined behaviour: the ASan/UBSan run stops there).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

constexpr int64_t kHuge = INT64_MAX;

TEST(CpuHostileArgs, PoolingGeometryIsBounded) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {1, 1, 4, 4});
  int32_t out = h.dynamic(ScalarType::kFloat, {1, 1, 4, 4});
  int32_t idx = h.dynamic(ScalarType::kLong, {1, 1, 4, 4});
  for (auto [k, s, d] : {std::array<int64_t, 3>{kHuge, 1, 1}, {2, kHuge, 1}, {2, 1, kHuge}, {2, 1, -kHuge}}) {
    EXPECT_OP_ERROR(h.call("aten::max_pool2d_with_indices.out", {x, h.int_list({k}), h.int_list({s}), h.int_list({0}),
                                                                 h.int_list({d}), h.b(true), out, idx,
                                                                 h.tensor_list({out, idx})}),
                    "aten::max_pool2d_with_indices.out");
  }
  EXPECT_OP_ERROR(h.call("aten::avg_pool2d.out", {x, h.int_list({2}), h.int_list({kHuge}), h.int_list({0}), h.b(true),
                                                  h.b(true), h.none(), out, out}),
                  "aten::avg_pool2d.out");
}

TEST(CpuHostileArgs, HugeSliceStepTakesOneElement) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {5}, {0, 1, 2, 3, 4});
  int32_t out = h.dynamic(ScalarType::kFloat, {5});
  ASSERT_TRUE(h.call("aten::slice_copy.Tensor_out", {x, h.i(0), h.i(1), h.i(kHuge), h.i(kHuge), out, out}).ok());
  EXPECT_EQ(h.data(out), std::vector<double>{1});
}

TEST(CpuHostileArgs, ShapeOpFactorsAreBounded) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {1, 4, 2, 2});
  int32_t out = h.dynamic(ScalarType::kFloat, {1, 4, 4, 4});
  EXPECT_OP_ERROR(h.call("aten::pixel_shuffle.out", {x, h.i(int64_t{1} << 32), out, out}), "aten::pixel_shuffle.out");
  EXPECT_OP_ERROR(h.call("aten::pixel_unshuffle.out", {x, h.i(int64_t{1} << 32), out, out}), "aten::pixel_unshuffle.out");
  EXPECT_OP_ERROR(h.call("aten::repeat.out", {x, h.int_list({1, kHuge, 1, 1}), out, out}), "aten::repeat.out");
  EXPECT_OP_ERROR(h.call("aten::constant_pad_nd.out", {x, h.int_list({kHuge, kHuge}), h.i(0), out, out}),
                  "aten::constant_pad_nd.out");
  EXPECT_OP_ERROR(h.call("aten::view_copy.out", {x, h.int_list({int64_t{1} << 32, int64_t{1} << 32, -1}), out, out}),
                  "aten::view_copy.out");
  // A split size beyond the dim is one piece.
  int32_t piece = h.tensor(ScalarType::kFloat, {1, 4, 2, 2});
  ASSERT_TRUE(h.call("aten::split_copy.Tensor_out", {x, h.i(kHuge), h.i(1), h.tensor_list({piece})}).ok());
}

TEST(CpuHostileArgs, RangesAndScalesBeyondInt64AreErrors) {
  Harness h;
  int32_t out = h.dynamic(ScalarType::kLong, {8});
  EXPECT_OP_ERROR(h.call("aten::arange.start_out", {h.i(INT64_MIN), h.i(INT64_MAX), h.i(1), out, out}),
                  "aten::arange.start_out");
  // Three elements; the last, INT64_MIN + 2 * INT64_MAX, is in range though the product is not.
  ASSERT_TRUE(h.call("aten::arange.start_out", {h.i(INT64_MIN), h.i(INT64_MAX), h.i(INT64_MAX), out, out}).ok());
  ASSERT_EQ(h.sizes(out), std::vector<int64_t>{3});
  EXPECT_EQ(h.t(out).data_as<int64_t>()[2], INT64_MAX - 1);
  ASSERT_TRUE(h.call("aten::arange.start_out", {h.i(INT64_MIN), h.i(INT64_MAX), h.i(int64_t{1} << 62), out, out}).ok());
  EXPECT_EQ(h.sizes(out), std::vector<int64_t>{4});
  int32_t fout = h.dynamic(ScalarType::kFloat, {8});
  EXPECT_OP_ERROR(h.call("aten::arange.start_out", {h.d(-1e300), h.d(1e300), h.d(1e-300), fout, fout}),
                  "aten::arange.start_out");
  EXPECT_OP_ERROR(h.call("aten::arange.start_out", {h.d(0), h.d(1), h.d(NAN), fout, fout}), "aten::arange.start_out");

  int32_t x = h.tensor(ScalarType::kFloat, {1, 1, 2, 2});
  int32_t up = h.dynamic(ScalarType::kFloat, {1, 1, 4, 4});
  for (double scale : {1e300, double{INFINITY}, double{NAN}}) {
    Value scales;
    scales.tag = ValueTag::kListDouble;
    scales.doubles = {scale, scale};
    EXPECT_OP_ERROR(h.call("aten::upsample_nearest2d.vec_out", {x, h.none(), h.add(scales), up, up}),
                    "aten::upsample_nearest2d.vec_out");
  }
}

}  // namespace
}  // namespace wick::cpu::testing
