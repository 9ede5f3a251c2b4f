// Graph-build-time fusion (Graph::plan_fusions), run before any op is built:
//
//  * conv epilogues: a chain of elementwise ops that directly follows a convolution
//    (relu, clamp, hardtanh, hardswish, and add/sub/mul/div by a scalar known on the host)
//    is applied by the conv as it stores its result. The conv writes the chain's last
//    output; the intermediate tensors are never written. Each link must be the only user
//    of the previous result, and no link's result may be a graph output except the last.
//  * residual adds: y + r with r shaped as y, for pointwise convs (one per conv).
//  * pointwise-conv prologue: a per-channel multiply right before a 1x1 convolution
//    (squeeze-and-excitation's x * scale[N, C, 1, 1]) is done by the conv as it loads x.
//  * dead copies: clones and dtype/dim-order copies whose result nothing reads any more
//    (the host-known scalars the fused ops took, e.g. hardsigmoid's 3 and 6) are left out.
//
// Buffers: the exporter's memory plan shares buffers between tensors whose lifetimes do
// not overlap. A fused conv writes the chain's output earlier than the plan expects and
// reads the prologue's inputs later, so a fusion is kept only if the buffer the conv
// writes is none of those it reads, and ops in between (only host-known scalar copies
// are allowed there) touch none of them.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <set>

#include "webgpu/graph.h"

namespace wick::webgpu {

namespace {

bool is_conv(const std::string& name) {
  return name == "aten.convolution.default" || name == "et_vk.conv_with_clamp.default";
}

// Pure copies whose output is their last argument: left out when nothing reads it.
bool is_dead_candidate(const std::string& name) {
  return name == "aten.clone.default" || name == "dim_order_ops._to_dim_order_copy.default" ||
         name == "aten._to_copy.default" || name == "aten.view_copy.default";
}

// Copies that carry a host-known scalar through unchanged (dtype conversions included).
bool is_scalar_copy(const std::string& name) {
  return name == "et_vk.prepack.default" || name == "aten.clone.default" ||
         name == "dim_order_ops._to_dim_order_copy.default" || name == "aten._to_copy.default";
}

std::optional<double> scalar_from_bytes(std::span<const uint8_t> b, vk::VkDataType t) {
  auto rd = [&](auto v) -> std::optional<double> {
    if (b.size() < sizeof(v)) return std::nullopt;
    std::memcpy(&v, b.data(), sizeof(v));
    return static_cast<double>(v);
  };
  switch (t) {
    case vk::VkDataType::FLOAT32: return rd(float{});
    case vk::VkDataType::FLOAT64: return rd(double{});
    case vk::VkDataType::INT32: return rd(int32_t{});
    case vk::VkDataType::INT64: return rd(int64_t{});
    case vk::VkDataType::FLOAT16: {
      if (b.size() < 2) return std::nullopt;
      uint16_t h;
      std::memcpy(&h, b.data(), 2);
      return static_cast<double>(half_to_float(h));
    }
    default: return std::nullopt;
  }
}

}  // namespace

void Graph::plan_fusions(const vkgraph::Plan& plan) {
  const size_t n_ops = plan.ops.size();
  const size_t n_vals = values_.size();
  // Names and arguments (the plan checked every id).
  std::vector<std::string> names(n_ops);
  std::vector<std::vector<int32_t>> args(n_ops);
  for (size_t i = 0; i < n_ops; ++i) {
    names[i] = plan.ops[i].name;
    args[i] = plan.ops[i].args;
  }

  // Readers of each value: every op argument except an op's last (its output, for every
  // op this pass rewrites), value-list items included; graph outputs count as readers.
  std::vector<int> readers(n_vals, 0);
  auto count_reads = [&](size_t op, int delta) {
    const auto& a = args[op];
    for (size_t k = 0; k + 1 < a.size(); ++k) {
      readers[static_cast<size_t>(a[k])] += delta;
      const GValue& v = values_[static_cast<size_t>(a[k])];
      if (v.kind == GValue::kValueList)
        for (int32_t item : v.items)
          if (item >= 0 && static_cast<size_t>(item) < n_vals) readers[static_cast<size_t>(item)] += delta;
    }
  };
  for (size_t i = 0; i < n_ops; ++i) count_reads(i, 1);
  std::vector<bool> is_output(n_vals, false);
  for (int32_t id : output_ids_) {
    readers[static_cast<size_t>(id)] += 1;
    is_output[static_cast<size_t>(id)] = true;
  }

  auto tensor_at = [&](int32_t id) -> GpuTensor* {
    GValue& v = values_[static_cast<size_t>(id)];
    return v.kind == GValue::kTensor ? &v.tensor : nullptr;
  };
  auto is_float_tensor = [&](int32_t id) {
    GpuTensor* t = tensor_at(id);
    return t && t->is_float() && t->buffer;
  };

  // Host-known scalars: one-element constants and copies of them.
  std::map<int32_t, double> known;
  for (size_t id = 0; id < n_vals; ++id) {
    GpuTensor* t = tensor_at(static_cast<int32_t>(id));
    if (t && t->constant_id >= 0 && t->max_numel() == 1 && !constant_host_[id].empty())
      if (auto v = scalar_from_bytes(constant_host_[id], t->vk_dtype)) known[static_cast<int32_t>(id)] = *v;
  }
  std::vector<bool> scalar_op(n_ops, false);  // copies a host-known scalar
  for (size_t i = 0; i < n_ops; ++i) {
    if (!is_scalar_copy(names[i]) || args[i].size() < 2) continue;
    auto it = known.find(args[i][0]);
    GpuTensor* out = tensor_at(args[i].back());
    if (it == known.end() || !out || out->max_numel() != 1) continue;
    double v = it->second;
    if (out->is_float()) v = static_cast<double>(static_cast<float>(v));
    else if (v != std::trunc(v)) continue;
    known[args[i].back()] = v;
    scalar_op[i] = true;
  }
  auto scalar_of = [&](int32_t id) -> std::optional<double> {
    auto it = known.find(id);
    if (it == known.end()) return std::nullopt;
    return it->second;
  };

  for (size_t i = 0; i < n_ops; ++i) {
    if (skip_op_[i] || !is_conv(names[i])) continue;
    const auto& ca = args[i];
    const bool with_clamp = names[i] == "et_vk.conv_with_clamp.default";
    if (ca.size() != (with_clamp ? 12u : 10u)) continue;
    const int32_t y = ca.back();
    if (!is_float_tensor(ca[0]) || !is_float_tensor(ca[1]) || !is_float_tensor(y)) continue;
    // Buffers the conv reads besides x (x, or the prologue's operands, join per attempt below).
    std::vector<const gpu::Buffer*> reads = {tensor_at(ca[1])->buffer.get()};
    if (!is_none(ca[2])) {
      if (!is_float_tensor(ca[2])) continue;
      reads.push_back(tensor_at(ca[2])->buffer.get());
    }

    ConvFusion f;
    std::vector<size_t> fused;  // chain ops folded into this conv

    // Prologue: x = a * s right before a pointwise conv, x read by the conv alone.
    auto pointwise = [&]() {
      GpuTensor* w = tensor_at(ca[1]);
      GpuTensor* x = tensor_at(ca[0]);
      if (w->rank() != 4 || x->rank() != 4 || w->max_dims[2] != 1 || w->max_dims[3] != 1) return false;
      auto transposed = bool_arg(ca[6], "fusion");
      auto groups = int_arg(ca[8], "fusion");
      auto stride = int_list(ca[3], "fusion");
      auto padding = int_list(ca[4], "fusion");
      if (!transposed.ok() || *transposed || !groups.ok() || *groups != 1 || !stride.ok() || !padding.ok()) return false;
      for (int64_t s : *stride) if (s != 1) return false;
      for (int64_t p : *padding) if (p != 0) return false;
      return true;
    };
    if (i > 0 && !skip_op_[i - 1] && names[i - 1] == "aten.mul.Tensor" && args[i - 1].size() == 3 &&
        args[i - 1][2] == ca[0] && readers[static_cast<size_t>(ca[0])] == 1 && !is_output[static_cast<size_t>(ca[0])] &&
        pointwise()) {
      const int32_t a = args[i - 1][0], b = args[i - 1][1];
      GpuTensor* x = tensor_at(ca[0]);
      for (auto [big, small] : {std::pair{a, b}, std::pair{b, a}}) {
        if (big == small || !is_float_tensor(big) || !is_float_tensor(small)) continue;
        GpuTensor* tb = tensor_at(big);
        GpuTensor* ts = tensor_at(small);
        if (tb->max_dims != x->max_dims || ts->rank() != 4 || ts->max_dims[1] != x->max_dims[1] ||
            ts->max_dims[2] != 1 || ts->max_dims[3] != 1 || (ts->max_dims[0] != 1 && ts->max_dims[0] != x->max_dims[0]))
          continue;
        f.x_id = big;
        f.scale_id = small;
        break;
      }
    }

    // Epilogue: follow the single reader of the current result.
    int32_t cur = y;
    size_t pos = i;
    std::vector<size_t> between;  // scalar copies passed over
    struct Link { size_t op; int32_t out; EpilogueOp e[2]; int n; size_t between_end; int32_t residual; };
    const bool is_pointwise = pointwise();
    bool have_residual = false;
    std::vector<Link> links;
    size_t n_epi = 0;
    while (n_epi + 2 <= kMaxEpilogue) {
      if (readers[static_cast<size_t>(cur)] != 1 || is_output[static_cast<size_t>(cur)]) break;
      size_t k = pos + 1;
      size_t between_mark = between.size();
      while (k < n_ops && (skip_op_[k] || scalar_op[k])) {
        if (!skip_op_[k]) between.push_back(k);
        ++k;
      }
      if (k >= n_ops) break;
      const auto& a = args[k];
      const std::string& nm = names[k];
      Link l{k, a.empty() ? -1 : a.back(), {}, 0, 0, -1};
      auto push = [&](EpilogueCode c, double v) { l.e[l.n++] = EpilogueOp{c, static_cast<float>(v)}; };
      bool ok = false;
      if ((nm == "aten.hardswish.default" || nm == "aten.relu.default") && a.size() == 2 && a[0] == cur) {
        if (nm == "aten.relu.default") push(EpilogueCode::kMax, 0.0);
        else push(EpilogueCode::kHardswish, 0.0);
        ok = true;
      } else if ((nm == "aten.clamp.default" || nm == "aten.hardtanh.default") && a.size() == 4 && a[0] == cur) {
        ok = true;
        for (int s = 1; s <= 2 && ok; ++s) {
          if (is_none(a[static_cast<size_t>(s)])) {
            if (nm == "aten.hardtanh.default") ok = false;
            continue;
          }
          auto v = scalar_arg(a[static_cast<size_t>(s)], "fusion");
          if (!v.ok()) ok = false;
          else push(s == 1 ? EpilogueCode::kMax : EpilogueCode::kMin, *v);
        }
        ok = ok && l.n > 0;
      } else if ((nm == "aten.add.Tensor" || nm == "aten.sub.Tensor") && a.size() == 4 && (a[0] == cur) != (a[1] == cur)) {
        auto alpha = is_none(a[2]) ? Result<double>(1.0) : scalar_arg(a[2], "fusion");
        const int32_t other = a[0] == cur ? a[1] : a[0];
        auto c = scalar_of(other);
        if (alpha.ok() && c) {
          if (nm == "aten.add.Tensor" && a[0] == cur) { push(EpilogueCode::kAdd, *alpha * *c); ok = true; }
          else if (nm == "aten.add.Tensor" && *alpha == 1.0) { push(EpilogueCode::kAdd, *c); ok = true; }
          else if (nm == "aten.sub.Tensor" && a[0] == cur) { push(EpilogueCode::kAdd, -(*alpha * *c)); ok = true; }
        } else if (alpha.ok() && nm == "aten.add.Tensor" && (a[0] == cur || *alpha == 1.0) && is_pointwise &&
                   !have_residual && is_float_tensor(other) && tensor_at(other)->max_dims == tensor_at(cur)->max_dims) {
          // A residual produced by an op passed over would not exist yet when the conv runs.
          bool produced_between = false;
          for (size_t bk = between_mark; bk < between.size(); ++bk)
            if (args[between[bk]].back() == other) produced_between = true;
          if (!produced_between) {
            push(EpilogueCode::kAddTensor, a[0] == cur ? *alpha : 1.0);
            l.residual = other;
            ok = true;
          }
        }
      } else if ((nm == "aten.mul.Tensor" || nm == "aten.div.Tensor") && a.size() == 3 && (a[0] == cur) != (a[1] == cur)) {
        const int32_t other = a[0] == cur ? a[1] : a[0];
        if (auto c = scalar_of(other)) {
          if (nm == "aten.mul.Tensor") { push(EpilogueCode::kMul, *c); ok = true; }
          else if (a[0] == cur) { push(EpilogueCode::kDiv, *c); ok = true; }
        }
      }
      if (ok) {
        GpuTensor* out = l.out >= 0 ? tensor_at(l.out) : nullptr;
        ok = out && out->is_float() && out->buffer && out->max_dims == tensor_at(cur)->max_dims;
      }
      if (!ok) {
        between.resize(between_mark);
        break;
      }
      l.between_end = between.size();
      if (l.residual >= 0) {
        have_residual = true;
        reads.push_back(tensor_at(l.residual)->buffer.get());
      }
      n_epi += static_cast<size_t>(l.n);
      links.push_back(l);
      cur = l.out;
      pos = k;
    }

    // The buffer the conv writes: the chain output's own where the conv reads no tensor in
    // it; else a fusion buffer of its own (below), which nothing else touches while the
    // output is live.
    auto touches = [&](size_t op, const gpu::Buffer* b) {
      for (int32_t id : args[op]) {
        const GValue& v = values_[static_cast<size_t>(id)];
        if (v.kind == GValue::kTensor && v.tensor.buffer.get() == b) return true;
        if (v.kind == GValue::kValueList)
          for (int32_t item : v.items) {
            GpuTensor* t = item >= 0 && static_cast<size_t>(item) < n_vals ? tensor_at(item) : nullptr;
            if (t && t->buffer.get() == b) return true;
          }
      }
      return false;
    };
    auto reads_for = [&](bool use_prologue) {
      std::vector<const gpu::Buffer*> r = reads;
      if (use_prologue) {
        r.push_back(tensor_at(f.x_id)->buffer.get());
        r.push_back(tensor_at(f.scale_id)->buffer.get());
      } else {
        r.push_back(tensor_at(ca[0])->buffer.get());
      }
      return r;
    };
    auto writable = [&](const gpu::Buffer* wb, size_t n_between, bool use_prologue) {
      for (const gpu::Buffer* b : reads_for(use_prologue))
        if (b == wb) return false;
      for (size_t b = 0; b < n_between; ++b)
        if (touches(between[b], wb)) return false;
      return true;
    };
    // Everything up to the longest chain; the prologue only if it leaves some epilogue or stands alone.
    bool use_prologue = f.scale_id >= 0;
    size_t keep = links.size();
    if (keep == 0 && !use_prologue) continue;
    f.out_id = keep == 0 ? y : links[keep - 1].out;
    const size_t n_between = keep == 0 ? 0 : links[keep - 1].between_end;
    const size_t end_op = keep == 0 ? i : links[keep - 1].op;
    if (!writable(tensor_at(f.out_id)->buffer.get(), n_between, use_prologue)) {
      // Live from the conv to its last reader (+1: a later fused prologue reads one op late).
      size_t last = is_output[static_cast<size_t>(f.out_id)] ? SIZE_MAX : end_op;
      if (last != SIZE_MAX)
        for (size_t op = end_op + 1; op < n_ops; ++op) {
          if (skip_op_[op]) continue;
          for (int32_t a : args[op]) {
            const GValue& v = values_[static_cast<size_t>(a)];
            bool hit = a == f.out_id;
            if (v.kind == GValue::kValueList)
              for (int32_t item : v.items) hit = hit || item == f.out_id;
            if (hit) last = op;
          }
        }
      const size_t busy_until = last == SIZE_MAX ? SIZE_MAX : last + 1;
      const uint64_t bytes = static_cast<uint64_t>(std::max<int64_t>(tensor_at(f.out_id)->max_numel(), 1)) * 4;
      std::shared_ptr<gpu::Buffer> chosen;
      for (FusionSlot& slot : fusion_slots_)
        if (slot.busy_until < i && slot.buffer->size() >= bytes && writable(slot.buffer.get(), n_between, use_prologue)) {
          slot.busy_until = busy_until;
          chosen = slot.buffer;
          break;
        }
      if (!chosen) {
        auto buf = gpu::Buffer::create_storage(device_, bytes, "fusion " + std::to_string(fusion_slots_.size()));
        if (!buf.ok()) continue;
        chosen = std::make_shared<gpu::Buffer>(std::move(*buf));
        fusion_slots_.push_back(FusionSlot{chosen, busy_until});
        planned_bytes_ += bytes;
      }
      tensor_at(f.out_id)->buffer = chosen;
    }
    if (!use_prologue) f.scale_id = f.x_id = -1;
    for (size_t l = 0; l < keep; ++l) {
      for (int e = 0; e < links[l].n; ++e) f.epilogue.push_back(links[l].e[e]);
      if (links[l].residual >= 0) f.residual_id = links[l].residual;
      fused.push_back(links[l].op);
    }
    if (use_prologue) fused.push_back(i - 1);
    for (size_t op : fused) {
      skip_op_[op] = true;
      count_reads(op, -1);
      ++fused_ops_;
    }
    if (f.scale_id >= 0) {
      // The conv now reads the multiply's operands, not its output.
      readers[static_cast<size_t>(f.x_id)] += 1;
      readers[static_cast<size_t>(f.scale_id)] += 1;
      readers[static_cast<size_t>(ca[0])] -= 1;
    }
    if (f.residual_id >= 0) readers[static_cast<size_t>(f.residual_id)] += 1;  // now read by the conv
    fusions_[i] = std::move(f);
  }

  // Dead copies, last to first so that chains of them go together.
  for (size_t i = n_ops; i-- > 0;) {
    if (skip_op_[i] || !is_dead_candidate(names[i]) || args[i].size() < 2) continue;
    const int32_t out = args[i].back();
    if (readers[static_cast<size_t>(out)] != 0 || is_output[static_cast<size_t>(out)]) continue;
    skip_op_[i] = true;
    count_reads(i, -1);
    ++dead_ops_;
  }
}

}  // namespace wick::webgpu
