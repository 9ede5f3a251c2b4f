// aten.linear's dispatches for operands a fusion made (qkv_fusion.h's joint q/k/v product):
// out = x @ w^T (+ bias), the kernels and rules of aten.linear (register.cpp).
#pragma once

#include "core/status.h"

namespace wick::webgpu {

class Graph;
struct GpuTensor;

// x [..., K], w [N, K], bias [N] or null, out [..., N] (its upper bound must hold the result).
Status build_linear(Graph& g, const char* name, GpuTensor* x, GpuTensor* w, GpuTensor* bias, GpuTensor* out);

}  // namespace wick::webgpu
