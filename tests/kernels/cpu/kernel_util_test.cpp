#include "kernels/cpu/kernel_util.h"

#include <gtest/gtest.h>

#include <cmath>

namespace wick::cpu {
namespace {

using ST = ScalarType;

TEST(CpuKernelUtil, PromoteTypesFollowsPyTorchTable) {
  EXPECT_EQ(promote_types(ST::kBool, ST::kByte), ST::kByte);
  EXPECT_EQ(promote_types(ST::kByte, ST::kChar), ST::kShort);
  EXPECT_EQ(promote_types(ST::kByte, ST::kInt), ST::kInt);
  EXPECT_EQ(promote_types(ST::kChar, ST::kLong), ST::kLong);
  EXPECT_EQ(promote_types(ST::kInt, ST::kHalf), ST::kHalf);
  EXPECT_EQ(promote_types(ST::kHalf, ST::kBFloat16), ST::kFloat);
  EXPECT_EQ(promote_types(ST::kLong, ST::kFloat), ST::kFloat);
  EXPECT_EQ(promote_types(ST::kFloat, ST::kDouble), ST::kDouble);
  EXPECT_EQ(promote_types(ST::kBool, ST::kBool), ST::kBool);
}

TEST(CpuKernelUtil, CanCast) {
  EXPECT_TRUE(can_cast(ST::kInt, ST::kFloat));
  EXPECT_TRUE(can_cast(ST::kBool, ST::kLong));
  EXPECT_FALSE(can_cast(ST::kFloat, ST::kLong));
  EXPECT_FALSE(can_cast(ST::kInt, ST::kBool));
  EXPECT_TRUE(can_cast(ST::kDouble, ST::kHalf));
}

TEST(CpuKernelUtil, ResultTypeRanksDimsZeroDimsAndNumbers) {
  Tensor f1 = Tensor::make_owned(ST::kFloat, {3}), d0 = Tensor::make_owned(ST::kDouble, {});
  Tensor i1 = Tensor::make_owned(ST::kInt, {3}), l0 = Tensor::make_owned(ST::kLong, {});
  Scalar fs;
  fs.tag = ValueTag::kDouble;
  Scalar is;
  is.tag = ValueTag::kInt;
  {
    ResultType r;
    r.add_tensor(f1);
    r.add_tensor(d0);
    EXPECT_EQ(r.result(), ST::kFloat);
  }
  {
    ResultType r;
    r.add_tensor(i1);
    r.add_tensor(l0);
    EXPECT_EQ(r.result(), ST::kInt);
  }
  {
    ResultType r;
    r.add_tensor(i1);
    r.add_tensor(d0);
    EXPECT_EQ(r.result(), ST::kDouble);
  }
  {
    ResultType r;
    r.add_tensor(i1);
    r.add_scalar(fs);
    EXPECT_EQ(r.result(), ST::kFloat);
  }
  {
    ResultType r;
    r.add_tensor(i1);
    r.add_scalar(is);
    EXPECT_EQ(r.result(), ST::kInt);
  }
}

TEST(CpuKernelUtil, ConversionsAreDefinedForEveryInput) {
  EXPECT_EQ(convert<int32_t>(std::nan("")), INT32_MIN);
  EXPECT_EQ(convert<int32_t>(3e9), INT32_MIN);
  EXPECT_EQ(convert<int8_t>(300.0), 44);
  EXPECT_EQ(convert<int64_t>(1e300), INT64_MIN);
  EXPECT_EQ(convert<int64_t>(-2.7), -2);
  EXPECT_EQ(convert<uint8_t>(int64_t{-1}), 255);
  EXPECT_EQ(convert<bool>(0.25), true);
  EXPECT_EQ(convert<float>(Half{0x3c00}), 1.0f);
  EXPECT_EQ(convert<Half>(2.0).bits, 0x4000);
}

TEST(CpuKernelUtil, BroadcastShapesAndStrides) {
  const int64_t a[] = {3, 1, 5}, b[] = {4, 1};
  auto s = broadcast_shapes("op", a, b);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value(), (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(broadcast_strides(a, s.value()), (std::vector<int64_t>{5, 0, 1}));
  EXPECT_EQ(broadcast_strides(b, s.value()), (std::vector<int64_t>{0, 1, 0}));
  const int64_t c[] = {2};
  auto bad = broadcast_shapes("aten::x.out", a, c);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("aten::x.out: ", 0), 0u);
}

TEST(CpuKernelUtil, NormalizeDim) {
  EXPECT_EQ(normalize_dim("op", -1, 3).value(), 2);
  EXPECT_EQ(normalize_dim("op", 0, 0).value(), 0);
  EXPECT_EQ(normalize_dim("op", -1, 0).value(), 0);
  EXPECT_FALSE(normalize_dim("op", 3, 3).ok());
  EXPECT_FALSE(normalize_dim("op", -4, 3).ok());
  EXPECT_FALSE(normalize_dim("op", 1, 0).ok());
}

// c_api_fuzzer: a bool constant from a file held the byte 2, and converting it loaded
// that byte as a bool (undefined behaviour; UBSan stops there in the ASan run). Every
// nonzero byte now reads as true.
TEST(CpuKernelUtil, BoolBytesAboveOneConvertAsTrue) {
  const uint8_t bytes[4] = {0, 1, 2, 255};
  int64_t as_long[4] = {};
  float as_float[4] = {};
  convert_elements(bytes, ScalarType::kBool, as_long, ScalarType::kLong, 4);
  convert_elements(bytes, ScalarType::kBool, as_float, ScalarType::kFloat, 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(as_long[i], i == 0 ? 0 : 1) << "byte " << int(bytes[i]);
    EXPECT_EQ(as_float[i], i == 0 ? 0.f : 1.f) << "byte " << int(bytes[i]);
  }
}

}  // namespace
}  // namespace wick::cpu
