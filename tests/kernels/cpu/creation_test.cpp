#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

TEST(CpuCreationKernel, ScalarTensorAsInMasks) {
  Harness h;  // scalar_tensor.out(-inf) and (0.0) into float[] as in whisper / llama
  int32_t out = h.tensor(ScalarType::kFloat, {});
  ASSERT_TRUE(h.call("aten::scalar_tensor.out", {h.d(-INFINITY), out, out}).ok());
  EXPECT_EQ(h.data(out)[0], -INFINITY);
  ASSERT_TRUE(h.call("aten::scalar_tensor.out", {h.d(0.0), out, out}).ok());
  EXPECT_EQ(h.data(out)[0], 0);
  int32_t iout = h.tensor(ScalarType::kLong, {});
  ASSERT_TRUE(h.call("aten::scalar_tensor.out", {h.i(-7), iout, iout}).ok());
  EXPECT_EQ(h.data(iout)[0], -7);
  int32_t bout = h.tensor(ScalarType::kBool, {});
  ASSERT_TRUE(h.call("aten::scalar_tensor.out", {h.b(true), bout, bout}).ok());
  EXPECT_EQ(h.data(bout)[0], 1);
  int32_t wrong = h.tensor(ScalarType::kFloat, {1});
  EXPECT_OP_ERROR(h.call("aten::scalar_tensor.out", {h.d(1), wrong, wrong}), "aten::scalar_tensor.out");
  EXPECT_OP_ERROR(h.call("aten::scalar_tensor.out", {h.str("x"), out, out}), "aten::scalar_tensor.out");
}

TEST(CpuCreationKernel, FullZerosOnes) {
  Harness h;
  int32_t out = h.tensor(ScalarType::kHalf, {2, 2});
  ASSERT_TRUE(h.call("aten::full.out", {h.int_list({2, 2}), h.d(1.5), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>(4, 1.5)));
  int32_t z = h.tensor(ScalarType::kInt, {3}, {4, 5, 6});
  ASSERT_TRUE(h.call("aten::zeros_like.out", {z, h.none(), z, z}).ok());
  EXPECT_EQ(h.data(z), (std::vector<double>(3, 0)));
  ASSERT_TRUE(h.call("aten::ones.out", {h.int_list({3}), z, z}).ok());
  EXPECT_EQ(h.data(z), (std::vector<double>(3, 1)));
  ASSERT_TRUE(h.call("aten::full_like.out", {z, h.i(9), h.none(), z, z}).ok());
  EXPECT_EQ(h.data(z), (std::vector<double>(3, 9)));
  EXPECT_OP_ERROR(h.call("aten::full.out", {h.int_list({-1}), h.d(1), out, out}), "aten::full.out");
}

TEST(CpuCreationKernel, Arange) {
  Harness h;
  int32_t out = h.dynamic(ScalarType::kLong, {10});
  ASSERT_TRUE(h.call("aten::arange.out", {h.i(5), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0, 1, 2, 3, 4}));
  ASSERT_TRUE(h.call("aten::arange.start_out", {h.i(10), h.i(1), h.i(-3), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{10, 7, 4}));
  int32_t fout = h.dynamic(ScalarType::kFloat, {10});
  ASSERT_TRUE(h.call("aten::arange.start_out", {h.d(0), h.d(1), h.d(0.25), fout, fout}).ok());
  EXPECT_EQ(h.data(fout), (std::vector<double>{0, 0.25, 0.5, 0.75}));
  EXPECT_OP_ERROR(h.call("aten::arange.start_out", {h.i(0), h.i(5), h.i(0), out, out}), "aten::arange.start_out");
  EXPECT_OP_ERROR(h.call("aten::arange.start_out", {h.i(0), h.i(5), h.i(-1), out, out}), "aten::arange.start_out");
  EXPECT_OP_ERROR(h.call("aten::arange.out", {h.i(11), out, out}), "aten::arange.out");  // beyond the bound
}

TEST(CpuCreationKernel, TrilTriu) {
  Harness h;
  int32_t x = h.tensor(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  int32_t out = h.tensor(ScalarType::kFloat, {2, 3});
  ASSERT_TRUE(h.call("aten::tril.out", {x, h.i(0), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{1, 0, 0, 4, 5, 0}));
  ASSERT_TRUE(h.call("aten::triu.out", {x, h.i(1), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{0, 2, 3, 0, 0, 6}));
}

}  // namespace
}  // namespace wick::cpu::testing
