#include "cli/vk_summary.h"

#include <map>
#include <string>

#include "vkgraph/vk_blob.h"
#include "vkgraph/vk_plan.h"

namespace wick::cli {

nlohmann::json vk_delegate_summary(std::span<const uint8_t> blob) {
  auto parsed = vkgraph::parse_vk_blob(blob);
  if (!parsed.ok()) return {{"error", parsed.status().to_string()}};
  const vk::VkGraph& graph = *parsed->graph;
  std::map<std::string, int> ops;
  if (graph.chain())
    for (const vk::OperatorCall* op : *graph.chain())
      if (op && op->name()) ops[op->name()->str()]++;
  uint64_t tensors = 0, largest_elements = 0, largest_bytes = 0;
  if (graph.values()) {
    for (const vk::VkValue* v : *graph.values()) {
      if (!v || v->value_type() != vk::GraphTypes::VkTensor) continue;
      const vk::VkTensor* t = v->value_as_VkTensor();
      uint64_t numel = 1;
      if (t->dims())
        for (uint32_t d : *t->dims()) numel *= d;  // uint32 dims, rank <= 8 in valid graphs
      ++tensors;
      if (numel > largest_elements) largest_elements = numel;
      const uint64_t bytes = numel * vkgraph::vk_elem_size(t->datatype());
      if (bytes > largest_bytes) largest_bytes = bytes;
    }
  }
  return {{"ops", ops}, {"tensors", tensors}, {"largest_tensor_elements", largest_elements},
          {"largest_tensor_bytes", largest_bytes}};
}

}  // namespace wick::cli
