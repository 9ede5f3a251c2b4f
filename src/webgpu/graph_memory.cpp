// Graph::finalize_memory_plan (GraphOptions::joint_memory_plan): one buffer layout for every
// planned tensor, made after all fusions are planned, so that it sees at once
//  * the lifetimes of the ops that run: a fused conv writes its chain's output and reads its
//    prologue and residual at the conv, a fused chain reads its operands at its last op, a
//    fused attention its inputs at the op it replaces; folded and skipped ops touch nothing,
//    so a value no running op touches (a fused-away intermediate) gets no memory;
//  * views (memory_plan.h's flat copies and ops/shape's range_views) and in-place cats
//    (cat_plan.h) as offsets inside one group: a value lives at a byte offset of its group
//    root's words, and the group is live from its first member's producer to its last
//    member's last reader.
// Groups are then packed into buffers by lifetime (memory_plan.h). Before, views were
// planned first and every in-place cat took a buffer of its own on top of that plan, so
// the buffers the cat's values had been given stayed allocated and unused.
//
// Correctness does not rest on the provisional plan the fusion passes saw (its buffers were
// placeholders): two groups share a buffer only when no running op touches both, which is
// also what WebGPU's one-usage-per-buffer rule in a dispatch needs (cat_plan.h checks the
// same inside a group).
#include <algorithm>
#include <map>

#include "webgpu/graph.h"
#include "webgpu/memory_plan.h"

namespace wick::webgpu {

Status Graph::finalize_memory_plan(const vkgraph::Plan& plan) {
  const size_t n = values_.size(), n_ops = plan.ops.size();
  planned_.resize(n, false);
  auto planned = [&](int32_t id) { return id >= 0 && static_cast<size_t>(id) < n && planned_[static_cast<size_t>(id)]; };
  auto bytes_of = [&](size_t id) { return static_cast<uint64_t>(std::max<int64_t>(values_[id].tensor.max_numel(), 1)) * 4; };

  // Where each planned value lives: its group root and byte offset there. The cat plan
  // resolved views and cats together; without one, the view links alone.
  std::vector<int32_t> root(n, -1);
  std::vector<uint64_t> offset(n, 0);
  for (size_t v = 0; v < n; ++v) root[v] = static_cast<int32_t>(v);
  if (joint_root_.size() == n) {
    for (size_t v = 0; v < n; ++v)
      if (joint_root_[v] >= 0) {
        root[v] = joint_root_[v];
        offset[v] = static_cast<uint64_t>(joint_offset_[v]) * 4;
      }
  } else {
    std::vector<int32_t> parent(n, -1);
    std::vector<uint64_t> rel(n, 0);
    for (const ViewLink& l : view_links_) {
      parent[static_cast<size_t>(l.dst)] = l.src;
      rel[static_cast<size_t>(l.dst)] = l.offset;
    }
    for (size_t v = 0; v < n; ++v) {
      int32_t r = static_cast<int32_t>(v);
      uint64_t off = 0;
      for (size_t guard = 0; parent[static_cast<size_t>(r)] >= 0 && guard < n; ++guard) {
        off += rel[static_cast<size_t>(r)];
        r = parent[static_cast<size_t>(r)];
      }
      root[v] = r;
      offset[v] = off;
    }
  }
  for (size_t v = 0; v < n; ++v)
    if (planned_[v] && !planned(root[v]))
      return Status(ErrorCode::kInternal, "memory plan: value " + std::to_string(v) + " lives in unplanned value " +
                                              std::to_string(root[v]));

  // Lifetimes over the ops that run. Inputs are written before the first op (the upload),
  // outputs read after the last (the readback copies).
  std::vector<size_t> first(n, SIZE_MAX), last(n, 0);
  auto touch = [&](int32_t id, size_t at) {
    if (id < 0 || static_cast<size_t>(id) >= n) return;
    const GValue& v = values_[static_cast<size_t>(id)];
    auto one = [&](int32_t t) {
      if (!planned(t)) return;
      first[static_cast<size_t>(t)] = std::min(first[static_cast<size_t>(t)], at);
      last[static_cast<size_t>(t)] = std::max(last[static_cast<size_t>(t)], at);
    };
    if (v.kind == GValue::kTensor) one(id);
    else if (v.kind == GValue::kValueList)
      for (int32_t item : v.items) one(item);
  };
  for (int32_t id : input_ids_) touch(id, 0);
  for (int32_t id : output_ids_) touch(id, n_ops);
  // The LLM fusions (graphs without convolutions) replace ops with kernels that read the
  // skipped ops' operands; their skipped ops keep their uses (longer is safe).
  const bool llm = !llm_fusions_.skipped.empty() || !llm_fusions_.replaced.empty();
  for (const auto& [at, ids_read] : llm_fusions_.extra_uses)
    for (int32_t id : ids_read) touch(id, at);
  std::vector<bool> attention_skipped(n_ops, false);
  for (size_t i : attention_fusions_.skipped)
    if (i < n_ops) attention_skipped[i] = true;
  // Ops skipped by a fusion this plan does not know (one added without teaching it here)
  // may have their results written, and operands read, at another op: their values are
  // taken as live from the start to their last appearance (safe, if wasteful).
  std::vector<bool> known_skip(n_ops, false);
  for (size_t i = 0; i < n_ops && i < conv_skip_.size(); ++i) known_skip[i] = conv_skip_[i];
  for (size_t i = 0; i < n_ops; ++i) known_skip[i] = known_skip[i] || attention_skipped[i];
  for (size_t i : llm_fusions_.skipped)
    if (i < n_ops) known_skip[i] = true;
  for (const auto& [at, c] : chains_)
    for (size_t i : c.folded)
      if (i < n_ops) known_skip[i] = true;
  for (const auto& [at, e] : matmul_epilogues_)
    for (size_t i : e.folded)
      if (i < n_ops) known_skip[i] = true;
  for (size_t i = 0; i < n_ops; ++i) {
    if (!skip_op_[i] || known_skip[i]) continue;
    for (int32_t id : plan.ops[i].args) {
      touch(id, 0);
      touch(id, i);
    }
  }
  for (size_t i = 0; i < n_ops; ++i) {
    if (skip_op_[i] && !(llm && !attention_skipped[i])) continue;
    if (auto af = attention_fusions_.fused.find(i); af != attention_fusions_.fused.end()) {
      for (int32_t id : af->second.uses) touch(id, i);
      continue;
    }
    // A fused chain reads its operands and writes its output at its last op; that op's own
    // input is an intermediate nothing writes.
    if (auto c = chains_.find(i); c != chains_.end()) {
      for (int32_t id : c->second.operands) touch(id, i);
      touch(c->second.out_id, i);
      continue;
    }
    const std::vector<int32_t>& args = plan.ops[i].args;
    // A product with an epilogue (matmul_fusion.cpp) writes the last folded op's result and
    // reads the residual and per-column operands; its own result is never written.
    if (auto me = matmul_epilogues_.find(i); me != matmul_epilogues_.end()) {
      const MatmulEpilogue& e = me->second;
      for (size_t k = 0; k < args.size(); ++k)
        if (!(k + 1 == args.size() && e.out_id >= 0 && e.out_id != args[k])) touch(args[k], i);
      for (int32_t id : {e.out_id, e.residual_id, e.column_id}) touch(id, i);
      continue;
    }
    auto f = fusions_.find(i);
    for (size_t k = 0; k < args.size(); ++k) {
      if (f != fusions_.end()) {
        // A fused conv writes its chain's output, not its own result, and with a prologue
        // reads the multiply's operands, not its product: neither is ever written.
        if (k + 1 == args.size() && f->second.out_id >= 0 && f->second.out_id != args[k]) continue;
        if (k == 0 && f->second.scale_id >= 0) continue;
      }
      touch(args[k], i);
    }
    if (f != fusions_.end())
      for (int32_t id : {f->second.out_id, f->second.x_id, f->second.scale_id, f->second.residual_id}) touch(id, i);
  }

  // One planned tensor per group: its extent and the union of its members' lifetimes.
  std::map<int32_t, size_t> group_of_root;
  std::vector<PlannedTensor> groups;
  std::vector<int32_t> group_root;
  std::vector<bool> group_used;
  for (size_t v = 0; v < n; ++v) {
    if (!planned_[v]) continue;
    auto [it, fresh] = group_of_root.emplace(root[v], groups.size());
    if (fresh) {
      groups.push_back(PlannedTensor{4, SIZE_MAX, 0});
      group_root.push_back(root[v]);
      group_used.push_back(false);
    }
    PlannedTensor& g = groups[it->second];
    g.bytes = std::max(g.bytes, offset[v] + bytes_of(v));
    if (first[v] == SIZE_MAX) continue;
    group_used[it->second] = true;
    g.first = std::min(g.first, first[v]);
    g.last = std::max(g.last, last[v]);
  }
  // The groups no running op touches are never bound: they all point at the first buffer
  // (a 4-byte one where there is none), outside the packing.
  std::vector<PlannedTensor> live;
  std::vector<int> live_index(groups.size(), -1);
  for (size_t k = 0; k < groups.size(); ++k)
    if (group_used[k]) {
      live_index[k] = static_cast<int>(live.size());
      live.push_back(groups[k]);
    }
  MemoryPlan mp = plan_memory(live, {});
  const int dead_slot = 0;
  if (live.size() < groups.size() && mp.slot_bytes.empty()) mp.slot_bytes.push_back(4);
  std::vector<int> slot_of_group(groups.size(), dead_slot);
  for (size_t k = 0; k < groups.size(); ++k)
    if (live_index[k] >= 0) slot_of_group[k] = mp.slot[static_cast<size_t>(live_index[k])];

  std::vector<std::shared_ptr<gpu::Buffer>> slots;
  for (size_t s = 0; s < mp.slot_bytes.size(); ++s) {
    WICK_ASSIGN_OR_RETURN(gpu::Buffer buf, gpu::Buffer::create_storage(device_, std::max<uint64_t>(mp.slot_bytes[s], 4),
                                                                       "planned " + std::to_string(s)));
    slots.push_back(std::make_shared<gpu::Buffer>(std::move(buf)));
    planned_bytes_ += mp.slot_bytes[s];
  }
  // Values at the same place share one buffer object (a flat copy then sees its output is
  // its input: ops/shape's add_flat_copy); a place past offset 0 is a view as large as the
  // largest value there.
  using Place = std::pair<int, uint64_t>;  // slot, byte offset
  std::map<Place, uint64_t> view_bytes;
  auto place_of = [&](size_t v) -> Place {
    const size_t g = group_of_root.at(root[v]);
    return {slot_of_group[g], group_used[g] ? offset[v] : 0};
  };
  for (size_t v = 0; v < n; ++v)
    if (planned_[v] && place_of(v).second != 0) {
      uint64_t& b = view_bytes[place_of(v)];
      b = std::max(b, bytes_of(v));
    }
  std::map<Place, std::shared_ptr<gpu::Buffer>> views;
  for (const auto& [place, bytes] : view_bytes) {
    WICK_ASSIGN_OR_RETURN(gpu::Buffer view, gpu::Buffer::view(*slots[static_cast<size_t>(place.first)], place.second, bytes,
                                                              "planned " + std::to_string(place.first) + " +" +
                                                                  std::to_string(place.second)));
    views[place] = std::make_shared<gpu::Buffer>(std::move(view));
  }
  for (size_t v = 0; v < n; ++v) {
    if (!planned_[v]) continue;
    const Place p = place_of(v);
    values_[v].tensor.buffer = p.second == 0 ? slots[static_cast<size_t>(p.first)] : views.at(p);
    // The cat builder skips pieces already at their place in the output (cat_home).
    if (root[v] != static_cast<int32_t>(v) && group_used[group_of_root.at(root[v])]) {
      cat_homes_[static_cast<int32_t>(v)] = CatHome{root[v], static_cast<int64_t>(offset[v] / 4)};
      cat_homes_[root[v]] = CatHome{root[v], 0};
    }
  }
  return {};
}

}  // namespace wick::webgpu
