// Graph-build-time fusion (plan_conv_fusions, fusion.h), run before any op is built. A
// pure pass: it reads the graph's values and the memory plan's buffer sharing, and
// returns what to fuse and which fused outputs need a buffer of their own; it allocates
// nothing and changes nothing (Graph::build_ops applies the plan).
//
//  * conv epilogues: a chain of elementwise ops that directly follows a convolution
//    (relu, leaky_relu, clamp, hardtanh, hardswish, gelu, SiLU as sigmoid(y) * y, and
//    add/sub/mul/div by a scalar known on the host) is applied by the conv as it stores its
//    result. The conv writes the chain's last output; the intermediate tensors are never
//    written. Each link must be the only user of the previous result (SiLU: the sigmoid
//    and the multiply its only two), and no link's result may be a graph output except
//    the last. A clone of the result passes through to the next link (Whisper's conv1d:
//    conv, clone, GELU), only ahead of one; so do up to two ops that do not read the
//    result (Whisper's position-embedding lookup between its first conv and GELU), after
//    which no link takes a tensor operand.
//    Before that chain, a per-output-channel multiply / add / subtract by constants
//    (a batch norm exported as y * scale[1, C, 1, 1] + shift[1, C, 1, 1], as D-FINE's
//    HGNetV2 has it) is folded into the conv's weights and bias at build (ConvFusion::
//    channel_scale / channel_shift), for convs whose weights and bias are f32 constants.
//  * residual adds: y + r with r shaped as y, for pointwise convs (one per conv).
//  * pointwise-conv prologue: a per-channel multiply right before a 1x1 convolution
//    (squeeze-and-excitation's x * scale[N, C, 1, 1]) is done by the conv as it loads x.
//  * dead copies: clones and dtype/dim-order copies whose result nothing reads any more
//    (the host-known scalars the fused ops took, e.g. hardsigmoid's 3 and 6) are left out.
//
// Buffers: the exporter's memory plan shares buffers between tensors whose lifetimes do
// not overlap. A fused conv writes the chain's output earlier than the plan expects and
// reads the prologue's inputs later, so a fusion is kept only if the buffer the conv
// writes is none of those it reads, and ops in between (host-known scalar copies, and the
// ops above that do not read the result) touch none of them.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <set>

#include "webgpu/fusion.h"

namespace wick::webgpu {

namespace {

// Ops a conv's epilogue may pass over on its way to the next link (next_op below).
constexpr size_t kMaxOpsBetween = 2;

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

ConvFusionPlan plan_conv_fusions(const vkgraph::Plan& plan, const Graph& g) {
  const std::vector<GValue>& values = g.values_;
  const size_t n_ops = plan.ops.size();
  const size_t n_vals = values.size();
  ConvFusionPlan out;
  out.skip.assign(n_ops, false);
  std::vector<bool>& skip = out.skip;
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
      const GValue& v = values[static_cast<size_t>(a[k])];
      if (v.kind == GValue::kValueList)
        for (int32_t item : v.items)
          if (item >= 0 && static_cast<size_t>(item) < n_vals) readers[static_cast<size_t>(item)] += delta;
    }
  };
  for (size_t i = 0; i < n_ops; ++i) count_reads(i, 1);
  std::vector<bool> is_output(n_vals, false);
  for (int32_t id : g.output_ids_) {
    readers[static_cast<size_t>(id)] += 1;
    is_output[static_cast<size_t>(id)] = true;
  }

  auto tensor_at = [&](int32_t id) -> const GpuTensor* {
    const GValue& v = values[static_cast<size_t>(id)];
    return v.kind == GValue::kTensor ? &v.tensor : nullptr;
  };
  // The buffer each tensor is in, as a key: the memory plan's buffer (its address), or a
  // fusion slot this pass chose (2k+1 for slot k: odd, so never an address).
  std::vector<uintptr_t> buffer(n_vals, 0);
  for (size_t id = 0; id < n_vals; ++id)
    if (const GpuTensor* t = tensor_at(static_cast<int32_t>(id)))
      buffer[id] = reinterpret_cast<uintptr_t>(t->buffer.get());
  auto buffer_of = [&](int32_t id) { return buffer[static_cast<size_t>(id)]; };
  auto slot_key = [](size_t k) { return static_cast<uintptr_t>(2 * k + 1); };
  std::vector<size_t> slot_busy_until;  // per slot: chain op index after which it is free
  auto is_float_tensor = [&](int32_t id) {
    const GpuTensor* t = tensor_at(id);
    return t && t->is_float() && buffer_of(id) != 0;
  };
  // Whether op `op` has value `id` among its arguments (value lists included).
  auto reads_value = [&](size_t op, int32_t id) {
    for (int32_t a : args[op]) {
      if (a == id) return true;
      const GValue& v = values[static_cast<size_t>(a)];
      if (v.kind == GValue::kValueList)
        for (int32_t item : v.items) if (item == id) return true;
    }
    return false;
  };

  // Host-known scalars: one-element constants and copies of them.
  std::map<int32_t, double> known;
  for (size_t id = 0; id < n_vals; ++id) {
    const GpuTensor* t = tensor_at(static_cast<int32_t>(id));
    if (t && t->constant_id >= 0 && t->max_numel() == 1 && !g.constant_host_[id].empty())
      if (auto v = scalar_from_bytes(g.constant_host_[id], t->vk_dtype)) known[static_cast<int32_t>(id)] = *v;
  }
  std::vector<bool> scalar_op(n_ops, false);  // copies a host-known scalar
  for (size_t i = 0; i < n_ops; ++i) {
    if (!is_scalar_copy(names[i]) || args[i].size() < 2) continue;
    auto it = known.find(args[i][0]);
    const GpuTensor* out = tensor_at(args[i].back());
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
  // f32 constants with host bytes, and copies of them (prepack, clone, dtype copies that
  // keep f32): value id -> the constant's id.
  std::map<int32_t, int32_t> const_of;
  auto f32_constant = [&](int32_t id) {
    const GpuTensor* t = tensor_at(id);
    return t && t->constant_id >= 0 && t->vk_dtype == vk::VkDataType::FLOAT32 &&
           g.constant_host_[static_cast<size_t>(id)].size() == static_cast<size_t>(t->max_numel()) * 4;
  };
  for (size_t i = 0; i < n_ops; ++i) {
    if (!is_scalar_copy(names[i]) || args[i].size() < 2) continue;
    const int32_t in = args[i][0], res = args[i].back();
    const GpuTensor* to = tensor_at(res);
    const GpuTensor* from = tensor_at(in);
    if (!to || !from || to->vk_dtype != vk::VkDataType::FLOAT32 || to->max_dims != from->max_dims) continue;
    if (f32_constant(in)) const_of[res] = in;
    else if (auto it = const_of.find(in); it != const_of.end()) const_of[res] = it->second;
  }
  // The host floats of a per-output-channel constant for output `y` (dims that broadcast to
  // y's with only the channel dim, 1, not 1), or none.
  auto channel_constant = [&](int32_t id, const GpuTensor* y) -> std::optional<std::vector<float>> {
    int32_t cid = id;
    if (!f32_constant(cid)) {
      auto it = const_of.find(id);
      if (it == const_of.end()) return std::nullopt;
      cid = it->second;
    }
    const GpuTensor* t = tensor_at(cid);
    const auto& cd = t->max_dims;
    const auto& yd = y->max_dims;
    if (yd.size() < 2 || cd.size() > yd.size() || t->max_numel() != yd[1]) return std::nullopt;
    for (size_t k = 0; k < cd.size(); ++k)  // right-aligned: C at y's channel dim, 1 elsewhere
      if (cd[k] != (yd.size() - cd.size() + k == 1 ? yd[1] : 1)) return std::nullopt;
    std::vector<float> v(static_cast<size_t>(yd[1]));
    std::memcpy(v.data(), g.constant_host_[static_cast<size_t>(cid)].data(), v.size() * 4);
    return v;
  };

  for (size_t i = 0; i < n_ops; ++i) {
    if (skip[i] || !is_conv(names[i])) continue;
    const auto& ca = args[i];
    const bool with_clamp = names[i] == "et_vk.conv_with_clamp.default";
    if (ca.size() != (with_clamp ? 12u : 10u)) continue;
    const int32_t y = ca.back();
    if (!is_float_tensor(ca[0]) || !is_float_tensor(ca[1]) || !is_float_tensor(y)) continue;
    // Buffers the conv reads besides x (x, or the prologue's operands, join per attempt below).
    std::vector<uintptr_t> reads = {buffer_of(ca[1])};
    if (!g.is_none(ca[2])) {
      if (!is_float_tensor(ca[2])) continue;
      reads.push_back(buffer_of(ca[2]));
    }

    ConvFusion f;
    std::vector<size_t> fused;  // chain ops folded into this conv

    // Prologue: x = a * s right before a pointwise conv, x read by the conv alone.
    auto pointwise = [&]() {
      const GpuTensor* w = tensor_at(ca[1]);
      const GpuTensor* x = tensor_at(ca[0]);
      if (w->rank() != 4 || x->rank() != 4 || w->max_dims[2] != 1 || w->max_dims[3] != 1) return false;
      auto transposed = g.bool_arg(ca[6], "fusion");
      auto groups = g.int_arg(ca[8], "fusion");
      auto stride = g.int_list(ca[3], "fusion");
      auto padding = g.int_list(ca[4], "fusion");
      if (!transposed.ok() || *transposed || !groups.ok() || *groups != 1 || !stride.ok() || !padding.ok()) return false;
      for (int64_t s : *stride) if (s != 1) return false;
      for (int64_t p : *padding) if (p != 0) return false;
      return true;
    };
    if (i > 0 && !skip[i - 1] && names[i - 1] == "aten.mul.Tensor" && args[i - 1].size() == 3 &&
        args[i - 1][2] == ca[0] && readers[static_cast<size_t>(ca[0])] == 1 && !is_output[static_cast<size_t>(ca[0])] &&
        pointwise()) {
      const int32_t a = args[i - 1][0], b = args[i - 1][1];
      const GpuTensor* x = tensor_at(ca[0]);
      for (auto [big, small] : {std::pair{a, b}, std::pair{b, a}}) {
        if (big == small || !is_float_tensor(big) || !is_float_tensor(small)) continue;
        const GpuTensor* tb = tensor_at(big);
        const GpuTensor* ts = tensor_at(small);
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
    std::vector<size_t> between;  // scalar copies (and ops that do not read the result) passed over
    bool real_between = false;    // an op that runs was passed over
    // A link is one op folded in, or two for SiLU (sigmoid(y) then y * that: `extra` is the sigmoid).
    struct Link { size_t op; int32_t out; EpilogueOp e[2]; int n; size_t between_end; int32_t residual; size_t extra = SIZE_MAX; };
    const bool is_pointwise = pointwise();
    bool have_residual = false;
    // Per-channel affine folding: a plain (not clamped, not transposed) conv whose weights
    // and bias are f32 constants with host bytes.
    const GpuTensor* yt = tensor_at(y);
    bool affine_ok = !with_clamp && f32_constant(ca[1]) && (g.is_none(ca[2]) || f32_constant(ca[2])) && yt->max_dims.size() >= 2;
    if (affine_ok) {
      auto transposed = g.bool_arg(ca[6], "fusion");
      affine_ok = transposed.ok() && !*transposed && tensor_at(ca[1])->max_dims[0] == yt->max_dims[1];
    }
    std::vector<float> ch_scale(affine_ok ? static_cast<size_t>(yt->max_dims[1]) : 0, 1.f);
    std::vector<float> ch_shift(ch_scale.size(), 0.f);
    bool have_affine = false;
    std::vector<Link> links;
    size_t n_epi = 0;
    while (n_epi + 2 <= kMaxEpilogue) {
      // Two readers only for SiLU: the sigmoid and the multiply.
      const int cur_readers = readers[static_cast<size_t>(cur)];
      if ((cur_readers != 1 && cur_readers != 2) || is_output[static_cast<size_t>(cur)]) break;
      size_t between_mark = between.size();
      // The next op after `from` that is not skipped, passing over (and noting) scalar copies
      // and prepacks (they stage a constant: the output shares its buffer, nothing runs),
      // and up to kMaxOpsBetween ops that do not read the current result (Whisper's position
      // embedding lookup between its first conv and that conv's GELU): those run after the
      // fused conv as before, so they must not touch the buffer it writes (writable below),
      // and no link after them takes a tensor operand (they might produce or change it).
      auto next_op = [&](size_t from) {
        size_t k = from + 1;
        size_t others = 0;
        while (k < n_ops) {
          const bool passive = skip[k] || scalar_op[k] || names[k] == "et_vk.prepack.default";
          // Not a conv: its own fusion, planned later, may change what it writes.
          if (!passive && (others == kMaxOpsBetween || reads_value(k, cur) || is_conv(names[k]))) break;
          if (!skip[k]) between.push_back(k);
          if (!passive) ++others, real_between = true;
          ++k;
        }
        return k;
      };
      size_t k = next_op(pos);
      if (k >= n_ops) break;
      const auto& a = args[k];
      const std::string& nm = names[k];
      Link l{k, a.empty() ? -1 : a.back(), {}, 0, 0, -1};
      auto push = [&](EpilogueCode c, double v) { l.e[l.n++] = EpilogueOp{c, static_cast<float>(v)}; };
      bool ok = false;
      if (affine_ok && n_epi == 0 && cur_readers == 1 && a.size() >= 3 &&
          (nm == "aten.mul.Tensor" || nm == "aten.add.Tensor" || nm == "aten.sub.Tensor") && (a[0] == cur) != (a[1] == cur)) {
        // A per-output-channel constant: folded into the weights and bias (no epilogue step).
        const int32_t other = a[0] == cur ? a[1] : a[0];
        auto c = channel_constant(other, tensor_at(cur));
        auto alpha = nm == "aten.mul.Tensor" ? Result<double>(1.0)
                     : g.is_none(a[2])       ? Result<double>(1.0)
                                             : g.scalar_arg(a[2], "fusion");
        const bool fits = nm == "aten.mul.Tensor" ? a.size() == 3 : a.size() == 4 && (a[0] == cur || (alpha.ok() && *alpha == 1.0));
        if (c && alpha.ok() && fits && (nm != "aten.sub.Tensor" || a[0] == cur)) {
          for (size_t o = 0; o < c->size(); ++o) {
            if (nm == "aten.mul.Tensor") {
              ch_scale[o] *= (*c)[o];
              ch_shift[o] *= (*c)[o];
            } else {
              ch_shift[o] += static_cast<float>((nm == "aten.sub.Tensor" ? -*alpha : *alpha) * (*c)[o]);
            }
          }
          have_affine = true;
          ok = true;
        }
      }
      if (ok) {
        // folded above
      } else if (cur_readers == 2) {
        // SiLU as exported: s = sigmoid(y), then y * s (either order), s read by the multiply alone.
        if (nm == "aten.sigmoid.default" && a.size() == 2 && a[0] == cur && readers[static_cast<size_t>(a[1])] == 1 &&
            !is_output[static_cast<size_t>(a[1])]) {
          const int32_t sig = a[1];
          const size_t k2 = next_op(k);
          if (k2 < n_ops && names[k2] == "aten.mul.Tensor" && args[k2].size() == 3 &&
              ((args[k2][0] == cur && args[k2][1] == sig) || (args[k2][0] == sig && args[k2][1] == cur))) {
            l.extra = k;
            l.op = k2;
            l.out = args[k2].back();
            push(EpilogueCode::kSilu, 0.0);
            ok = true;
          }
        }
      } else if ((nm == "aten.hardswish.default" || nm == "aten.relu.default") && a.size() == 2 && a[0] == cur) {
        if (nm == "aten.relu.default") push(EpilogueCode::kMax, 0.0);
        else push(EpilogueCode::kHardswish, 0.0);
        ok = true;
      } else if (nm == "aten.clone.default" && a.size() == 3 && a[0] == cur && is_float_tensor(l.out)) {
        // A plain copy of the result (Whisper's second conv1d: conv, clone, GELU): the chain
        // goes on from the copy, and the conv writes where the copy would have.
        ok = true;
      } else if (nm == "aten.gelu.default" && a.size() == 3 && a[0] == cur) {
        // approximate: none (erf, Whisper's conv stem) or "tanh".
        if (const std::optional<bool> tanh_form = g.gelu_tanh_arg(a[1])) {
          push(*tanh_form ? EpilogueCode::kGeluTanh : EpilogueCode::kGeluErf, 0.0);
          ok = true;
        }
      } else if (nm == "aten.leaky_relu.default" && a.size() == 3 && a[0] == cur) {
        // negative_slope: a host scalar, or none (PyTorch's default, 0.01).
        auto slope = g.is_none(a[1]) ? Result<double>(0.01) : g.scalar_arg(a[1], "fusion");
        if (slope.ok()) {
          push(EpilogueCode::kLeakyRelu, *slope);
          ok = true;
        }
      } else if ((nm == "aten.clamp.default" || nm == "aten.hardtanh.default") && a.size() == 4 && a[0] == cur) {
        ok = true;
        for (int s = 1; s <= 2 && ok; ++s) {
          if (g.is_none(a[static_cast<size_t>(s)])) {
            if (nm == "aten.hardtanh.default") ok = false;
            continue;
          }
          auto v = g.scalar_arg(a[static_cast<size_t>(s)], "fusion");
          if (!v.ok()) ok = false;
          else push(s == 1 ? EpilogueCode::kMax : EpilogueCode::kMin, *v);
        }
        ok = ok && l.n > 0;
      } else if ((nm == "aten.add.Tensor" || nm == "aten.sub.Tensor") && a.size() == 4 && (a[0] == cur) != (a[1] == cur)) {
        auto alpha = g.is_none(a[2]) ? Result<double>(1.0) : g.scalar_arg(a[2], "fusion");
        const int32_t other = a[0] == cur ? a[1] : a[0];
        auto c = scalar_of(other);
        if (alpha.ok() && c) {
          if (nm == "aten.add.Tensor" && a[0] == cur) { push(EpilogueCode::kAdd, *alpha * *c); ok = true; }
          else if (nm == "aten.add.Tensor" && *alpha == 1.0) { push(EpilogueCode::kAdd, *c); ok = true; }
          else if (nm == "aten.sub.Tensor" && a[0] == cur) { push(EpilogueCode::kAdd, -(*alpha * *c)); ok = true; }
        } else if (alpha.ok() && nm == "aten.add.Tensor" && (a[0] == cur || *alpha == 1.0) && is_pointwise &&
                   !have_residual && is_float_tensor(other) && tensor_at(other)->max_dims == tensor_at(cur)->max_dims) {
          // A residual produced by an op passed over would not exist yet when the conv runs.
          bool produced_between = real_between;
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
        const GpuTensor* out = l.out >= 0 ? tensor_at(l.out) : nullptr;
        ok = out && out->is_float() && buffer_of(l.out) != 0 && out->max_dims == tensor_at(cur)->max_dims;
      }
      if (!ok) {
        between.resize(between_mark);
        break;
      }
      l.between_end = between.size();
      if (l.residual >= 0) {
        have_residual = true;
        reads.push_back(buffer_of(l.residual));
      }
      n_epi += static_cast<size_t>(l.n);
      links.push_back(l);
      cur = l.out;
      pos = l.op;
    }

    // The buffer the conv writes: the chain output's own where the conv reads no tensor in
    // it; else a fusion slot of its own (below), which nothing else touches while the
    // output is live.
    auto touches = [&](size_t op, uintptr_t b) {
      for (int32_t id : args[op]) {
        const GValue& v = values[static_cast<size_t>(id)];
        if (v.kind == GValue::kTensor && buffer_of(id) == b) return true;
        if (v.kind == GValue::kValueList)
          for (int32_t item : v.items)
            if (item >= 0 && static_cast<size_t>(item) < n_vals && tensor_at(item) && buffer_of(item) == b) return true;
      }
      return false;
    };
    auto reads_for = [&](bool use_prologue) {
      std::vector<uintptr_t> r = reads;
      if (use_prologue) {
        r.push_back(buffer_of(f.x_id));
        r.push_back(buffer_of(f.scale_id));
      } else {
        r.push_back(buffer_of(ca[0]));
      }
      return r;
    };
    auto writable = [&](uintptr_t wb, size_t n_between, bool use_prologue) {
      for (uintptr_t b : reads_for(use_prologue))
        if (b == wb) return false;
      for (size_t b = 0; b < n_between; ++b)
        if (touches(between[b], wb)) return false;
      return true;
    };
    // Everything up to the longest chain; the prologue only if it leaves some epilogue or stands alone.
    bool use_prologue = f.scale_id >= 0;
    size_t keep = links.size();
    // A copy folds only ahead of a step (the per-channel affine links have no step either,
    // but their constants went into the weights: they stay).
    while (keep > 0 && links[keep - 1].n == 0 && names[links[keep - 1].op] == "aten.clone.default") --keep;
    if (keep == 0 && !use_prologue) continue;
    f.out_id = keep == 0 ? y : links[keep - 1].out;
    const size_t n_between = keep == 0 ? 0 : links[keep - 1].between_end;
    const size_t end_op = keep == 0 ? i : links[keep - 1].op;
    if (!writable(buffer_of(f.out_id), n_between, use_prologue)) {
      // Live from the conv to its last reader (+1: a later fused prologue reads one op late).
      size_t last = is_output[static_cast<size_t>(f.out_id)] ? SIZE_MAX : end_op;
      if (last != SIZE_MAX)
        for (size_t op = end_op + 1; op < n_ops; ++op)
          if (!skip[op] && reads_value(op, f.out_id)) last = op;
      const size_t busy_until = last == SIZE_MAX ? SIZE_MAX : last + 1;
      const uint64_t bytes = static_cast<uint64_t>(std::max<int64_t>(tensor_at(f.out_id)->max_numel(), 1)) * 4;
      size_t chosen = SIZE_MAX;
      for (size_t k = 0; k < out.slot_bytes.size(); ++k)
        if (slot_busy_until[k] < i && out.slot_bytes[k] >= bytes && writable(slot_key(k), n_between, use_prologue)) {
          slot_busy_until[k] = busy_until;
          chosen = k;
          break;
        }
      if (chosen == SIZE_MAX) {
        chosen = out.slot_bytes.size();
        out.slot_bytes.push_back(bytes);
        slot_busy_until.push_back(busy_until);
      }
      out.slot_of[f.out_id] = chosen;
      buffer[static_cast<size_t>(f.out_id)] = slot_key(chosen);
    }
    if (!use_prologue) f.scale_id = f.x_id = -1;
    if (have_affine) {
      f.channel_scale = std::move(ch_scale);
      f.channel_shift = std::move(ch_shift);
    }
    for (size_t l = 0; l < keep; ++l) {
      for (int e = 0; e < links[l].n; ++e) f.epilogue.push_back(links[l].e[e]);
      if (links[l].residual >= 0) f.residual_id = links[l].residual;
      fused.push_back(links[l].op);
      if (links[l].extra != SIZE_MAX) fused.push_back(links[l].extra);
    }
    if (use_prologue) fused.push_back(i - 1);
    for (size_t op : fused) {
      skip[op] = true;
      count_reads(op, -1);
      ++out.fused_ops;
    }
    if (f.scale_id >= 0) {
      // The conv now reads the multiply's operands, not its output.
      readers[static_cast<size_t>(f.x_id)] += 1;
      readers[static_cast<size_t>(f.scale_id)] += 1;
      readers[static_cast<size_t>(ca[0])] -= 1;
    }
    if (f.residual_id >= 0) readers[static_cast<size_t>(f.residual_id)] += 1;  // now read by the conv
    out.convs[i] = std::move(f);
  }

  // Dead copies, last to first so that chains of them go together.
  for (size_t i = n_ops; i-- > 0;) {
    if (skip[i] || !is_dead_candidate(names[i]) || args[i].size() < 2) continue;
    const int32_t result = args[i].back();
    if (readers[static_cast<size_t>(result)] != 0 || is_output[static_cast<size_t>(result)]) continue;
    skip[i] = true;
    count_reads(i, -1);
    ++out.dead_ops;
  }
  return out;
}

}  // namespace wick::webgpu
