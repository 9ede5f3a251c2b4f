// Graph-build-time matmul epilogues (matmul_fusion.h). From each linear / mm / bmm / addmm
// the pass follows the single reader of the result while it is one of
//   views:  flat copies (view_copy, squeeze / unsqueeze, clone, order-keeping permutes:
//           ops/shape's buffer_views of whole buffers, slices and selects excepted), in graphs without symbolic sizes
//           (the product then gives the output its upper-bound shape);
//   unary:  gelu (erf and tanh forms), relu;
//   binary: mul / add / sub by a host-known scalar, by a per-column tensor (N values that
//           broadcast along the last dim only: DINOv2's layer scale, a bias added after a
//           bmm), or add / sub of a tensor shaped exactly as the value (a residual);
// up to kMaxMatmulSteps steps, one per-column operand and one residual, passing over at most
// kMaxPassed other ops between two links (they then run after the product wrote the
// result: they must touch none of its buffer). Every intermediate must have that one reader
// and not be a graph output. Targets: DINOv2 (fc1 -> GELU; proj / fc2 -> layer scale ->
// residual), Hiera and Whisper (fc1 -> GELU; proj / fc2 -> residual), DETR / D-FINE
// (linear -> relu, bmm -> + bias, linear -> residual), Whisper's query scale.
//
// Against the elementwise chains (chain_fusion.h): this pass runs first, so the ops right
// after a product go into its store (no dispatch, no intermediate written) and a chain can
// still start after what the product absorbed (a product takes at most one residual and one
// per-column operand; what does not fit stays for the chains).
//
// Buffers: the product writes the last folded op's output at its own place in the chain,
// earlier than the memory plan expects. That output's buffer must be none the product reads
// (a residual in the very same words is the exception: each output element is read before
// it is written, by the thread that writes it, so the builder reads it from the output
// binding), nor one that the ops passed over touch, nor one that a product fused earlier
// writes inside this product's span (and the other way round). Where the plan's buffer
// fails that, the output gets a fusion slot of its own (as fusion.cpp does for convs): a
// buffer shared by fused outputs whose lifetimes do not overlap.
#include "webgpu/matmul_fusion.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>

#include "webgpu/memory_plan.h"
#include "webgpu/ops/shape/copy.h"

namespace wick::webgpu {

namespace {

bool is_matmul(std::string_view n) {
  return n == "aten.linear.default" || n == "aten.mm.default" || n == "aten.bmm.default" || n == "aten.addmm.default";
}

// Ops a product may pass over between two of its links.
constexpr size_t kMaxPassed = 4;

// One folded op: a view (no step) or one epilogue step.
struct Link {
  size_t op = 0;
  int32_t out = -1;
  bool view = false;
  MatmulEpilogueStep step{MatmulStep::kRelu, 0};
  int32_t residual = -1, column = -1;  // the operand this step reads, if any
  std::vector<size_t> passed;          // ops passed over before this link
};

}  // namespace

MatmulFusionPlan plan_matmul_epilogues(const vkgraph::Plan& plan, const Graph& g) {
  MatmulFusionPlan plan_out;
  const std::vector<GValue>& values = g.values_;
  const size_t n_ops = plan.ops.size(), n_vals = values.size();
  // Ops that write an argument in place move data under the buffer plan: left alone.
  for (const vkgraph::OpCall& call : plan.ops)
    if (!in_place_args(call.name).empty()) return plan_out;
  bool symbolic = false;
  for (const GValue& v : values) symbolic = symbolic || v.kind == GValue::kSymInt;

  auto valid = [&](int32_t id) { return id >= 0 && static_cast<size_t>(id) < n_vals; };
  auto tensor_at = [&](int32_t id) -> const GpuTensor* {
    if (!valid(id)) return nullptr;
    const GValue& v = values[static_cast<size_t>(id)];
    return v.kind == GValue::kTensor ? &v.tensor : nullptr;
  };
  auto float_tensor = [&](int32_t id) -> const GpuTensor* {
    const GpuTensor* t = tensor_at(id);
    return t && t->is_float() && t->buffer ? t : nullptr;
  };

  std::vector<bool> taken = g.ops_taken(n_ops);

  // Readers of each value: the ops still to be built (every argument but the last,
  // value-list items included), what the fused convs and attentions read, graph outputs.
  std::vector<int> readers(n_vals, 0);
  std::vector<bool> is_output(n_vals, false), is_input(n_vals, false);
  auto read = [&](int32_t id) {
    if (!valid(id)) return;
    ++readers[static_cast<size_t>(id)];
    for (int32_t item : values[static_cast<size_t>(id)].items)
      if (valid(item)) ++readers[static_cast<size_t>(item)];
  };
  for (size_t i = 0; i < n_ops; ++i) {
    if (g.skip_op_.size() > i && g.skip_op_[i]) continue;
    const auto& a = plan.ops[i].args;
    for (size_t k = 0; k + 1 < a.size(); ++k) read(a[k]);
  }
  for (const auto& [op, f] : g.attention_fusions_.fused)
    for (int32_t id : f.uses) read(id);
  for (const auto& [op, f] : g.fusions_)
    for (int32_t id : {f.x_id, f.scale_id, f.residual_id}) read(id);
  for (int32_t id : g.output_ids_) {
    read(id);
    if (valid(id)) is_output[static_cast<size_t>(id)] = true;
  }
  for (int32_t id : g.input_ids_)
    if (valid(id)) is_input[static_cast<size_t>(id)] = true;

  // The first op that names each value as its output; prepacked constants -> the constant.
  std::vector<size_t> producer(n_vals, SIZE_MAX);
  std::vector<int32_t> constant_of(n_vals, -1);
  for (size_t i = 0; i < n_ops; ++i) {
    const auto& a = plan.ops[i].args;
    if (a.empty() || !valid(a.back())) continue;
    const size_t o = static_cast<size_t>(a.back());
    producer[o] = std::min(producer[o], i);
    if (plan.ops[i].name == "et_vk.prepack.default" && a.size() == 2 && tensor_at(a[0])) {
      const int32_t c = constant_of[static_cast<size_t>(a[0])] >= 0 ? constant_of[static_cast<size_t>(a[0])] : a[0];
      if (tensor_at(c)->constant_id >= 0) constant_of[o] = c;
    }
  }
  auto is_constant = [&](int32_t id) {
    const GpuTensor* t = tensor_at(id);
    return t && (t->constant_id >= 0 || constant_of[static_cast<size_t>(id)] >= 0);
  };
  // Whether the product at op i can read `id`: a constant, a graph input or a value made earlier.
  auto ready_at = [&](int32_t id, size_t i) {
    return is_constant(id) || is_input[static_cast<size_t>(id)] || producer[static_cast<size_t>(id)] < i;
  };
  // A scalar known on the host: a Double / Int argument, or a one-element f32 constant
  // (prepacked or not).
  auto host_scalar = [&](int32_t id) -> std::optional<double> {
    if (!valid(id)) return std::nullopt;
    const GValue& v = values[static_cast<size_t>(id)];
    if (v.kind == GValue::kDouble) return v.d;
    if (v.kind == GValue::kInt) return static_cast<double>(v.i);
    const int32_t c = constant_of[static_cast<size_t>(id)] >= 0 ? constant_of[static_cast<size_t>(id)] : id;
    const GpuTensor* t = tensor_at(c);
    if (!t || t->constant_id < 0 || t->max_numel() != 1 || t->vk_dtype != vk::VkDataType::FLOAT32) return std::nullopt;
    const auto& bytes = g.constant_host_[static_cast<size_t>(c)];
    if (bytes.size() < 4) return std::nullopt;
    float f;
    std::memcpy(&f, bytes.data(), 4);
    return static_cast<double>(f);
  };

  // Buffers as WebGPU sees them (a view is its parent's buffer): the handle as a key and the
  // offset; a fusion slot this pass chose is key 2k + 1 (odd, so never an address). With the
  // joint memory plan the planned values hold placeholders (no handle yet), one per group of
  // views: the placeholder object is the key, and where in it a view lies is not known yet.
  struct Place {
    uintptr_t key = 0;
    uint64_t offset = 0;
    bool placeholder = false;
  };
  std::vector<Place> place(n_vals);
  for (size_t id = 0; id < n_vals; ++id)
    if (const GpuTensor* t = tensor_at(static_cast<int32_t>(id)); t && t->buffer) {
      if (t->buffer->handle())
        place[id] = {reinterpret_cast<uintptr_t>(t->buffer->handle()), t->buffer->offset()};
      else
        place[id] = {reinterpret_cast<uintptr_t>(t->buffer.get()), 0, true};
    }
  auto place_of = [&](int32_t id) -> Place { return valid(id) ? place[static_cast<size_t>(id)] : Place{}; };
  auto slot_key = [](size_t k) { return static_cast<uintptr_t>(2 * k + 1); };
  std::vector<size_t> slot_busy_until;  // per slot: the op index after which it is free
  // Every tensor an op reads or writes when it runs, fused extras included.
  auto touched_by = [&](size_t op) {
    std::vector<int32_t> ids;
    auto add = [&](int32_t id) {
      if (!valid(id)) return;
      ids.push_back(id);
      for (int32_t item : values[static_cast<size_t>(id)].items) if (valid(item)) ids.push_back(item);
    };
    for (int32_t id : plan.ops[op].args) add(id);
    if (auto f = g.fusions_.find(op); f != g.fusions_.end())
      for (int32_t id : {f->second.out_id, f->second.x_id, f->second.scale_id, f->second.residual_id}) add(id);
    if (auto f = g.attention_fusions_.fused.find(op); f != g.attention_fusions_.fused.end())
      for (int32_t id : f->second.uses) add(id);
    return ids;
  };
  // Products fused so far: where each writes its output early (its op .. its last folded op).
  struct Span {
    size_t first, last;
    uintptr_t key;
  };
  std::vector<Span> spans;
  // The last op that reads `id` at or after `from` (SIZE_MAX: a graph output, read after all).
  auto last_reader = [&](int32_t id, size_t from) {
    if (is_output[static_cast<size_t>(id)]) return SIZE_MAX;
    size_t last = from;
    for (size_t op = from + 1; op < n_ops; ++op)
      for (int32_t t : touched_by(op))
        if (t == id) last = op;
    return last;
  };

  for (size_t i = 0; i < n_ops; ++i) {
    if (taken[i] || !is_matmul(plan.ops[i].name)) continue;
    const auto& ma = plan.ops[i].args;
    if (ma.size() < 3) continue;
    const int32_t y = ma.back();
    const GpuTensor* yt = float_tensor(y);
    if (!yt || yt->max_dims.empty()) continue;
    const int64_t n = yt->max_dims.back();  // the product's N: its output's last dim

    // One op as a link applied to `cur`, or none.
    int32_t residual = -1, column = -1;
    auto link_of = [&](size_t k, int32_t cur) -> std::optional<Link> {
      const std::string& nm = plan.ops[k].name;
      const auto& a = plan.ops[k].args;
      if (a.size() < 2) return std::nullopt;
      Link l;
      l.op = k;
      l.out = a.back();
      const GpuTensor* ct = tensor_at(cur);
      const GpuTensor* ot = float_tensor(l.out);
      if (!ot) return std::nullopt;
      // A view of the whole buffer (offset 0, as many elements: flat copies, order-keeping
      // permutes, pads by nothing), not a slice or select of part of it.
      if (std::vector<RangeView> views = buffer_views(g, nm, a); !views.empty()) {
        const bool whole = views.size() == 1 && views[0].src == cur && views[0].dst == l.out && views[0].offset == 0 &&
                           ot->max_numel() == ct->max_numel();
        if (symbolic || !whole) return std::nullopt;
        l.view = true;
        return l;
      }
      if (ot->max_dims != ct->max_dims) return std::nullopt;
      auto step = [&](MatmulStep code, double v) {
        l.step = MatmulEpilogueStep{code, static_cast<float>(v)};
        return l;
      };
      if (nm == "aten.relu.default" && a.size() == 2 && a[0] == cur) return step(MatmulStep::kRelu, 0);
      if (nm == "aten.gelu.default" && a.size() == 3 && a[0] == cur) {
        const std::optional<bool> tanh_form = g.gelu_tanh_arg(a[1]);
        if (!tanh_form) return std::nullopt;
        return step(*tanh_form ? MatmulStep::kGeluTanh : MatmulStep::kGeluErf, 0);
      }
      const bool mul = (nm == "aten.mul.Tensor" || nm == "aten.mul.Scalar") && a.size() == 3;
      const bool add = nm == "aten.add.Tensor" && a.size() == 4;
      const bool sub = nm == "aten.sub.Tensor" && a.size() == 4;
      if (!mul && !add && !sub) return std::nullopt;
      if ((a[0] == cur) == (a[1] == cur)) return std::nullopt;  // neither, or cur op cur
      const bool first = a[0] == cur;
      const int32_t other = first ? a[1] : a[0];
      // The other operand's coefficient: add / sub compute self + / - alpha * other, so the
      // value must be self, or alpha 1 for an add.
      double coef = 1;
      if (add || sub) {
        double alpha = 1;
        if (!g.is_none(a[2])) {
          auto v = g.scalar_arg(a[2], "matmul fusion");
          if (!v.ok()) return std::nullopt;
          alpha = *v;
        }
        if (!first && (sub || alpha != 1)) return std::nullopt;
        coef = first ? (sub ? -alpha : alpha) : 1;
      }
      if (auto c = host_scalar(other)) return mul ? step(MatmulStep::kMulScalar, *c) : step(MatmulStep::kAddScalar, coef * *c);
      const GpuTensor* t = float_tensor(other);
      if (!t || !ready_at(other, i)) return std::nullopt;
      // N values along the last dim (all other dims 1), the value's last dim being N.
      bool per_column = t->max_numel() == n && !t->max_dims.empty() && t->max_dims.back() == n &&
                        t->max_dims.size() <= ct->max_dims.size() && ct->max_dims.back() == n;
      if (per_column && (column < 0 || column == other)) {
        l.column = other;
        return step(mul ? MatmulStep::kMulColumn : MatmulStep::kAddColumn, coef);
      }
      if (!mul && t->max_dims == ct->max_dims && residual < 0) {
        l.residual = other;
        return step(MatmulStep::kAddResidual, coef);
      }
      return std::nullopt;
    };

    std::vector<Link> links;
    int32_t cur = y;
    size_t pos = i, steps = 0;
    while (readers[static_cast<size_t>(cur)] == 1 && !is_output[static_cast<size_t>(cur)]) {
      // cur's reader, past at most kMaxPassed ops that do not read it.
      std::vector<size_t> over;
      size_t k = pos + 1;
      for (; k < n_ops && over.size() <= kMaxPassed; ++k) {
        if (taken[k]) continue;
        const auto& a = plan.ops[k].args;
        bool reads = false;
        for (size_t j = 0; j + 1 < a.size(); ++j) {
          reads = reads || a[j] == cur;
          if (valid(a[j]))
            for (int32_t item : values[static_cast<size_t>(a[j])].items) reads = reads || item == cur;
        }
        if (reads) break;
        over.push_back(k);
      }
      if (k >= n_ops || over.size() > kMaxPassed) break;
      auto l = link_of(k, cur);
      if (!l || (!l->view && steps == kMaxMatmulSteps)) break;
      l->passed = std::move(over);
      if (l->residual >= 0) residual = l->residual;
      if (l->column >= 0) column = l->column;
      if (!l->view) ++steps;
      links.push_back(std::move(*l));
      cur = links.back().out;
      pos = links.back().op;
    }

    // The longest prefix ending in a step (a view's output would be the same words).
    size_t keep = links.size();
    while (keep > 0 && links[keep - 1].view) --keep;
    if (keep == 0) continue;
    const int32_t fo = links[keep - 1].out;
    const size_t last = links[keep - 1].op;
    int32_t res = -1, col = -1;
    for (size_t l = 0; l < keep; ++l) {
      if (links[l].residual >= 0) res = links[l].residual;
      if (links[l].column >= 0) col = links[l].column;
    }
    // Whether the product may write its output into buffer w.
    auto writable = [&](Place w) {
      // What the product reads: its operands and the epilogue's (a residual may be the
      // output's own words: read first by the thread that writes them).
      for (size_t k = 0; k + 1 < ma.size(); ++k)
        if (tensor_at(ma[k]) && place_of(ma[k]).key == w.key) return false;
      if (col >= 0 && place_of(col).key == w.key) return false;
      if (res >= 0 && place_of(res).key == w.key && (place_of(res).offset != w.offset || w.placeholder)) return false;
      // The ops passed over run between the product's write and the output's planned producer.
      for (size_t l = 0; l < keep; ++l)
        for (size_t op : links[l].passed)
          for (int32_t id : touched_by(op))
            if (tensor_at(id) && place_of(id).key == w.key) return false;
      // Products fused earlier whose early write falls inside this span, or the other way round.
      for (const Span& s : spans)
        if (s.key == w.key && s.first < last && i < s.last) return false;
      return true;
    };
    Place w = place_of(fo);
    if (!w.key) continue;
    if (!writable(w)) {
      // A buffer of its own: a fusion slot free since before this product (or a new one),
      // busy until the output's last reader.
      const size_t busy_until = last_reader(fo, last);
      const uint64_t bytes = static_cast<uint64_t>(std::max<int64_t>(float_tensor(fo)->max_numel(), 1)) * 4;
      size_t chosen = SIZE_MAX;
      for (size_t k = 0; k < plan_out.slot_bytes.size() && chosen == SIZE_MAX; ++k)
        if (slot_busy_until[k] < i && plan_out.slot_bytes[k] >= bytes && writable({slot_key(k), 0})) chosen = k;
      if (chosen == SIZE_MAX) {
        chosen = plan_out.slot_bytes.size();
        plan_out.slot_bytes.push_back(bytes);
        slot_busy_until.push_back(0);
      }
      slot_busy_until[chosen] = busy_until;
      plan_out.slot_of[fo] = chosen;
      w = {slot_key(chosen), 0};
      place[static_cast<size_t>(fo)] = w;
    }

    MatmulEpilogue e;
    e.out_id = fo;
    e.residual_id = res;
    e.column_id = col;
    for (size_t l = 0; l < keep; ++l) {
      if (!links[l].view) e.steps.push_back(links[l].step);
      e.folded.push_back(links[l].op);
      taken[links[l].op] = true;
    }
    e.reshaped = float_tensor(fo)->max_dims != yt->max_dims;
    spans.push_back({i, last, w.key});
    plan_out.epilogues.emplace(i, std::move(e));
  }
  return plan_out;
}

}  // namespace wick::webgpu
