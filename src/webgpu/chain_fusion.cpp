// Graph-build-time fusion of elementwise chains (chain_fusion.h). A chain starts at any
// supported op and follows the single reader of its result while that reader comes within
// kMaxPassed other ops (the chain then runs after them: they must touch none of its
// buffers), up to kMaxChainSteps steps and kMaxChainOperands tensor operands:
//   unary: relu, sigmoid, tanh, exp, sqrt, rsqrt, neg, abs, gelu (erf / tanh), hardswish,
//          silu, leaky_relu, clamp / hardtanh (a max and a min step);
//   binary: add / sub (with alpha), mul, div, maximum, minimum, by a scalar or a float
//           tensor that broadcasts into the chain's shape (never grows it).
// Targets (bench/results/vision_h200): D-FINE's frozen batch norms and learnable affines
// (conv -> mul -> add -> relu -> mul -> add, per-channel operands), x * sigmoid(x), layer
// scale + residual after every ViT block (linear -> mul -> add).
//
// Buffers: the memory plan gave every tensor its buffer for the unfused order. The fused
// dispatch runs at the chain's last op and reads every operand there, so a chain is kept
// only if the buffer it writes is none of those it reads (the plan may have handed the
// output an operand's buffer once the operand's last unfused reader ran). Intermediates are
// never written, whatever buffer they were given.
#include "webgpu/chain_fusion.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "webgpu/ops/elementwise/binary.h"
#include "webgpu/ops/elementwise/broadcast.h"

namespace wick::webgpu {

namespace {

// unary.wgsl's codes (UnaryOp in unary.cpp) of the activations the chain shader knows.
constexpr uint32_t kUnary = 32;
enum : uint32_t {
  kRelu = 0, kSigmoid = 1, kTanh = 2, kExp = 3, kSqrt = 4, kRsqrt = 5, kNeg = 6, kAbs = 7,
  kGeluErf = 10, kGeluTanh = 11, kHardswish = 12, kLeakyRelu = 14, kSilu = 18,
};

std::optional<uint32_t> plain_unary(std::string_view n) {
  if (n == "aten.relu.default") return kRelu;
  if (n == "aten.sigmoid.default") return kSigmoid;
  if (n == "aten.tanh.default") return kTanh;
  if (n == "aten.exp.default") return kExp;
  if (n == "aten.sqrt.default") return kSqrt;
  if (n == "aten.rsqrt.default") return kRsqrt;
  if (n == "aten.neg.default") return kNeg;
  if (n == "aten.abs.default") return kAbs;
  if (n == "aten.hardswish.default") return kHardswish;
  if (n == "aten.silu.default") return kSilu;
  return std::nullopt;
}

std::optional<BinaryOp> binary_op(std::string_view n) {
  if (n == "aten.add.Tensor") return BinaryOp::kAdd;
  if (n == "aten.sub.Tensor") return BinaryOp::kSub;
  if (n == "aten.mul.Tensor" || n == "aten.mul.Scalar") return BinaryOp::kMul;
  if (n == "aten.div.Tensor") return BinaryOp::kDiv;
  if (n == "aten.minimum.default") return BinaryOp::kMin;
  if (n == "aten.maximum.default") return BinaryOp::kMax;
  return std::nullopt;
}

// Ops a chain may pass over between two of its links.
constexpr size_t kMaxPassed = 4;

}  // namespace

std::map<size_t, ElementwiseChain> plan_elementwise_chains(const vkgraph::Plan& plan, const Graph& g) {
  std::map<size_t, ElementwiseChain> chains;
  const std::vector<GValue>& values = g.values_;
  const size_t n_ops = plan.ops.size(), n_vals = values.size();
  std::vector<bool> taken = g.ops_taken(n_ops);

  auto tensor_at = [&](int32_t id) -> const GpuTensor* {
    if (id < 0 || static_cast<size_t>(id) >= n_vals) return nullptr;
    const GValue& v = values[static_cast<size_t>(id)];
    return v.kind == GValue::kTensor ? &v.tensor : nullptr;
  };
  auto float_tensor = [&](int32_t id) -> const GpuTensor* {
    const GpuTensor* t = tensor_at(id);
    return t && t->is_float() && t->buffer ? t : nullptr;
  };
  // Readers of each value among the ops still to be built (every argument but the last,
  // value-list items included), the convs' fused operands, and the graph outputs.
  std::vector<int> readers(n_vals, 0);
  std::vector<bool> is_output(n_vals, false);
  auto read = [&](int32_t id) {
    if (id < 0 || static_cast<size_t>(id) >= n_vals) return;
    ++readers[static_cast<size_t>(id)];
    for (int32_t item : values[static_cast<size_t>(id)].items)
      if (item >= 0 && static_cast<size_t>(item) < n_vals) ++readers[static_cast<size_t>(item)];
  };
  for (size_t i = 0; i < n_ops; ++i) {
    if (taken[i]) continue;
    const auto& a = plan.ops[i].args;
    for (size_t k = 0; k + 1 < a.size(); ++k) read(a[k]);
  }
  for (const auto& [op, f] : g.fusions_)
    for (int32_t id : {f.x_id, f.scale_id, f.residual_id}) read(id);
  for (const auto& [op, e] : g.matmul_epilogues_)  // read by the product (matmul_fusion.h)
    for (int32_t id : {e.residual_id, e.column_id}) read(id);
  for (int32_t id : g.output_ids_) {
    read(id);
    if (id >= 0 && static_cast<size_t>(id) < n_vals) is_output[static_cast<size_t>(id)] = true;
  }

  // One op as chain steps applied to `cur` (-1: the chain's first op, which picks its head).
  struct Link {
    std::vector<ChainStep> steps;
    int32_t head = -1;   // first op only
    int32_t other = -1;  // a tensor operand, or -1
    int32_t out = -1;
  };
  auto link_of = [&](size_t k, int32_t cur) -> std::optional<Link> {
    const std::string& nm = plan.ops[k].name;
    const auto& a = plan.ops[k].args;
    if (a.size() < 2) return std::nullopt;
    Link l;
    l.out = a.back();
    const GpuTensor* out = float_tensor(l.out);
    if (!out || out->max_dims.size() > static_cast<size_t>(kMaxElementwiseRank)) return std::nullopt;
    auto unary_step = [&](uint32_t code, float c) {
      ChainStep s;
      s.code = kUnary + code;
      s.constant = c;
      l.steps.push_back(s);
    };
    auto first_input = [&]() -> bool {
      if (cur >= 0) return a[0] == cur;
      l.head = a[0];
      return true;
    };
    if (auto u = plain_unary(nm)) {
      if (a.size() != 2 || !first_input()) return std::nullopt;
      unary_step(*u, 0);
    } else if (nm == "aten.gelu.default") {
      if (a.size() != 3 || !first_input()) return std::nullopt;
      const std::optional<bool> tanh_form = g.gelu_tanh_arg(a[1]);
      if (!tanh_form) return std::nullopt;
      unary_step(*tanh_form ? kGeluTanh : kGeluErf, 0);
    } else if (nm == "aten.leaky_relu.default") {
      if (a.size() != 3 || !first_input()) return std::nullopt;
      double slope = 0.01;
      if (!g.is_none(a[1])) {
        auto v = g.scalar_arg(a[1], "chain fusion");
        if (!v.ok()) return std::nullopt;
        slope = *v;
      }
      unary_step(kLeakyRelu, static_cast<float>(slope));
    } else if (nm == "aten.clamp.default" || nm == "aten.hardtanh.default") {
      if (a.size() != 4 || !first_input()) return std::nullopt;
      for (int s = 1; s <= 2; ++s) {
        if (g.is_none(a[static_cast<size_t>(s)])) continue;
        auto v = g.scalar_arg(a[static_cast<size_t>(s)], "chain fusion");
        if (!v.ok()) return std::nullopt;
        ChainStep st;
        st.code = static_cast<uint32_t>(s == 1 ? BinaryOp::kMax : BinaryOp::kMin);
        st.constant = static_cast<float>(*v);
        l.steps.push_back(st);
      }
      if (l.steps.empty()) return std::nullopt;
    } else if (auto b = binary_op(nm)) {
      const bool with_alpha = *b == BinaryOp::kAdd || *b == BinaryOp::kSub;
      if (a.size() != (with_alpha ? 4u : 3u)) return std::nullopt;
      ChainStep st;
      st.code = static_cast<uint32_t>(*b);
      if (with_alpha && !g.is_none(a[2])) {
        auto v = g.scalar_arg(a[2], "chain fusion");
        if (!v.ok()) return std::nullopt;
        st.alpha = static_cast<float>(*v);
      }
      const GpuTensor* t0 = tensor_at(a[0]);
      const GpuTensor* t1 = tensor_at(a[1]);
      if (!t0 || !float_tensor(a[0])) return std::nullopt;
      int32_t mine = a[0], other = a[1];
      if (cur >= 0) {
        if ((a[0] == cur) == (a[1] == cur)) return std::nullopt;  // neither, or x op x
        if (a[1] == cur) std::swap(mine, other);
      } else if (t1 && t0->max_dims != out->max_dims) {
        std::swap(mine, other);  // the head is the operand shaped as the output
      }
      st.swapped = mine != a[0];
      if (cur < 0) l.head = mine;
      if (tensor_at(other)) {
        if (!float_tensor(other)) return std::nullopt;
        l.other = other;
      } else {
        auto v = g.scalar_arg(other, "chain fusion");
        if (!v.ok()) return std::nullopt;
        st.constant = static_cast<float>(*v);
      }
      l.steps.push_back(st);
    } else {
      return std::nullopt;
    }
    if (cur < 0) {
      const GpuTensor* h = float_tensor(l.head);
      if (!h || h->max_dims != out->max_dims) return std::nullopt;
    } else if (tensor_at(cur)->max_dims != out->max_dims) {
      return std::nullopt;
    }
    if (l.other >= 0) {
      auto shape = broadcast_shapes(out->max_dims, tensor_at(l.other)->max_dims);
      if (!shape.ok() || *shape != out->max_dims) return std::nullopt;
    }
    return l;
  };

  auto buffer_of = [&](int32_t id) -> const gpu::Buffer* {
    const GpuTensor* t = tensor_at(id);
    return t ? t->buffer.get() : nullptr;
  };
  for (size_t i = 0; i < n_ops; ++i) {
    if (taken[i]) continue;
    auto first = link_of(i, -1);
    if (!first) continue;
    std::vector<Link> links = {*first};
    std::vector<size_t> link_ops = {i};
    std::vector<std::vector<size_t>> passed = {{}};  // per link: the ops passed over before it
    size_t steps = first->steps.size();
    int32_t cur = first->out;
    size_t pos = i;
    while (true) {
      if (readers[static_cast<size_t>(cur)] != 1 || is_output[static_cast<size_t>(cur)]) break;
      // cur's reader, past at most kMaxPassed ops that do not read it (views, copies of
      // other values: the buffer check below decides whether the chain may run after them).
      std::vector<size_t> over;
      size_t k = pos + 1;
      for (; k < n_ops && over.size() <= kMaxPassed; ++k) {
        if (taken[k]) continue;
        const auto& a = plan.ops[k].args;
        if (std::find(a.begin(), a.empty() ? a.end() : a.end() - 1, cur) != (a.empty() ? a.end() : a.end() - 1)) break;
        over.push_back(k);
      }
      if (k >= n_ops || over.size() > kMaxPassed) break;
      auto l = link_of(k, cur);
      if (!l || steps + l->steps.size() > kMaxChainSteps) break;
      links.push_back(*l);
      link_ops.push_back(k);
      passed.push_back(std::move(over));
      steps += l->steps.size();
      cur = l->out;
      pos = k;
    }
    // The longest prefix of at least two ops that fits the operand limit and writes a buffer
    // it does not read.
    for (size_t keep = links.size(); keep >= 2; --keep) {
      ElementwiseChain c;
      c.operands.push_back(links[0].head);
      bool ok = true;
      for (size_t li = 0; li < keep && ok; ++li) {
        int operand = -1;
        if (links[li].other >= 0) {
          for (size_t j = 0; j < c.operands.size(); ++j)
            if (c.operands[j] == links[li].other) operand = static_cast<int>(j);
          if (operand < 0) {
            operand = static_cast<int>(c.operands.size());
            c.operands.push_back(links[li].other);
          }
        }
        for (ChainStep st : links[li].steps) {
          st.operand = operand;
          c.steps.push_back(st);
        }
      }
      c.out_id = links[keep - 1].out;
      if (c.operands.size() > kMaxChainOperands) continue;
      for (int32_t id : c.operands) ok = ok && buffer_of(id) != buffer_of(c.out_id);
      // The ops passed over now run before the chain reads its operands and writes its
      // output: they must touch none of those buffers.
      std::set<const gpu::Buffer*> chain_buffers = {buffer_of(c.out_id)};
      for (int32_t id : c.operands) chain_buffers.insert(buffer_of(id));
      for (size_t li = 1; li < keep && ok; ++li)
        for (size_t op : passed[li]) {
          for (int32_t id : plan.ops[op].args) {
            if (id < 0 || static_cast<size_t>(id) >= n_vals) continue;
            if (chain_buffers.count(buffer_of(id))) ok = false;
            for (int32_t item : values[static_cast<size_t>(id)].items)
              if (chain_buffers.count(buffer_of(item))) ok = false;
          }
          // A product passed over writes its epilogue's output there (matmul_fusion.h).
          if (auto e = g.matmul_epilogues_.find(op); e != g.matmul_epilogues_.end())
            for (int32_t id : {e->second.out_id, e->second.residual_id, e->second.column_id})
              if (chain_buffers.count(buffer_of(id))) ok = false;
        }
      if (!ok) continue;
      for (size_t li = 0; li + 1 < keep; ++li) c.folded.push_back(link_ops[li]);
      for (size_t li = 0; li < keep; ++li) taken[link_ops[li]] = true;
      chains.emplace(link_ops[keep - 1], std::move(c));
      break;
    }
  }
  return chains;
}

}  // namespace wick::webgpu
