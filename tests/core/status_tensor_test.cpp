// Errors are values down to the allocator: AlignedBuffer and Tensor::allocate answer an
// impossible size with OutOfResources instead of throwing bad_alloc, and reading the value
// of an error Result stops the process with the error's message in every build type
// (the tests build with -DNDEBUG, where an assert() would read an empty optional).
#include <gtest/gtest.h>

#include <cstdint>

#include "core/status.h"
#include "core/tensor.h"

namespace wick {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

TEST(AlignedBuffer, ZeroedAlignedStorage) {
  auto b = AlignedBuffer::allocate(100, "test");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(b->size(), 100u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % 64, 0u);
  for (size_t i = 0; i < b->size(); ++i) ASSERT_EQ(b->data()[i], 0) << i;
}

TEST(AlignedBuffer, ASizeNoAllocatorHasIsAnErrorNamingIt) {
  auto b = AlignedBuffer::allocate(SIZE_MAX - 1, "planned buffer 3");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), ErrorCode::kOutOfResources);
  EXPECT_NE(b.status().message().find("planned buffer 3"), std::string::npos) << b.status().to_string();
  // 4 EiB passes the rounding check and reaches aligned_alloc, which returns null. ASan's
  // allocator reports such a request instead of returning null (allocator_may_return_null=0).
  if (kAsan) GTEST_SKIP() << "ASan reports huge allocations itself";
  auto huge = AlignedBuffer::allocate(uint64_t{1} << 62, "huge");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), ErrorCode::kOutOfResources);
  EXPECT_NE(huge.status().message().find("out of memory for 4611686018427387904 bytes"), std::string::npos)
      << huge.status().to_string();
}

TEST(TensorAllocate, BadShapesAreErrors) {
  auto neg = Tensor::allocate(ScalarType::kFloat, {2, -3});
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(neg.status().message().find("[2, -3]"), std::string::npos) << neg.status().to_string();
  auto overflow = Tensor::allocate(ScalarType::kFloat, {INT64_MAX / 2, 4});
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().code(), ErrorCode::kInvalidArgument);
  auto ok = Tensor::allocate(ScalarType::kFloat, {3, 5});
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  EXPECT_EQ(ok->capacity, 60u);
  EXPECT_EQ(ok->numel(), 15);
}

TEST(TensorAllocate, MoreThanTheAllocatorHasIsOutOfResources) {
  if (kAsan) GTEST_SKIP() << "ASan reports huge allocations itself";
  auto t = Tensor::allocate(ScalarType::kFloat, {int64_t{1} << 30, int64_t{1} << 30});  // 4 EiB
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), ErrorCode::kOutOfResources);
  EXPECT_NE(t.status().message().find("float32[1073741824, 1073741824]"), std::string::npos) << t.status().to_string();
}

Result<int> failing() { return Status(ErrorCode::kNotFound, "method 'forXard' is not in the program"); }

TEST(ResultDeathTest, ValueOfAnErrorAbortsWithItsMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH((void)failing().value(), "Result::value\\(\\) on an error: NotFound: method 'forXard'");
  EXPECT_DEATH((void)*failing(), "Result::value\\(\\) on an error");
  EXPECT_EQ(Result<int>(7).value(), 7);
}

}  // namespace
}  // namespace wick
