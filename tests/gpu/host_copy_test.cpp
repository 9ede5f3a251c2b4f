// host_copy (the staging uploads' and readbacks' memcpy, split over helper threads from
// kParallelCopyMinBytes on): every byte lands where memcpy would put it, for sizes around
// the threshold and off the parts' 64-byte boundaries, at unaligned offsets, and with
// several threads copying at once
// (one holds the helpers, the others copy alone).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "gpu/host_copy.h"

namespace wick::gpu {
namespace {

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

TEST(HostCopy, EveryByteAtEverySize) {
  const size_t sizes[] = {0, 1, 63, 4096, kParallelCopyMinBytes - 1, kParallelCopyMinBytes, kParallelCopyMinBytes + 1,
                          kParallelCopyMinBytes + 193, 3 * kParallelCopyMinBytes + 4095, 7 * kParallelCopyMinBytes + 5};
  uint32_t seed = 1;
  for (size_t n : sizes) {
    for (size_t offset : {size_t{0}, size_t{3}}) {
      const std::vector<uint8_t> src = random_bytes(n + offset, seed++);
      // Guard bytes after the destination: nothing past n may be written.
      std::vector<uint8_t> dst(n + offset + 64, 0xA5);
      host_copy(dst.data() + offset, src.data() + offset, n);
      for (size_t i = 0; i < offset; ++i) ASSERT_EQ(dst[i], 0xA5) << "n " << n << " byte " << i << " before";
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(dst[offset + i], src[offset + i]) << "n " << n << " byte " << i;
      for (size_t i = n + offset; i < dst.size(); ++i) ASSERT_EQ(dst[i], 0xA5) << "n " << n << " byte " << i << " past";
    }
  }
}

TEST(HostCopy, ConcurrentCopiesStayApart) {
  const size_t n = 2 * kParallelCopyMinBytes + 777;
  std::vector<std::vector<uint8_t>> src, dst;
  for (uint32_t t = 0; t < 4; ++t) {
    src.push_back(random_bytes(n, 100 + t));
    dst.emplace_back(n, 0);
  }
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep) host_copy(dst[t].data(), src[t].data(), n);
    });
  for (auto& th : threads) th.join();
  for (size_t t = 0; t < 4; ++t) EXPECT_EQ(dst[t], src[t]) << "thread " << t;
}

}  // namespace
}  // namespace wick::gpu
