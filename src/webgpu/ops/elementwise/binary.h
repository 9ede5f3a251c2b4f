#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"

namespace wick::webgpu {

class Graph;
class OpArgs;

// Operation codes of binary.wgsl.
enum class BinaryOp : uint32_t {
  kAdd = 0, kSub = 1, kMul = 2, kDiv = 3, kPow = 4, kMin = 5, kMax = 6,
  kEq = 7, kNe = 8, kLt = 9, kLe = 10, kGt = 11, kGe = 12,
  kLogicalAnd = 13, kLogicalOr = 14, kBitwiseAnd = 15, kFloorDiv = 16, kRemainder = 17, kBitwiseOr = 18,
  kTruncDiv = 19,
};

// The op's builder, variant = BinaryOp: [self, other (a tensor, or a Scalar), (alpha,) out].
Status build_binary(Graph& g, const OpArgs& args);

struct GpuTensor;
// One binary.wgsl dispatch: out = op(a, b), or op(a, scalar) when b is null.
Status add_binary(Graph& g, const char* name, BinaryOp op, GpuTensor* a, GpuTensor* b, double scalar, double alpha,
                  GpuTensor* out);

}  // namespace wick::webgpu
