// parallel_for covers its range exactly once whatever the thread count, nests (inner calls
// run serially), and leaves no work behind when it returns.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "kernels/cpu/thread_pool.h"

namespace wick::cpu {
namespace {

TEST(ThreadPool, EveryIndexOnceForAnyThreadCount) {
  for (int threads : {1, 2, 3, 8}) {
    set_num_threads(threads);
    EXPECT_EQ(num_threads(), threads);
    for (int64_t n : {0, 1, 7, 100, 1001}) {
      for (int64_t grain : {1, 3, 64}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        parallel_for(n, grain, [&](int64_t b, int64_t e) {
          ASSERT_LE(0, b);
          ASSERT_LE(b, e);
          ASSERT_LE(e, n);
          for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
        });
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << threads << " " << n << " " << i;
      }
    }
  }
  set_num_threads(0);
  EXPECT_GE(num_threads(), 1);
}

TEST(ThreadPool, NestedCallsRunInline) {
  set_num_threads(4);
  std::atomic<int64_t> sum{0};
  parallel_for(16, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      parallel_for(10, 1, [&](int64_t b2, int64_t e2) {
        for (int64_t j = b2; j < e2; ++j) sum.fetch_add(i * 10 + j);
      });
  });
  EXPECT_EQ(sum.load(), 159 * 160 / 2);
  set_num_threads(0);
}

}  // namespace
}  // namespace wick::cpu
