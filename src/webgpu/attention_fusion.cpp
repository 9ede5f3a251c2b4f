// plan_attention_fusions (attention_fusion.h): finds softmax(bmm(q, k^T) * c + mask) @ v
// in the chain, follows the copies around q, k, v and the result as strided views (each
// dim a product of (size, stride) atoms, so reshapes of permuted tensors stay exact), and
// plans one flash_attention dispatch per match.
#include "webgpu/attention_fusion.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <string>

#include "webgpu/graph.h"
#include "webgpu/memory_plan.h"
#include "webgpu/strided_view.h"

namespace wick::webgpu {

namespace {

using namespace strided;

// ---- the chain ----
bool is_reshape(const std::string& n) {
  return n == "aten.view_copy.default" || n == "aten._unsafe_view.default" || n == "aten.squeeze_copy.dims" ||
         n == "aten.squeeze_copy.dim" || n == "aten.squeeze_copy.default" || n == "aten.unsqueeze_copy.default" ||
         n == "aten.clone.default" || n == "aten.alias_copy.default" || n == "aten._to_copy.default" ||
         n == "dim_order_ops._to_dim_order_copy.default";
}

struct Chain {
  const vkgraph::Plan& plan;
  std::vector<int> producer;                  // value -> op writing it (its last argument)
  std::vector<std::vector<size_t>> readers;   // value -> ops reading it (not as their output)
  std::vector<bool> is_output;

  const vkgraph::ValueDecl& val(int32_t id) const { return plan.values[static_cast<size_t>(id)]; }
  bool valid(int32_t id) const { return id >= 0 && static_cast<size_t>(id) < plan.values.size(); }
  bool is_float_tensor(int32_t id) const {
    return valid(id) && val(id).kind == vkgraph::ValueKind::kTensor && vkgraph::vk_is_float(val(id).tensor.dtype);
  }
  const std::vector<int64_t>& dims(int32_t id) const { return val(id).tensor.dims; }
  int32_t out_of(size_t op) const { return plan.ops[op].args.back(); }
  const std::string& name(size_t op) const { return plan.ops[op].name; }
  // The only reader of `id`, if it has exactly one and is no graph output.
  std::optional<size_t> sole_reader(int32_t id) const {
    if (!valid(id) || is_output[static_cast<size_t>(id)] || readers[static_cast<size_t>(id)].size() != 1) return std::nullopt;
    return readers[static_cast<size_t>(id)][0];
  }

  std::optional<int64_t> int_value(int32_t id) const {
    if (!valid(id)) return std::nullopt;
    const auto& v = val(id);
    if (v.kind == vkgraph::ValueKind::kInt || v.kind == vkgraph::ValueKind::kSymInt) return v.i;
    return std::nullopt;
  }
  std::optional<std::vector<int64_t>> int_list(int32_t id) const {
    if (!valid(id) || val(id).kind != vkgraph::ValueKind::kIntList) return std::nullopt;
    return val(id).ints;
  }

  // A scalar known on the host: a number, a one-element constant, or a copy of one.
  std::optional<double> host_scalar(int32_t id, int depth = 0) const {
    if (!valid(id) || depth > 4) return std::nullopt;
    const auto& v = val(id);
    if (v.kind == vkgraph::ValueKind::kDouble) return v.d;
    if (v.kind == vkgraph::ValueKind::kInt) return static_cast<double>(v.i);
    if (v.kind != vkgraph::ValueKind::kTensor || v.tensor.numel() != 1) return std::nullopt;
    if (v.tensor.is_constant()) {
      const auto& b = v.tensor.constant;
      auto rd = [&](auto x) -> std::optional<double> {
        if (b.size() < sizeof(x)) return std::nullopt;
        std::memcpy(&x, b.data(), sizeof(x));
        return static_cast<double>(x);
      };
      switch (v.tensor.dtype) {
        case vk::VkDataType::FLOAT32: return rd(float{});
        case vk::VkDataType::FLOAT64: return rd(double{});
        case vk::VkDataType::INT32: return rd(int32_t{});
        case vk::VkDataType::INT64: return rd(int64_t{});
        default: return std::nullopt;
      }
    }
    const int p = producer[static_cast<size_t>(id)];
    if (p < 0) return std::nullopt;
    const std::string& n = name(static_cast<size_t>(p));
    if (n == "et_vk.prepack.default" || is_reshape(n)) return host_scalar(plan.ops[static_cast<size_t>(p)].args[0], depth + 1);
    return std::nullopt;
  }

  // Written by a convolution or an elementwise op right after one (a conv epilogue).
  bool near_conv(int32_t id) const {
    for (int depth = 0; depth < 8 && valid(id); ++depth) {
      const int p = producer[static_cast<size_t>(id)];
      if (p < 0) return false;
      const std::string& n = name(static_cast<size_t>(p));
      if (n.find("conv") != std::string::npos) return true;
      const bool elementwise = n == "aten.relu.default" || n == "aten.hardswish.default" || n == "aten.clamp.default" ||
                               n == "aten.hardtanh.default" || n == "aten.add.Tensor" || n == "aten.sub.Tensor" ||
                               n == "aten.mul.Tensor" || n == "aten.div.Tensor";
      if (!elementwise) return false;
      id = plan.ops[static_cast<size_t>(p)].args[0];
    }
    return false;
  }

  // PyTorch's _safe_softmax around softmax(x) = p, as SDPA exports decompose it:
  //   w = where(logical_not(any(logical_not(eq(x, -inf)), -1)), full_like(p, 0), p)
  // (rows whose scores are all -inf give 0, not NaN). Returns the ops besides the softmax
  // (eq ... where) and w, when x and p have no other readers and every intermediate is read
  // once. Without a mask the scores are finite, so w == p and the guard can go.
  std::optional<std::pair<std::vector<size_t>, int32_t>> safe_softmax_guard(size_t sm) const {
    const auto& sa = plan.ops[sm].args;
    const int32_t x = sa[0], p = sa[3];
    if (is_output[static_cast<size_t>(p)] || readers[static_cast<size_t>(p)].size() != 2) return std::nullopt;
    std::vector<size_t> ops;
    int fl = -1, wh = -1;
    for (size_t r : readers[static_cast<size_t>(p)]) {
      if (name(r) == "aten.full_like.default" && plan.ops[r].args[0] == p) fl = static_cast<int>(r);
      if (name(r) == "aten.where.self" && plan.ops[r].args.size() == 4 && plan.ops[r].args[2] == p) wh = static_cast<int>(r);
    }
    if (fl < 0 || wh < 0) return std::nullopt;
    const auto& fa = plan.ops[static_cast<size_t>(fl)].args;
    const auto& wa = plan.ops[static_cast<size_t>(wh)].args;
    auto fill = fa.size() > 2 ? host_scalar(fa[1]) : std::nullopt;
    if (!fill || *fill != 0.0 || wa[1] != fa.back() || sole_reader(fa.back()) != static_cast<size_t>(wh) ||
        !is_float_tensor(wa[3]) || dims(wa[3]) != dims(p))
      return std::nullopt;
    ops.push_back(static_cast<size_t>(fl));
    ops.push_back(static_cast<size_t>(wh));
    // The condition, back to eq(x, -inf).
    int32_t cur = wa[0];
    for (int step = 0; step < 6; ++step) {
      const int pr = producer[static_cast<size_t>(cur)];
      if (pr < 0 || !sole_reader(cur)) return std::nullopt;
      const std::string& n = name(static_cast<size_t>(pr));
      const auto& a = plan.ops[static_cast<size_t>(pr)].args;
      ops.push_back(static_cast<size_t>(pr));
      if (n == "aten.logical_not.default" || n == "aten.any.dim") {
        cur = a[0];
        continue;
      }
      if (n != "aten.eq.Scalar" || a[0] != x) return std::nullopt;
      auto v = host_scalar(a[1]);
      if (!v || !std::isinf(*v) || *v > 0) return std::nullopt;
      // x: read by this eq and the softmax only.
      if (is_output[static_cast<size_t>(x)] || readers[static_cast<size_t>(x)].size() != 2) return std::nullopt;
      return std::pair{ops, wa[3]};
    }
    return std::nullopt;
  }

  // For a multiply or divide of a tensor by a host scalar: the tensor and the factor.
  std::optional<std::pair<int32_t, double>> scalar_scale(size_t op) const {
    const auto& a = plan.ops[op].args;
    const std::string& n = name(op);
    if ((n != "aten.mul.Tensor" && n != "aten.mul.Scalar" && n != "aten.div.Tensor") || a.size() != 3) return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      if (n == "aten.div.Tensor" && side == 1) break;
      const int32_t x = a[static_cast<size_t>(side)], c = a[static_cast<size_t>(1 - side)];
      if (!is_float_tensor(x) || dims(x) != dims(a[2])) continue;
      auto s = host_scalar(c);
      if (!s || *s == 0 || !std::isfinite(*s)) continue;
      return std::pair{x, n == "aten.div.Tensor" ? 1.0 / *s : *s};
    }
    return std::nullopt;
  }

  // The tensor a view-like op (or a scalar multiply, when allowed) reads, if `op` is one.
  std::optional<int32_t> view_input(size_t op, bool allow_scale) const {
    const auto& a = plan.ops[op].args;
    const std::string& n = name(op);
    if (a.size() < 2 || !is_float_tensor(a.back())) return std::nullopt;
    if (is_reshape(n) || n == "aten.permute_copy.default" || n == "aten.expand_copy.default" ||
        n == "aten.select_copy.int" || n == "aten.slice_copy.Tensor") {
      if (!is_float_tensor(a[0])) return std::nullopt;
      return a[0];
    }
    if (allow_scale)
      if (auto s = scalar_scale(op)) return s->first;
    return std::nullopt;
  }

  // `in` (a view of op's input) through op, forward; scale collects scalar multiplies.
  std::optional<View> apply(size_t op, const View& in, double& scale) const {
    const auto& a = plan.ops[op].args;
    const std::string& n = name(op);
    const std::vector<int64_t>& od = dims(a.back());
    if (is_reshape(n)) return reshape(in, od);
    if (n == "aten.permute_copy.default") {
      auto p = int_list(a[1]);
      if (!p) return std::nullopt;
      return permute(in, *p);
    }
    if (n == "aten.expand_copy.default") {
      auto s = int_list(a[1]);
      if (!s) return std::nullopt;
      auto v = expand(in, *s);
      if (!v) return std::nullopt;
      return reshape(*v, od);  // checks the sizes against the output's
    }
    if (n == "aten.select_copy.int" && a.size() == 4) {
      auto dim = int_value(a[1]), index = int_value(a[2]);
      const int64_t r = static_cast<int64_t>(in.dims.size());
      if (!dim || !index) return std::nullopt;
      const int64_t d = *dim < 0 ? *dim + r : *dim;
      if (d < 0 || d >= r) return std::nullopt;
      const Dim& dd = in.dims[static_cast<size_t>(d)];
      const int64_t size = dim_size(dd);
      const int64_t i = *index < 0 ? *index + size : *index;
      auto st = single_stride(dd);
      if (i < 0 || i >= size || !st) return std::nullopt;
      View out = in;
      out.off += i * *st;
      out.dims.erase(out.dims.begin() + d);
      return reshape(out, od);
    }
    if (n == "aten.slice_copy.Tensor" && a.size() == 6) {
      auto dim = int_value(a[1]);
      const int64_t r = static_cast<int64_t>(in.dims.size());
      if (!dim) return std::nullopt;
      const int64_t d = *dim < 0 ? *dim + r : *dim;
      if (d < 0 || d >= r) return std::nullopt;
      const Dim& dd = in.dims[static_cast<size_t>(d)];
      const int64_t size = dim_size(dd);
      auto start = int_value(a[2]).value_or(0), end = int_value(a[3]).value_or(size), step = int_value(a[4]).value_or(1);
      if (start < 0) start += size;
      if (end < 0) end += size;
      start = std::clamp<int64_t>(start, 0, size);
      end = std::clamp<int64_t>(end, start, size);
      auto st = single_stride(dd);
      if (step < 1 || !st) return std::nullopt;
      const int64_t len = (end - start + step - 1) / step;
      View out = in;
      out.off += start * *st;
      out.dims[static_cast<size_t>(d)] = len == 1 ? Dim{} : Dim{Atom{len, *st * step}};
      return reshape(out, od);
    }
    if (auto s = scalar_scale(op)) {
      scale *= s->second;
      return in;
    }
    return std::nullopt;
  }
};

// A resolved operand: its [BH, S, D] view over `base`, the ops between them (nearest the
// attention first), and the scalar factors met on the way.
struct Operand {
  int32_t base = -1;
  View view;
  std::vector<size_t> path;
  double scale = 1.0;
};

// The 3-D view's S and D dims each one run of memory.
bool rows_simple(const View& v) {
  return v.dims.size() == 3 && single_stride(v.dims[1]) && single_stride(v.dims[2]);
}

// Candidates for a bmm operand `id` ([BH, S, D]; `transposed`: [BH, D, S] as k^T is),
// deepest (fewest copies left) first, the operand itself last.
std::vector<Operand> resolve(const Chain& c, int32_t id, bool transposed, bool allow_scale) {
  std::vector<size_t> path;
  int32_t cur = id;
  for (int step = 0; step < 12; ++step) {
    const int p = c.producer[static_cast<size_t>(cur)];
    if (p < 0) break;
    auto in = c.view_input(static_cast<size_t>(p), allow_scale);
    if (!in) break;
    path.push_back(static_cast<size_t>(p));
    cur = *in;
  }
  std::vector<Operand> out;
  for (size_t depth = path.size() + 1; depth-- > 0;) {
    Operand o;
    o.base = depth == 0 ? id : *c.view_input(path[depth - 1], allow_scale);
    std::optional<View> v = contiguous(c.dims(o.base));
    for (size_t j = depth; j-- > 0 && v;) v = c.apply(path[j], *v, o.scale);
    if (!v || v->dims.size() != 3) continue;
    if (transposed) std::swap(v->dims[1], v->dims[2]);
    if (!rows_simple(*v)) continue;
    o.view = *v;
    o.path.assign(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(depth));
    out.push_back(std::move(o));
  }
  return out;
}

// One (B, H) split of the BH dim shared by every view: strides per view, or nullopt.
struct BatchSplit {
  int64_t batch = 1, heads = 1;
  std::vector<std::pair<int64_t, int64_t>> strides;  // per view: (batch, head)
};
std::optional<BatchSplit> split_batch(const std::vector<const Dim*>& dims0, int64_t bh) {
  // Boundaries (products of the inner atoms) of every view, refined into common factors.
  std::set<int64_t> bounds{1, bh};
  std::vector<Dim> ds;
  for (const Dim* d : dims0) {
    Dim s = simplify(*d);
    if (dim_size(s) != bh) return std::nullopt;
    int64_t p = 1;
    for (size_t i = s.size(); i-- > 0;) bounds.insert(p *= s[i].n);
    ds.push_back(std::move(s));
  }
  std::vector<int64_t> b(bounds.begin(), bounds.end());
  std::vector<int64_t> factors;  // inner first
  for (size_t i = 1; i < b.size(); ++i) {
    if (b[i] % b[i - 1]) return std::nullopt;
    factors.push_back(b[i] / b[i - 1]);
  }
  // strides[v][f]: stride of factor f (inner first) in view v.
  std::vector<std::vector<int64_t>> strides;
  for (const Dim& d : ds) {
    std::vector<int64_t> st;
    size_t ai = d.size();
    Atom cur{1, 0};
    for (int64_t f : factors) {
      if (cur.n == 1) {
        if (ai == 0) return std::nullopt;
        cur = d[--ai];
      }
      if (cur.n % f) return std::nullopt;
      st.push_back(cur.s);
      cur = Atom{cur.n / f, cur.s * f};
    }
    strides.push_back(st);
  }
  // Merge neighbouring factors that are one run in every view.
  for (bool merged = true; merged && factors.size() > 2;) {
    merged = false;
    for (size_t f = 0; f + 1 < factors.size() && !merged; ++f) {
      bool ok = true;
      for (const auto& st : strides) ok = ok && st[f + 1] == st[f] * factors[f];
      if (!ok) continue;
      factors[f] *= factors[f + 1];
      factors.erase(factors.begin() + static_cast<std::ptrdiff_t>(f) + 1);
      for (auto& st : strides) st.erase(st.begin() + static_cast<std::ptrdiff_t>(f) + 1);
      merged = true;
    }
  }
  if (factors.size() > 2) return std::nullopt;
  BatchSplit out;
  for (const auto& st : strides) {
    if (factors.size() == 2) out.strides.push_back({st[1], st[0]});
    else if (factors.size() == 1) out.strides.push_back({0, st[0]});
    else out.strides.push_back({0, 0});
  }
  if (factors.size() == 2) out.batch = factors[1], out.heads = factors[0];
  else if (factors.size() == 1) out.heads = factors[0];
  return out;
}

AttentionView to_view(int32_t id, const View& v, std::pair<int64_t, int64_t> bstr) {
  AttentionView a;
  a.id = id;
  a.offset = v.off;
  a.sb = bstr.first;
  a.sh = bstr.second;
  a.ss = *single_stride(v.dims[1]);
  a.sd = *single_stride(v.dims[2]);
  return a;
}

}  // namespace

AttentionFusions plan_attention_fusions(const vkgraph::Plan& plan, uint32_t max_storage_buffers,
                                        const std::function<bool(const AttentionFusion&)>& accept) {
  AttentionFusions result;
  if (max_storage_buffers < 5) return result;
  const size_t n = plan.values.size();
  for (const auto& v : plan.values)
    if (v.kind == vkgraph::ValueKind::kSymInt) return result;  // shapes fixed at build time only
  for (const auto& op : plan.ops)
    if (!in_place_args(op.name).empty()) return result;
  Chain c{plan, std::vector<int>(n, -1), std::vector<std::vector<size_t>>(n), std::vector<bool>(n, false)};
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    const auto& a = plan.ops[i].args;
    if (a.empty()) continue;
    for (size_t k = 0; k + 1 < a.size(); ++k) {
      if (!c.valid(a[k])) continue;
      c.readers[static_cast<size_t>(a[k])].push_back(i);
      for (int32_t item : c.val(a[k]).items)
        if (c.valid(item)) c.readers[static_cast<size_t>(item)].push_back(i);
    }
    if (c.valid(a.back())) c.producer[static_cast<size_t>(a.back())] = static_cast<int>(i);
  }
  for (int32_t id : plan.output_ids)
    if (c.valid(id)) c.is_output[static_cast<size_t>(id)] = true;

  std::set<size_t> skipped;
  std::set<int32_t> kept;  // tensors the fused dispatches read or write
  std::vector<size_t> path_ops;
  for (size_t sm = 0; sm < plan.ops.size(); ++sm) {
    const auto& sa = plan.ops[sm].args;
    if (plan.ops[sm].name != "aten._softmax.default" || sa.size() != 4 || !c.is_float_tensor(sa[0]) ||
        !c.is_float_tensor(sa[3]))
      continue;
    const int64_t rank = static_cast<int64_t>(c.dims(sa[0]).size());
    auto dim = c.int_value(sa[1]);
    if (!dim || (*dim != -1 && *dim != rank - 1)) continue;
    // SDPA exports: _safe_softmax's guard, dropped with the chain (no mask allowed below).
    const auto guard = c.safe_softmax_guard(sm);
    // Back from the softmax to the first bmm: reshapes, scalar multiplies, one mask add.
    std::vector<size_t> chain_ops{sm};
    if (guard) chain_ops.insert(chain_ops.end(), guard->first.begin(), guard->first.end());
    double scale = 1.0;
    int32_t mask = -1, mask_at = -1, cur = sa[0];
    int bmm1 = -1;
    bool ok = true;
    while (ok) {
      const int p = c.producer[static_cast<size_t>(cur)];
      if (p < 0 || (!c.sole_reader(cur) && !(guard && cur == sa[0]))) { ok = false; break; }
      const size_t op = static_cast<size_t>(p);
      const auto& a = plan.ops[op].args;
      const std::string& nm = c.name(op);
      if (nm == "aten.bmm.default" && a.size() == 3) { bmm1 = p; break; }
      chain_ops.push_back(op);
      if (is_reshape(nm) && c.is_float_tensor(a[0])) { cur = a[0]; continue; }
      if (auto s = c.scalar_scale(op)) { scale *= s->second; cur = s->first; continue; }
      if (nm == "aten.add.Tensor" && a.size() == 4 && mask < 0) {
        auto alpha = c.host_scalar(a[2]);
        if (!(plan.values[static_cast<size_t>(a[2])].kind == vkgraph::ValueKind::kNone || (alpha && *alpha == 1.0))) { ok = false; break; }
        // The scores: the operand of the output's shape that comes from the chain's ops.
        auto from_chain = [&](int32_t id) {
          const int pp = c.producer[static_cast<size_t>(id)];
          if (pp < 0 || c.dims(id) != c.dims(a[3])) return false;
          const std::string& pn = c.name(static_cast<size_t>(pp));
          return pn == "aten.bmm.default" || is_reshape(pn) || c.scalar_scale(static_cast<size_t>(pp)).has_value();
        };
        const int32_t x = from_chain(a[0]) ? a[0] : a[1];
        const int32_t m = x == a[0] ? a[1] : a[0];
        if (!c.is_float_tensor(x) || !c.is_float_tensor(m) || c.dims(x) != c.dims(a[3]) || c.dims(a[3]).size() < 2) { ok = false; break; }
        mask = m;
        mask_at = a[3];
        cur = x;
        continue;
      }
      ok = false;
    }
    if (!ok || bmm1 < 0 || (guard && mask >= 0)) continue;
    chain_ops.push_back(static_cast<size_t>(bmm1));
    // Forward from the softmax (or its guard's where) to the second bmm: reshapes only.
    cur = guard ? guard->second : sa[3];
    int bmm2 = -1;
    while (ok) {
      auto r = c.sole_reader(cur);
      if (!r) { ok = false; break; }
      const auto& a = plan.ops[*r].args;
      if (c.name(*r) == "aten.bmm.default" && a.size() == 3 && a[0] == cur) { bmm2 = static_cast<int>(*r); break; }
      if (!is_reshape(c.name(*r)) || a[0] != cur || !c.is_float_tensor(a.back())) { ok = false; break; }
      chain_ops.push_back(*r);
      cur = a.back();
    }
    if (!ok || bmm2 < 0) continue;
    const auto& b1 = plan.ops[static_cast<size_t>(bmm1)].args;
    const auto& b2 = plan.ops[static_cast<size_t>(bmm2)].args;
    if (!c.is_float_tensor(b1[0]) || !c.is_float_tensor(b1[1]) || !c.is_float_tensor(b2[1]) || !c.is_float_tensor(b2[2])) continue;
    const auto &qd = c.dims(b1[0]), &kd = c.dims(b1[1]), &vd = c.dims(b2[1]), &od = c.dims(b2[2]), &sd = c.dims(b1[2]);
    if (qd.size() != 3 || kd.size() != 3 || vd.size() != 3 || od.size() != 3 || sd.size() != 3) continue;
    const int64_t bh = qd[0], sq = qd[1], d = qd[2], skv = kd[2];
    if (kd[0] != bh || kd[1] != d || vd[0] != bh || vd[1] != skv || vd[2] != d || od != std::vector<int64_t>{bh, sq, d} ||
        sd != std::vector<int64_t>{bh, sq, skv} || sq < 1 || skv < 1 || d % 4)
      continue;
    // The mask as a [BH, Sq, Skv] view (broadcast dims stride 0).
    std::optional<View> mview;
    if (mask >= 0) {
      mview = expand(contiguous(c.dims(mask)), c.dims(mask_at));
      if (mview) mview = reshape(*mview, {bh, sq, skv});
      if (!mview || !rows_simple(*mview)) continue;
    }
    // The result: back from the last of the copies that follow the second bmm.
    std::vector<size_t> out_path;
    cur = b2[2];
    for (int step = 0; step < 8; ++step) {
      auto r = c.sole_reader(cur);
      if (!r) break;
      const auto& a = plan.ops[*r].args;
      const std::string& nm = c.name(*r);
      if (a[0] != cur || !c.is_float_tensor(a.back()) || (!is_reshape(nm) && nm != "aten.permute_copy.default")) break;
      out_path.push_back(*r);
      cur = a.back();
    }
    std::vector<std::pair<size_t, View>> outs;  // (copies absorbed, view of the result), most first
    for (size_t depth = out_path.size() + 1; depth-- > 0;) {
      const int32_t t = depth == 0 ? b2[2] : c.out_of(out_path[depth - 1]);
      std::optional<View> v = contiguous(c.dims(t));
      for (size_t j = depth; j-- > 0 && v;) {
        const size_t op = out_path[j];
        const auto& a = plan.ops[op].args;
        if (c.name(op) == "aten.permute_copy.default") {
          auto p = c.int_list(a[1]);
          v = p ? inverse_permute(*v, *p) : std::nullopt;
        } else {
          v = reshape(*v, c.dims(a[0]));
        }
      }
      if (v && v->dims.size() == 3 && rows_simple(*v)) outs.push_back({depth, *v});
    }
    const auto qs = resolve(c, b1[0], false, true), ks = resolve(c, b1[1], true, true), vs = resolve(c, b2[1], false, false);
    if (qs.empty() || ks.empty() || vs.empty() || outs.empty()) continue;
    // Deepest views first; if their batch dims do not split alike, the bmm operands themselves.
    std::optional<BatchSplit> split;
    const Operand *q = nullptr, *k = nullptr, *v = nullptr;
    const std::pair<size_t, View>* o = nullptr;
    for (int attempt = 0; attempt < 4 && !split; ++attempt) {
      q = attempt & 1 ? &qs.back() : &qs.front();
      k = attempt & 1 ? &ks.back() : &ks.front();
      v = attempt & 1 ? &vs.back() : &vs.front();
      o = attempt & 2 ? &outs.back() : &outs.front();
      std::vector<const Dim*> d0{&q->view.dims[0], &k->view.dims[0], &v->view.dims[0], &o->second.dims[0]};
      if (mview) d0.push_back(&mview->dims[0]);
      split = split_batch(d0, bh);
    }
    if (!split) continue;
    AttentionFusion f;
    f.batch = split->batch;
    f.heads = split->heads;
    f.sq = sq;
    f.skv = skv;
    f.d = d;
    f.scale = scale * q->scale * k->scale;
    f.q = to_view(q->base, q->view, split->strides[0]);
    f.k = to_view(k->base, k->view, split->strides[1]);
    f.v = to_view(v->base, v->view, split->strides[2]);
    const size_t out_depth = o->first;
    f.out = to_view(out_depth == 0 ? b2[2] : c.out_of(out_path[out_depth - 1]), o->second, split->strides[3]);
    if (mview) f.mask = to_view(mask, *mview, split->strides[4]);
    f.uses = {f.q.id, f.k.id, f.v.id, f.out.id};
    if (mask >= 0) f.uses.push_back(mask);
    // Float tensors only, and none a convolution (or its epilogue) writes: fusion.cpp may
    // move a fused conv's output to a buffer of its own, planned without this dispatch's reads.
    bool tensors_ok = true;
    for (int32_t id : f.uses) tensors_ok = tensors_ok && c.is_float_tensor(id) && !c.near_conv(id);
    if (!tensors_ok || !accept(f)) continue;
    for (int32_t id : f.uses) kept.insert(id);
    const size_t at = out_depth == 0 ? static_cast<size_t>(bmm2) : out_path[out_depth - 1];
    for (size_t op : chain_ops) skipped.insert(op);
    if (out_depth > 0) skipped.insert(static_cast<size_t>(bmm2));
    for (size_t j = 0; j + 1 < out_depth; ++j) skipped.insert(out_path[j]);
    for (const Operand* x : {q, k, v}) path_ops.insert(path_ops.end(), x->path.begin(), x->path.end());
    result.fused[at] = std::move(f);
  }
  // Copies on the operands' paths whose results nothing else reads any more.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t op : path_ops) {
      if (skipped.count(op)) continue;
      const int32_t y = c.out_of(op);
      if (c.is_output[static_cast<size_t>(y)] || kept.count(y)) continue;
      bool dead = true;
      for (size_t r : c.readers[static_cast<size_t>(y)]) dead = dead && skipped.count(r) > 0;
      if (!dead) continue;
      skipped.insert(op);
      changed = true;
    }
  }
  result.skipped.assign(skipped.begin(), skipped.end());
  return result;
}

}  // namespace wick::webgpu
