#include "webgpu/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace wick::webgpu {

namespace {

size_t find_root(std::vector<size_t>& parent, size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

}  // namespace

std::vector<size_t> in_place_args(std::string_view op) {
  if (op == "sdpa_with_kv_cache.default") return {3, 4};
  if (op == "update_cache.default") return {1};
  if (op == "et_vk.adamw_step.default") return {0, 1, 2};
  return {};
}

MemoryPlan plan_memory(const std::vector<PlannedTensor>& tensors, const std::vector<std::pair<size_t, size_t>>& aliases) {
  const size_t n = tensors.size();
  std::vector<size_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  MemoryPlan plan;
  for (const auto& [src, dst] : aliases) {
    const size_t a = find_root(parent, src), b = find_root(parent, dst);
    if (a == b) continue;
    parent[b] = a;
    ++plan.aliased;
  }
  // Groups: one buffer each, live over the union of their members' lifetimes.
  struct Group {
    uint64_t bytes = 0;
    size_t first = SIZE_MAX, last = 0;
    int slot = -1;
  };
  std::vector<Group> groups(n);
  for (size_t i = 0; i < n; ++i) {
    Group& g = groups[find_root(parent, i)];
    g.bytes = std::max(g.bytes, tensors[i].bytes);
    g.first = std::min(g.first, tensors[i].first);
    g.last = std::max(g.last, tensors[i].last);
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i)
    if (find_root(parent, i) == i) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return groups[a].first < groups[b].first || (groups[a].first == groups[b].first && groups[a].bytes > groups[b].bytes);
  });
  // Greedy by start: a buffer is free once its last group's last reader has run; take the
  // smallest free buffer that fits, else grow the largest free one, else open a new one.
  std::vector<size_t> busy_until;  // per slot
  for (size_t gi : order) {
    Group& g = groups[gi];
    int best = -1;
    for (size_t s = 0; s < busy_until.size(); ++s) {
      if (busy_until[s] >= g.first) continue;  // still read at or after this group's producer
      const bool fits = plan.slot_bytes[s] >= g.bytes;
      if (best < 0) { best = static_cast<int>(s); continue; }
      const bool best_fits = plan.slot_bytes[static_cast<size_t>(best)] >= g.bytes;
      if (fits && (!best_fits || plan.slot_bytes[s] < plan.slot_bytes[static_cast<size_t>(best)])) best = static_cast<int>(s);
      else if (!fits && !best_fits && plan.slot_bytes[s] > plan.slot_bytes[static_cast<size_t>(best)]) best = static_cast<int>(s);
    }
    if (best < 0) {
      best = static_cast<int>(busy_until.size());
      busy_until.push_back(0);
      plan.slot_bytes.push_back(0);
    }
    g.slot = best;
    busy_until[static_cast<size_t>(best)] = g.last;
    plan.slot_bytes[static_cast<size_t>(best)] = std::max(plan.slot_bytes[static_cast<size_t>(best)], g.bytes);
  }
  plan.slot.resize(n);
  for (size_t i = 0; i < n; ++i) plan.slot[i] = groups[find_root(parent, i)].slot;
  return plan;
}

}  // namespace wick::webgpu
