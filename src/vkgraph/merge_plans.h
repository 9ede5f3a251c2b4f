// One VK00 plan from a run of delegates and host operators (runtime/backend.h, FusedRun):
// the delegates' graphs joined where one reads what an earlier part wrote, with the host
// operators as graph ops between them. A backend then builds one graph for the run, and
// the values that only pass between its parts never leave the device.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "runtime/backend.h"
#include "vkgraph/vk_plan.h"

namespace wick::vkgraph {

// The VK00 chain name of a host operator a merged plan can hold ("aten::any.out" ->
// "aten.any.dim"), or nullopt. Its arguments keep the host call's order: schema, then out.
std::optional<std::string_view> vk_op_of_host_op(std::string_view host_op);

struct MergedPlan {
  Plan plan;
  std::vector<int32_t> args;  // the method's value indices: the plan's inputs, then its outputs
};

// `plans[p]` is the plan of run.parts' delegate p (run.delegates[p]).
Result<MergedPlan> merge_plans(const FusedRun& run, const std::vector<Plan>& plans);

}  // namespace wick::vkgraph
