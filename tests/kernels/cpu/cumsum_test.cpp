#include <gtest/gtest.h>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

TEST(CpuCumsumKernel, BoolToInt64AsInLlamaHf) {
  Harness h;  // models/llama_hf_tiny: cumsum.out(mask bool[1,8], -1, None) -> int64
  int32_t tx = h.tensor(ScalarType::kBool, {1, 8}, {1, 1, 0, 1, 0, 0, 1, 1});
  int32_t out = h.tensor(ScalarType::kLong, {1, 8});
  ASSERT_TRUE(h.call("aten::cumsum.out", {tx, h.i(-1), h.none(), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{1, 2, 2, 3, 3, 3, 4, 5}));
}

TEST(CpuCumsumKernel, InnerDimFloatAndDtype) {
  Harness h;
  auto x = as_float32(random_values(3 * 4 * 5, -1, 1, 120));
  int32_t tx = h.tensor(ScalarType::kFloat, {3, 4, 5}, x);
  int32_t out = h.tensor(ScalarType::kFloat, {3, 4, 5});
  ASSERT_TRUE(h.call("aten::cumsum.out", {tx, h.i(1), h.none(), out, out}).ok());
  std::vector<double> want(x.size());
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 5; ++c) {
      double acc = 0;
      for (int b = 0; b < 4; ++b) {
        const size_t k = static_cast<size_t>((a * 4 + b) * 5 + c);
        acc += x[k];
        want[k] = acc;
      }
    }
  expect_near_all(h.data(out), want, 1e-6);
  // dtype=float64 with a float64 out.
  int32_t dout = h.tensor(ScalarType::kDouble, {3, 4, 5});
  ASSERT_TRUE(h.call("aten::cumsum.out", {tx, h.i(-2), h.i(7), dout, dout}).ok());
  expect_near_all(h.data(dout), want, 1e-12);
  EXPECT_OP_ERROR(h.call("aten::cumsum.out", {tx, h.i(1), h.i(4), dout, dout}), "aten::cumsum.out");
  EXPECT_OP_ERROR(h.call("aten::cumsum.out", {tx, h.i(3), h.none(), out, out}), "aten::cumsum.out");
  int32_t n = h.none();
  EXPECT_OP_ERROR(h.call("aten::cumsum.out", {tx, h.i(0), h.none(), n, n}), "aten::cumsum.out");
}

TEST(CpuCumsumKernel, CumprodAndDegenerate) {
  Harness h;
  int32_t tx = h.tensor(ScalarType::kInt, {2, 3}, {1, 2, 3, -1, 4, 0});
  int32_t out = h.tensor(ScalarType::kLong, {2, 3});
  ASSERT_TRUE(h.call("aten::cumprod.out", {tx, h.i(1), h.none(), out, out}).ok());
  EXPECT_EQ(h.data(out), (std::vector<double>{1, 2, 6, -1, -4, 0}));
  int32_t e = h.tensor(ScalarType::kFloat, {0, 3});
  int32_t eout = h.tensor(ScalarType::kFloat, {0, 3});
  ASSERT_TRUE(h.call("aten::cumsum.out", {e, h.i(0), h.none(), eout, eout}).ok());
  int32_t s = h.tensor(ScalarType::kFloat, {}, {2.5});
  int32_t sout = h.tensor(ScalarType::kFloat, {});
  ASSERT_TRUE(h.call("aten::cumsum.out", {s, h.i(0), h.none(), sout, sout}).ok());
  EXPECT_EQ(h.data(sout)[0], 2.5);
}

}  // namespace
}  // namespace wick::cpu::testing
