// gpu::UploadStaging: uploads through the persistent mapped staging buffer land where and
// when Buffer::write's would, call after call, and writes that do not fit fall back.
#ifdef WICK_HAVE_WEBGPU

#include "gpu/upload_staging.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpu/buffer.h"
#include "gpu_test_util.h"

namespace wick::gpu {
namespace {

std::vector<uint32_t> pattern(size_t n, uint32_t seed) {
  std::vector<uint32_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = seed * 2654435761u + static_cast<uint32_t>(i) * 40503u;
  return v;
}

std::vector<uint32_t> read_back(const Buffer& b, size_t n) {
  std::vector<uint32_t> out(n, 0xdeadbeef);
  EXPECT_TRUE(b.read(std::span<uint32_t>(out)).ok());
  return out;
}

TEST(GpuUploadStaging, ConsecutiveCallsEachLandTheirOwnData) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  auto a = Buffer::create_storage(device, 4096 * 4, "a");
  auto b = Buffer::create_storage(device, 100 * 4, "b");
  ASSERT_TRUE(a.ok() && b.ok());
  UploadStaging staging(device);
  for (uint32_t call = 0; call < 3; ++call) {
    std::vector<uint32_t> va = pattern(4096, call + 1), vb = pattern(100, call + 100);
    ASSERT_TRUE(staging.begin((va.size() + vb.size()) * 4).ok());
    ASSERT_TRUE(staging.write(*a, va.data(), va.size() * 4).ok());
    ASSERT_TRUE(staging.write(*b, vb.data(), vb.size() * 4).ok());
#ifndef __EMSCRIPTEN__
    EXPECT_EQ(staging.staged_bytes(), (va.size() + vb.size()) * 4);
    EXPECT_EQ(staging.direct_bytes(), 0u);
#endif
    ASSERT_TRUE(staging.flush().ok());
    // The host copies may change at once: the data was taken before flush returned.
    std::vector<uint32_t> want_a = va, want_b = vb;
    va.assign(va.size(), 0);
    vb.assign(vb.size(), 0);
    EXPECT_EQ(read_back(*a, want_a.size()), want_a) << "call " << call;
    EXPECT_EQ(read_back(*b, want_b.size()), want_b) << "call " << call;
  }
}

TEST(GpuUploadStaging, WritesLargerThanTheStagingBufferGoDirect) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  auto small = Buffer::create_storage(device, 64 * 4, "small");
  auto big = Buffer::create_storage(device, 8192 * 4, "big");
  ASSERT_TRUE(small.ok() && big.ok());
  UploadStaging staging(device, /*max_bytes=*/1024);  // room for `small`, not for `big`
  for (uint32_t call = 0; call < 2; ++call) {
    std::vector<uint32_t> vs = pattern(64, call + 7), vb = pattern(8192, call + 9);
    ASSERT_TRUE(staging.begin((vs.size() + vb.size()) * 4).ok());
    ASSERT_TRUE(staging.write(*small, vs.data(), vs.size() * 4).ok());
    ASSERT_TRUE(staging.write(*big, vb.data(), vb.size() * 4).ok());
#ifndef __EMSCRIPTEN__
    EXPECT_EQ(staging.capacity(), 1024u);
    EXPECT_EQ(staging.staged_bytes(), vs.size() * 4);
    EXPECT_EQ(staging.direct_bytes(), vb.size() * 4);
#endif
    ASSERT_TRUE(staging.flush().ok());
    EXPECT_EQ(read_back(*small, vs.size()), vs) << "call " << call;
    EXPECT_EQ(read_back(*big, vb.size()), vb) << "call " << call;
  }
}

TEST(GpuUploadStaging, GrowsAndPadsAnOddTail) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  auto dst = Buffer::create_storage(device, 10, "ten bytes");
  ASSERT_TRUE(dst.ok());
  UploadStaging staging(device);
  const uint8_t first[4] = {1, 2, 3, 4};
  ASSERT_TRUE(staging.begin(4).ok());
  ASSERT_TRUE(staging.write(*dst, first, 4).ok());
  ASSERT_TRUE(staging.flush().ok());
  const uint8_t bytes[10] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0xaa};
  ASSERT_TRUE(staging.begin(12).ok());  // grows from 4 bytes
  ASSERT_TRUE(staging.write(*dst, bytes, 10).ok());
  ASSERT_TRUE(staging.flush().ok());
  uint8_t out[10] = {};
  ASSERT_TRUE(dst->read(out, 10).ok());
  EXPECT_EQ(std::vector<uint8_t>(out, out + 10), std::vector<uint8_t>(bytes, bytes + 10));
}

TEST(GpuUploadStaging, OutOfRangeWriteIsAClearError) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  auto dst = Buffer::create_storage(device, 16, "sixteen");
  ASSERT_TRUE(dst.ok());
  UploadStaging staging(device);
  std::vector<uint32_t> v(8, 1);
  ASSERT_TRUE(staging.begin(32).ok());
  Status s = staging.write(*dst, v.data(), 32);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.to_string().find("outside"), std::string::npos) << s.to_string();
  EXPECT_TRUE(staging.flush().ok());
}

}  // namespace
}  // namespace wick::gpu

#endif  // WICK_HAVE_WEBGPU
