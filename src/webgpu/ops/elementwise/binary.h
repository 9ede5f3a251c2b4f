#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"

namespace wick::webgpu {

class Graph;

// Operation codes of binary.wgsl.
enum class BinaryOp : uint32_t {
  kAdd = 0, kSub = 1, kMul = 2, kDiv = 3, kPow = 4, kMin = 5, kMax = 6,
  kEq = 7, kNe = 8, kLt = 9, kLe = 10, kGt = 11, kGe = 12,
  kLogicalAnd = 13, kLogicalOr = 14, kBitwiseAnd = 15, kFloorDiv = 16, kRemainder = 17, kBitwiseOr = 18,
  kTruncDiv = 19,
};

// args: [self, other, (alpha,) out]; `scalar_other` when `other` is a Scalar value.
Status build_binary(Graph& g, const std::vector<int32_t>& args, BinaryOp op, const char* name, bool has_alpha,
                    bool scalar_other);

}  // namespace wick::webgpu
