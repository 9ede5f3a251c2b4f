#include "webgpu/f16_weights.h"

#include <string_view>

#include "core/dtype.h"

namespace wick::webgpu {

namespace {
constexpr std::string_view kLinear = "aten.linear.default";
constexpr std::string_view kPrepack = "et_vk.prepack.default";
constexpr size_t kLinearWeightArg = 1;  // linear(x, weight, bias?) -> out
}  // namespace

std::vector<bool> plan_f16_weights(const vkgraph::Plan& plan) {
  const size_t n = plan.values.size();
  auto valid = [n](int32_t id) { return id >= 0 && static_cast<size_t>(id) < n; };
  // root[v]: the value v stands for through prepack chains (v itself otherwise).
  std::vector<int32_t> root(n);
  for (size_t v = 0; v < n; ++v) root[v] = static_cast<int32_t>(v);
  for (const vkgraph::OpCall& call : plan.ops)
    if (call.name == kPrepack && call.args.size() == 2 && valid(call.args[0]) && valid(call.args[1]))
      root[static_cast<size_t>(call.args[1])] = call.args[0];
  auto root_of = [&](int32_t id) {
    for (size_t hops = 0; hops < n && root[static_cast<size_t>(id)] != id; ++hops) id = root[static_cast<size_t>(id)];
    return id;
  };

  std::vector<bool> candidate(n, false), rejected(n, false);
  for (size_t v = 0; v < n; ++v) {
    const vkgraph::ValueDecl& d = plan.values[v];
    const vkgraph::TensorDecl& t = d.tensor;
    candidate[v] = d.kind == vkgraph::ValueKind::kTensor && t.is_constant() && t.dtype == vk::VkDataType::FLOAT32 &&
                   t.rank() == 2 && t.dims[0] > 0 && t.dims[1] > 0 && t.dims[0] % 4 == 0 && t.dims[1] % 4 == 0 &&
                   t.constant.size() == static_cast<size_t>(t.numel()) * 4;
  }
  std::vector<bool> used_by_linear(n, false);
  auto reject_root = [&](int32_t id) {
    if (valid(id)) rejected[static_cast<size_t>(root_of(id))] = true;
  };
  for (const vkgraph::OpCall& call : plan.ops) {
    const bool prepack = call.name == kPrepack && call.args.size() == 2;
    for (size_t i = 0; i < call.args.size(); ++i) {
      const int32_t id = call.args[i];
      if (!valid(id)) continue;
      if (prepack) continue;  // passes the constant on; its uses are checked where they are
      if (call.name == kLinear && i == kLinearWeightArg) {
        used_by_linear[static_cast<size_t>(root_of(id))] = true;
        continue;
      }
      reject_root(id);
      // A list argument (cat's inputs...) uses its items.
      const vkgraph::ValueDecl& d = plan.values[static_cast<size_t>(id)];
      if (d.kind == vkgraph::ValueKind::kValueList)
        for (int32_t item : d.items) reject_root(item);
    }
  }
  for (int32_t id : plan.input_ids) reject_root(id);
  for (int32_t id : plan.output_ids) reject_root(id);

  std::vector<bool> f16(n, false);
  for (size_t v = 0; v < n; ++v) {
    const size_t r = static_cast<size_t>(root_of(static_cast<int32_t>(v)));
    f16[v] = candidate[r] && used_by_linear[r] && !rejected[r];
  }
  return f16;
}

std::vector<uint32_t> pack_f16_pairs(std::span<const float> values) {
  std::vector<uint32_t> words((values.size() + 1) / 2, 0);
  for (size_t i = 0; i < values.size(); ++i)
    words[i / 2] |= static_cast<uint32_t>(float_to_half(values[i])) << (16 * (i % 2));
  return words;
}

}  // namespace wick::webgpu
