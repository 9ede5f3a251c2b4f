// The one order of top-k results in Wick, shared by the host top-k of Method outputs
// (runtime/output_topk.cpp), the GPU top-k's readback (webgpu/output_topk.cpp) and the
// sampler (llm/sampler.cpp): by value, best first; equal values by the lower index first
// (torch.topk's order). The three must agree, or greedy decoding on the GPU and on the
// host could pick different tokens on a tie.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/value.h"

namespace wick {

using TopKCandidate = std::pair<float, int32_t>;  // (value, index)

inline bool ranks_before(const TopKCandidate& a, const TopKCandidate& b) {
  return a.first > b.first || (a.first == b.first && a.second < b.second);
}

// Sorts the best `k` candidates to the front in that order and drops the rest; all of
// them, sorted, when k >= their count.
inline void keep_best(std::vector<TopKCandidate>& cand, size_t k) {
  if (k < cand.size()) {
    std::partial_sort(cand.begin(), cand.begin() + static_cast<std::ptrdiff_t>(k), cand.end(), ranks_before);
    cand.resize(k);
  } else {
    std::sort(cand.begin(), cand.end(), ranks_before);
  }
}

inline TopK to_topk(const std::vector<TopKCandidate>& cand) {
  TopK out;
  out.ids.reserve(cand.size());
  out.values.reserve(cand.size());
  for (const auto& [v, i] : cand) {
    out.values.push_back(v);
    out.ids.push_back(i);
  }
  return out;
}

}  // namespace wick
