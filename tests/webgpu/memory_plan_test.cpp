// webgpu/memory_plan.h: the buffer plan that lets flat copies alias their inputs. Checked
// on random graphs for the two properties that make it safe: tensors joined by a flat copy
// share a buffer, and tensors of different groups whose lifetimes overlap never do.
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "webgpu/memory_plan.h"

namespace wick::webgpu {
namespace {

size_t root(std::vector<size_t>& p, size_t i) { return p[i] == i ? i : p[i] = root(p, p[i]); }

TEST(MemoryPlan, RandomGraphsAreSafe) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 1 + rng() % 40, ops = 1 + rng() % 30;
    std::vector<PlannedTensor> t(n);
    for (PlannedTensor& x : t) {
      x.first = rng() % ops;
      x.last = x.first + rng() % 6;
      x.bytes = 4 * (1 + rng() % 100);
    }
    std::vector<std::pair<size_t, size_t>> aliases;
    for (size_t k = 0; k < n / 3; ++k) {
      size_t a = rng() % n, b = rng() % n;
      if (a == b) continue;
      t[b].first = std::max(t[b].first, t[a].first);  // a view is produced after its input
      t[b].last = std::max(t[b].last, t[b].first);
      aliases.emplace_back(a, b);
    }
    const MemoryPlan plan = plan_memory(t, aliases);
    ASSERT_EQ(plan.slot.size(), n);
    std::vector<size_t> p(n);
    std::iota(p.begin(), p.end(), 0);
    for (auto [a, b] : aliases) p[root(p, b)] = root(p, a);
    std::vector<size_t> gfirst(n, SIZE_MAX), glast(n, 0);
    for (size_t i = 0; i < n; ++i) {
      gfirst[root(p, i)] = std::min(gfirst[root(p, i)], t[i].first);
      glast[root(p, i)] = std::max(glast[root(p, i)], t[i].last);
      ASSERT_GE(plan.slot_bytes[static_cast<size_t>(plan.slot[i])], t[i].bytes);
    }
    for (auto [a, b] : aliases) EXPECT_EQ(plan.slot[a], plan.slot[b]) << "a flat copy shares its input's buffer";
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        const size_t ri = root(p, i), rj = root(p, j);
        if (ri == rj || plan.slot[i] != plan.slot[j]) continue;
        const bool overlap = !(glast[ri] < gfirst[rj] || glast[rj] < gfirst[ri]);
        ASSERT_FALSE(overlap) << "trial " << trial << ": tensors " << i << " and " << j << " share a buffer while both live";
      }
  }
}

TEST(MemoryPlan, ReusesBuffersOfDeadTensors) {
  // a -> view b (read at 2); c produced at 3 can take a's buffer; d at 1 cannot.
  std::vector<PlannedTensor> t = {{64, 0, 1}, {64, 1, 2}, {64, 3, 4}, {32, 1, 3}};
  const MemoryPlan plan = plan_memory(t, {{0, 1}});
  EXPECT_EQ(plan.aliased, 1u);
  EXPECT_EQ(plan.slot[0], plan.slot[1]);
  EXPECT_EQ(plan.slot[2], plan.slot[0]);
  EXPECT_NE(plan.slot[3], plan.slot[0]);
  EXPECT_EQ(plan.slot_bytes.size(), 2u);
}

}  // namespace
}  // namespace wick::webgpu
