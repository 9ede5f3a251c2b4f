// Floating-point operations of the ops whose speed is judged in FLOP/s (convolutions,
// matrix products, attention), from their current shapes, for the profile's GFLOP and
// TFLOP/s columns (runtime/profile_table.h). A multiply-add counts as 2 FLOPs; bias adds,
// epilogues, softmax and the like are not counted (they are small next to the products).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace wick::webgpu {

struct OpShapes {
  std::vector<std::vector<int64_t>> args;  // each argument's shape, in the op's order (empty: not a tensor)
  std::vector<int64_t> out;                // the result's shape (a fused convolution's: the chain's last)
  bool transposed = false;                 // aten.convolution's flag
};

// Whether op_flops counts `op` (aten.convolution, et_vk.conv_with_clamp, aten.linear, mm,
// bmm, addmm, et_vk.linear_q4gsw, et_vk.sdpa).
bool counts_flops(std::string_view op);

// 0 for other ops or shapes that do not fit the op.
//   convolution: 2 * numel(out) * (IC/groups) * KH * KW (weight [OC, IC/groups, KH, KW]);
//     transposed: 2 * numel(input) * (OC/groups) * KH * KW (weight [IC, OC/groups, KH, KW])
//   linear, linear_q4gsw, mm, bmm, addmm: 2 * numel(out) * K (K: the left operand's last dim)
//   sdpa (q [B,H,Sq,D], k [B,H,Skv,D]): 4 * numel(q) * Skv (Q K^T and the product with V)
double op_flops(std::string_view op, const OpShapes& s);

}  // namespace wick::webgpu
