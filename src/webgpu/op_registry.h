// VK00 operator name -> builder. One line per operator in op_registry.cpp; the builders
// live in ops/<family>/.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace wick::webgpu {

class Graph;

// args: the OperatorCall's value ids (schema arguments in order, then the output).
using OpBuilder = Status (*)(Graph& graph, const std::vector<int32_t>& args);

struct OpEntry {
  const char* name;  // "aten.add.Tensor", as the VK00 chain spells it
  OpBuilder build;
};

const std::vector<OpEntry>& all_ops();
OpBuilder find_op(std::string_view name);

}  // namespace wick::webgpu
