// Graph::place_concatenations: what cat_plan.h needs, gathered from the built values, the
// chain and the conv fusions; then a buffer per group of values that share one (packed by
// lifetime with memory_plan.h) and a view of it per placed value.
#include <algorithm>
#include <set>
#include <string_view>

#include "webgpu/cat_plan.h"
#include "webgpu/graph.h"
#include "webgpu/memory_plan.h"

namespace wick::webgpu {

namespace {

constexpr std::string_view kCat = "aten.cat.default";

// Ops that write into an argument they did not produce (aten.index_put_, KV-cache updates):
// a value's producer would no longer be its only writer.
bool mutates_argument(std::string_view name) {
  if (name.find("update_cache") != std::string_view::npos) return true;
  const size_t dot = name.find('.');
  const std::string_view op = name.substr(dot == std::string_view::npos ? 0 : dot + 1);
  const size_t end = op.find('.');
  const std::string_view base = op.substr(0, end);
  return !base.empty() && base.back() == '_';
}

}  // namespace

const CatHome* Graph::cat_home(int32_t id) const {
  auto it = cat_homes_.find(id);
  return it == cat_homes_.end() ? nullptr : &it->second;
}

bool Graph::first_cat_copy(int32_t root, int64_t offset, int32_t piece) {
  return cat_copies_.emplace(root, offset, piece).second;
}

bool Graph::inputs_fit_placement(ValueTable& values, std::span<const int32_t> args) const {
  if (cat_placed_ == 0 && fixed_shape_ops_ == 0) return true;
  for (size_t i = 0; i < input_ids_.size() && i < args.size(); ++i) {
    const GValue& gv = values_[static_cast<size_t>(input_ids_[i])];
    if (gv.kind != GValue::kTensor) continue;
    auto host = values.tensor(args[i]);
    if (host.ok() && (*host)->sizes != gv.tensor.max_dims) return false;
  }
  return true;
}

uint64_t Graph::view_alignment() const {
  return std::max<uint64_t>(device_->limits().min_storage_buffer_offset_alignment, 4);
}

bool Graph::shapes_fixed() const {
  if (!options_.fixed_shapes) return false;
  for (const GValue& v : values_)
    if (v.kind == GValue::kSymInt) return false;
  return true;
}

Status Graph::place_concatenations(const vkgraph::Plan& plan) {
  if (!options_.cat_in_place) return {};
  if (!llm_fusions_.replaced.empty() || !llm_fusions_.skipped.empty()) return {};
  const size_t n = values_.size();
  bool any_cat = false;
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    if (mutates_argument(plan.ops[i].name)) return {};
    any_cat = any_cat || (!skip_op_[i] && plan.ops[i].name == kCat);
  }
  if (!any_cat) return {};
  // Offsets are fixed at build time: shapes that change between calls would move them.
  for (const GValue& v : values_)
    if (v.kind == GValue::kSymInt) return {};

  auto each_tensor = [&](int32_t id, auto&& f) {
    if (id < 0 || static_cast<size_t>(id) >= n) return;
    const GValue& v = values_[static_cast<size_t>(id)];
    if (v.kind == GValue::kTensor) f(id);
    else if (v.kind == GValue::kValueList)
      for (int32_t item : v.items)
        if (item >= 0 && static_cast<size_t>(item) < n && values_[static_cast<size_t>(item)].kind == GValue::kTensor) f(item);
  };
  // Lifetimes over every appearance (skipped ops included: longer is safe); the producer is
  // the first appearance, or the convolution a fused chain's output is written by.
  std::vector<size_t> first(n, SIZE_MAX), last(n, 0);
  for (size_t i = 0; i < plan.ops.size(); ++i)
    for (int32_t id : plan.ops[i].args)
      each_tensor(id, [&](int32_t t) {
        first[static_cast<size_t>(t)] = std::min(first[static_cast<size_t>(t)], i);
        last[static_cast<size_t>(t)] = std::max(last[static_cast<size_t>(t)], i);
      });
  for (const auto& [c, f] : fusions_)
    if (f.out_id >= 0 && static_cast<size_t>(f.out_id) < n)
      first[static_cast<size_t>(f.out_id)] = std::min(first[static_cast<size_t>(f.out_id)], c);
  // A fused attention (attention_fusion.h) reads its inputs and writes its result at the op it replaces.
  for (const auto& [at, f] : attention_fusions_.fused)
    for (int32_t id : f.uses) {
      first[static_cast<size_t>(id)] = std::min(first[static_cast<size_t>(id)], at);
      last[static_cast<size_t>(id)] = std::max(last[static_cast<size_t>(id)], at);
    }
  for (const auto& [c, chain] : chains_)  // operands are read at the chain's last op
    for (int32_t id : chain.operands)
      if (id >= 0 && static_cast<size_t>(id) < n) last[static_cast<size_t>(id)] = std::max(last[static_cast<size_t>(id)], c);
  auto is_io = [&](int32_t id) {
    return std::find(input_ids_.begin(), input_ids_.end(), id) != input_ids_.end() ||
           std::find(output_ids_.begin(), output_ids_.end(), id) != output_ids_.end();
  };

  std::vector<CatPlanTensor> tensors(n);
  for (size_t id = 0; id < n; ++id) {
    const GValue& v = values_[id];
    if (v.kind != GValue::kTensor) continue;
    const GpuTensor& t = v.tensor;
    CatPlanTensor& ct = tensors[id];
    ct.kind = static_cast<int>(t.elem);
    ct.dims = t.max_dims;
    ct.movable = t.constant_id < 0 && t.mem_obj_id >= 0 && t.elem != Elem::kPackedBytes && !is_io(static_cast<int32_t>(id)) &&
                 first[id] != SIZE_MAX && !skip_op_[first[id]] && t.buffer;
  }
  // The joint plan (GraphOptions::joint_memory_plan): views already live in their input's
  // words; the cat plan may move their input, never them, and their ops write nothing.
  std::set<std::pair<size_t, int32_t>> view_outputs;  // (op, value)
  if (joint_plan())
    for (const ViewLink& l : view_links_) {
      CatPlanTensor& ct = tensors[static_cast<size_t>(l.dst)];
      ct.view_of = l.src;
      ct.view_offset = static_cast<int64_t>(l.offset / 4);
      view_outputs.emplace(l.op, l.dst);
    }
  std::vector<CatPlanOp> ops(plan.ops.size());
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    if (skip_op_[i]) continue;
    const vkgraph::OpCall& call = plan.ops[i];
    CatPlanOp& op = ops[i];
    if (call.name == kCat && call.args.size() == 3) {
      auto items = value_list(call.args[0], "aten.cat");
      auto dim = int_arg(call.args[1], "aten.cat");
      auto out = tensor(call.args[2], "aten.cat");
      if (items.ok() && dim.ok() && out.ok() && (*out)->rank() > 0) {
        op.is_cat = true;
        op.pieces = *items;
        op.out = call.args[2];
        op.dim = normalize_dim(*dim, (*out)->rank());
      }
    }
    for (int32_t id : call.args)
      each_tensor(id, [&](int32_t t) {
        if (first[static_cast<size_t>(t)] != i) op.reads.push_back(t);
        else if (!view_outputs.count({i, t})) op.writes.push_back(t);
      });
    if (auto af = attention_fusions_.fused.find(i); af != attention_fusions_.fused.end()) {
      for (int32_t id : af->second.uses)
        if (id != af->second.out.id) op.reads.push_back(id);
    }
    auto fused = fusions_.find(i);
    if (fused != fusions_.end()) {
      const ConvFusion& f = fused->second;
      if (f.out_id >= 0) op.writes.push_back(f.out_id);
      for (int32_t id : {f.x_id, f.scale_id, f.residual_id})
        if (id >= 0) op.reads.push_back(id);
    }
    // A matrix product reads its epilogue's operands (matmul_fusion.h). Its output stays
    // where the memory plan put it: its first appearance is a folded (skipped) op, so it is
    // never movable.
    if (auto e = matmul_epilogues_.find(i); e != matmul_epilogues_.end())
      for (int32_t id : {e->second.residual_id, e->second.column_id})
        if (id >= 0) op.reads.push_back(id);
    // A fused elementwise chain reads every operand at its last op (chain_fusion.h).
    auto chain = chains_.find(i);
    if (chain != chains_.end())
      for (int32_t id : chain->second.operands) op.reads.push_back(id);
  }

  const int64_t align_words = std::max<int64_t>(device_->limits().min_storage_buffer_offset_alignment / 4, 1);
  const CatPlacement cp = plan_cat_placement(tensors, ops, align_words);
  if (joint_plan()) {  // finalize_memory_plan lays the buffers out
    joint_root_ = cp.root;
    joint_offset_ = cp.offset;
    cat_placed_ = cp.placed;
    return {};
  }
  if (cp.placed == 0) return {};

  // One buffer per root and the values inside it, live from the first member's producer to
  // the last member's last reader; roots whose lifetimes do not overlap share buffers.
  std::map<int32_t, std::vector<int32_t>> members;
  for (size_t v = 0; v < n; ++v)
    if (cp.root[v] >= 0) members[cp.root[v]].push_back(static_cast<int32_t>(v));
  std::vector<PlannedTensor> groups;
  std::vector<int32_t> roots;
  for (const auto& [root, ms] : members) {
    PlannedTensor g;
    g.bytes = static_cast<uint64_t>(std::max<int64_t>(values_[static_cast<size_t>(root)].tensor.max_numel(), 1)) * 4;
    g.first = first[static_cast<size_t>(root)];
    g.last = last[static_cast<size_t>(root)];
    for (int32_t m : ms) {
      g.first = std::min(g.first, first[static_cast<size_t>(m)]);
      g.last = std::max(g.last, last[static_cast<size_t>(m)]);
    }
    groups.push_back(g);
    roots.push_back(root);
  }
  const MemoryPlan mp = plan_memory(groups, {});
  std::vector<std::shared_ptr<gpu::Buffer>> slots;
  for (size_t s = 0; s < mp.slot_bytes.size(); ++s) {
    WICK_ASSIGN_OR_RETURN(gpu::Buffer buf, gpu::Buffer::create_storage(device_, mp.slot_bytes[s], "cat " + std::to_string(s)));
    slots.push_back(std::make_shared<gpu::Buffer>(std::move(buf)));
    planned_bytes_ += mp.slot_bytes[s];
  }
  for (size_t g = 0; g < roots.size(); ++g) {
    const std::shared_ptr<gpu::Buffer>& slot = slots[static_cast<size_t>(mp.slot[g])];
    values_[static_cast<size_t>(roots[g])].tensor.buffer = slot;
    cat_homes_[roots[g]] = CatHome{roots[g], 0};
    for (int32_t m : members[roots[g]]) {
      GpuTensor& t = values_[static_cast<size_t>(m)].tensor;
      const int64_t offset = cp.offset[static_cast<size_t>(m)];
      WICK_ASSIGN_OR_RETURN(gpu::Buffer view,
                            gpu::Buffer::view(*slot, static_cast<uint64_t>(offset) * 4,
                                              static_cast<uint64_t>(std::max<int64_t>(t.max_numel(), 1)) * 4,
                                              "cat " + std::to_string(mp.slot[g]) + " +" + std::to_string(offset)));
      t.buffer = std::make_shared<gpu::Buffer>(std::move(view));
      cat_homes_[m] = CatHome{roots[g], offset};
    }
  }
  cat_placed_ = cp.placed;
  return {};
}

}  // namespace wick::webgpu
