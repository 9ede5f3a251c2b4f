// VK00 operator name -> how the CPU executor runs it. Most operators are one portable
// kernel whose out-variant schema matches the functional one the chain holds, so a table
// line names the kernel and, where the schemas differ, which VK00 arguments it takes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "vkgraph/vk_plan.h"

namespace wick::vkcpu {

class CpuGraph;
struct OpEntry;

using OpBuilder = Status (*)(CpuGraph& graph, const vkgraph::OpCall& call, const OpEntry& entry);

struct OpEntry {
  const char* name;    // "aten.add.Tensor", as the VK00 chain spells it
  OpBuilder build;
  const char* kernel;  // the CPU kernel ("aten::add.out"), for the generic builders
  std::vector<int> picks;  // VK00 argument positions the kernel takes, in order (empty: all)
};

const std::vector<OpEntry>& all_ops();
const OpEntry* find_op(std::string_view name);

}  // namespace wick::vkcpu
