// Broadcast shapes and strides for elementwise kernels (shared with other families).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "core/status.h"

namespace wick::webgpu {

constexpr int kMaxElementwiseRank = 8;
// Elements per thread of unary.wgsl, binary.wgsl and where.wgsl (their `per` override):
// on SwiftShader one element per invocation left most of the time in per-invocation cost
// (bench/kernels/elementwise/README.md). A grid of n threads becomes elementwise_threads(n).
constexpr uint32_t kElementsPerThread = 4;
inline uint64_t elementwise_threads(uint64_t n) { return (n + kElementsPerThread - 1) / kElementsPerThread; }

// PyTorch's broadcast of two shapes; error when a pair of dims differs and neither is 1.
Result<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
// Strides (in elements) to read `in` while walking `out`, 0 along broadcast dims.
std::array<uint32_t, kMaxElementwiseRank> broadcast_strides(const std::vector<int64_t>& in,
                                                            const std::vector<int64_t>& out);
std::array<uint32_t, kMaxElementwiseRank> dims_array(const std::vector<int64_t>& dims);

// Rewrites (dims, strides of each operand) over `rank` dims into the fewest dims that walk
// the same elements: size-1 dims are dropped and a dim is merged into the one outside it
// when every operand steps through both contiguously. Returns the new rank (at least 1).
// The shaders spend one div/mod per dim per element, so a same-shape op becomes rank 1;
// on SwiftShader that index arithmetic was most of an elementwise op's time.
uint32_t coalesce_dims(uint32_t rank, std::array<uint32_t, kMaxElementwiseRank>& dims,
                       std::initializer_list<std::array<uint32_t, kMaxElementwiseRank>*> strides);

}  // namespace wick::webgpu
