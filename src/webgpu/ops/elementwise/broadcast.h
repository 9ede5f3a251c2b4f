// Broadcast shapes and strides for elementwise kernels (shared with other families).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/status.h"

namespace wick::webgpu {

constexpr int kMaxElementwiseRank = 8;

// PyTorch's broadcast of two shapes; error when a pair of dims differs and neither is 1.
Result<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
// Strides (in elements) to read `in` while walking `out`, 0 along broadcast dims.
std::array<uint32_t, kMaxElementwiseRank> broadcast_strides(const std::vector<int64_t>& in,
                                                            const std::vector<int64_t>& out);
std::array<uint32_t, kMaxElementwiseRank> dims_array(const std::vector<int64_t>& dims);

}  // namespace wick::webgpu
