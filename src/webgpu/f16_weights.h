// Which linear weights GraphOptions::f16_weights stores as f16 (half the constant memory;
// the linears read them through matmul_large_vec4_f16w.wgsl and sum in f32).
//
// A constant qualifies when it is an f32 [N, K] tensor with N % 4 == 0 and K % 4 == 0 (the
// kernel's vec4 loads) and every use of it, directly or through et_vk.prepack (which shares
// the buffer), is as the weight of aten.linear.default: no other op ever sees f16 data.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vkgraph/vk_plan.h"

namespace wick::webgpu {

// One flag per plan value: the qualifying constants and the prepack outputs that carry them.
std::vector<bool> plan_f16_weights(const vkgraph::Plan& plan);

// IEEE half (round to nearest even) of each f32, two to a u32, the first in the low half:
// the layout unpack2x16float reads. An odd count gets a zero high half in the last word.
std::vector<uint32_t> pack_f16_pairs(std::span<const float> values);

}  // namespace wick::webgpu
