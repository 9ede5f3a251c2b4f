// Elementwise unary operators (activations, math, clamp, logical_not) -> unary.wgsl,
// and aten.where.self -> where.wgsl.
#pragma once

#include <vector>

#include "webgpu/op_registry.h"

namespace wick::webgpu {

void append_unary_ops(std::vector<OpEntry>& ops);

}  // namespace wick::webgpu
