#include "webgpu/llm_gemv_fusion.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/op_kit.h"
#include "webgpu/ops/shape/copy.h"
#include "wgsl/wick_gpu_shaders.h"

namespace wick::webgpu {

namespace {

using vkgraph::OpCall;
using vkgraph::Plan;
using vkgraph::ValueDecl;
using vkgraph::ValueKind;

// One decode GEMV the fused kernels can take (see is_gemv).
struct Gemv {
  size_t op = 0;
  int32_t x = -1, w = -1, scales = -1, out = -1;
  int64_t k = 0, n = 0, k_packed = 0, group_size = 0;
};

// The RMSNorm that produces a GEMV group's input, folded into the group's kernel.
struct Norm {
  size_t op = 0;
  int32_t x = -1, weight = -1;
  float eps = 0;
};

struct Q4Spec {  // what a builder needs of one weight set
  int32_t w, scales, out;
  int64_t group_size;
};

class Planner {
 public:
  Planner(const Plan& plan, std::vector<bool>& skip) : plan_(plan), skip_(skip), n_(plan.values.size()) {
    uses_.assign(n_, 0);
    producer_.assign(n_, -1);
    reader_.assign(n_, -1);
    for (size_t i = 0; i < plan.ops.size(); ++i) {
      const OpCall& op = plan.ops[i];
      for (size_t a = 0; a < op.args.size(); ++a) {
        const int32_t id = op.args[a];
        if (!valid(id)) continue;
        ++uses_[static_cast<size_t>(id)];
        if (a + 1 < op.args.size()) reader_[static_cast<size_t>(id)] = static_cast<int>(i);
        if (plan.values[static_cast<size_t>(id)].kind == ValueKind::kValueList)
          for (int32_t item : plan.values[static_cast<size_t>(id)].items)
            if (valid(item)) uses_[static_cast<size_t>(item)] += 2;  // never fused away
      }
      if (!op.args.empty() && valid(op.args.back())) producer_[static_cast<size_t>(op.args.back())] = static_cast<int>(i);
    }
    for (int32_t id : plan.output_ids)
      if (valid(id)) uses_[static_cast<size_t>(id)] += 2;
  }

  bool valid(int32_t id) const { return id >= 0 && static_cast<size_t>(id) < n_; }
  const ValueDecl& v(int32_t id) const { return plan_.values[static_cast<size_t>(id)]; }
  bool activation(int32_t id) const {  // a float tensor computed by the graph
    return valid(id) && v(id).kind == ValueKind::kTensor && !v(id).tensor.is_constant() && vkgraph::vk_is_float(v(id).tensor.dtype);
  }
  bool float_constant(int32_t id) const {
    return valid(id) && v(id).kind == ValueKind::kTensor && v(id).tensor.is_constant() && vkgraph::vk_is_float(v(id).tensor.dtype);
  }
  // Produced by one op and read by exactly one other (not a graph output): its only reader.
  int sole_reader(int32_t id) const {
    return valid(id) && uses_[static_cast<size_t>(id)] == 2 && producer_[static_cast<size_t>(id)] >= 0
               ? reader_[static_cast<size_t>(id)]
               : -1;
  }
  const OpCall& op(size_t i) const { return plan_.ops[i]; }
  bool free(int i) const { return i >= 0 && !skip_[static_cast<size_t>(i)]; }

  // linear_q4gsw [x, w, scales, group_size, bias, out] over one row with the fused kernels' shape rules.
  bool is_gemv(size_t i, Gemv& g) const {
    const OpCall& c = op(i);
    if (skip_[i] || c.name != "et_vk.linear_q4gsw.default" || c.args.size() != 6) return false;
    g.op = i;
    g.x = c.args[0], g.w = c.args[1], g.scales = c.args[2], g.out = c.args[5];
    if (!activation(g.x) || !activation(g.out) || !float_constant(g.scales) || !valid(g.w) || !valid(c.args[3]) ||
        !valid(c.args[4]) || v(c.args[4]).kind != ValueKind::kNone)
      return false;
    const ValueDecl& w = v(g.w);
    if (w.kind != ValueKind::kTensor || !w.tensor.is_constant() || w.tensor.dtype != vk::VkDataType::UINT8 || w.tensor.rank() != 2)
      return false;
    const ValueDecl& gs = v(c.args[3]);
    if (gs.kind != ValueKind::kInt) return false;
    const auto& xd = v(g.x).tensor.dims;
    const auto& od = v(g.out).tensor.dims;
    if (xd.empty() || od.empty()) return false;
    g.k = xd.back(), g.n = od.back(), g.k_packed = w.tensor.dims[1], g.group_size = gs.i;
    const auto& sd = v(g.scales).tensor.dims;
    return v(g.x).tensor.numel() == g.k && v(g.out).tensor.numel() == g.n && g.k > 0 && g.n > 0 &&
           g.k % 32 == 0 && g.k_packed % 16 == 0 && g.k_packed * 2 >= g.k && w.tensor.dims[0] >= g.n &&
           g.group_size > 0 && g.group_size % 32 == 0 && sd.size() == 2 && sd[0] * g.group_size >= g.k && sd[1] >= g.n;
  }

  // et_vk.rms_norm [x, weight, eps, out] producing `x` of the GEMVs `group` (and read by nothing else).
  bool norm_of(int32_t x, size_t readers, int64_t k, Norm& nm) const {
    const int p = producer_[static_cast<size_t>(x)];
    if (!free(p) || uses_[static_cast<size_t>(x)] != static_cast<int>(readers) + 1) return false;
    const OpCall& c = op(static_cast<size_t>(p));
    if (c.name != "et_vk.rms_norm.default" || c.args.size() != 4 || c.args[3] != x) return false;
    nm.op = static_cast<size_t>(p), nm.x = c.args[0], nm.weight = c.args[1];
    if (!activation(nm.x) || v(nm.x).tensor.numel() != k || !float_constant(nm.weight) || v(nm.weight).tensor.numel() != k)
      return false;
    if (!valid(c.args[2]) || v(c.args[2]).kind != ValueKind::kDouble) return false;
    nm.eps = static_cast<float>(v(c.args[2]).d);
    return true;
  }

  // `id`, or the output of the flat copy (view_copy, clone, ...) that is its sole reader;
  // `copy_op` gets that copy's index (-1 for none).
  int32_t through_copy(int32_t id, int& copy_op) const {
    copy_op = -1;
    const int r = sole_reader(id);
    if (!free(r)) return id;
    const OpCall& c = op(static_cast<size_t>(r));
    auto io = flat_copy_args(c.name, c.args.size());
    if (!io || c.args[io->first] != id || !activation(c.args[io->second]) ||
        v(c.args[io->second]).tensor.numel() != v(id).tensor.numel())
      return id;
    copy_op = r;
    return c.args[io->second];
  }

  bool unit_alpha(int32_t id) const {
    if (!valid(id)) return false;
    const ValueDecl& a = v(id);
    return a.kind == ValueKind::kNone || (a.kind == ValueKind::kInt && a.i == 1) || (a.kind == ValueKind::kDouble && a.d == 1.0);
  }

  const Plan& plan_;
  std::vector<bool>& skip_;
  size_t n_;
  std::vector<int> uses_, producer_, reader_;
};

bool same_layout(const Gemv& a, const Gemv& b) {
  return a.k == b.k && a.k_packed == b.k_packed && a.group_size == b.group_size;
}

}  // namespace

Status build_q4gsw_fused(Graph& g, int32_t x, int32_t norm_w, float eps, Q4Spec set, int32_t residual);
Status build_q4gsw_swiglu(Graph& g, int32_t x, int32_t norm_w, float eps, Q4Spec gate, Q4Spec up, int32_t out);
Status build_q4gsw_qkv(Graph& g, int32_t x, int32_t norm_w, float eps, const Q4Spec sets[3]);

void plan_gemv_fusions(const Plan& plan, std::vector<bool>& skip, uint32_t max_storage_buffers, LlmFusions& f) {
  Planner pl(plan, skip);
  // Decode GEMVs grouped by their input, in chain order.
  std::map<int32_t, std::vector<Gemv>> by_input;
  std::vector<int32_t> order;
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    Gemv gv;
    if (!pl.is_gemv(i, gv)) continue;
    if (!by_input.count(gv.x)) order.push_back(gv.x);
    by_input[gv.x].push_back(gv);
  }
  auto mark = [&](size_t i) {
    skip[i] = true;
    f.skipped.push_back(i);
  };
  // A fused op's own index is not skipped (it is built there) but is taken.
  auto place = [&](size_t at, std::function<Status(Graph&)> build, std::vector<int32_t> reads) {
    skip[at] = true;
    f.replaced[at] = std::move(build);
    f.extra_uses[at] = std::move(reads);
  };
  for (int32_t x : order) {
    const std::vector<Gemv>& group = by_input[x];
    Norm nm;
    const bool has_norm = pl.norm_of(x, group.size(), group[0].k, nm);
    const int32_t in = has_norm ? nm.x : x;
    const int32_t norm_w = has_norm ? nm.weight : -1;
    const float eps = has_norm ? nm.eps : 0.0f;

    if (group.size() == 3 && max_storage_buffers >= 11 && same_layout(group[0], group[1]) && same_layout(group[0], group[2])) {
      const size_t at = group[0].op;
      Q4Spec sets[3];
      for (int s = 0; s < 3; ++s) {
        const Gemv& m = group[static_cast<size_t>(s)];
        sets[s] = {m.w, m.scales, m.out, m.group_size};
      }
      if (has_norm) mark(nm.op);
      mark(group[1].op);
      mark(group[2].op);
      const Q4Spec s0 = sets[0], s1 = sets[1], s2 = sets[2];
      place(at, [=](Graph& graph) {
        const Q4Spec all[3] = {s0, s1, s2};
        return build_q4gsw_qkv(graph, in, norm_w, eps, all);
      }, {in, group[0].out, group[1].out, group[2].out});
      continue;
    }

    if (group.size() == 2 && same_layout(group[0], group[1]) && group[0].n == group[1].n) {
      // sigmoid(g); t = g * s; o = t * u, with g and u the two outputs (through flat copies).
      int copy_a, copy_b;
      const int32_t a = pl.through_copy(group[0].out, copy_a), b = pl.through_copy(group[1].out, copy_b);
      bool done = false;
      for (int side = 0; side < 2 && !done; ++side) {
        const int32_t gate = side == 0 ? a : b, up = side == 0 ? b : a;
        const Gemv& gate_gemv = group[side == 0 ? 0 : 1];
        const Gemv& up_gemv = group[side == 0 ? 1 : 0];
        // gate is read by the sigmoid and the first mul; up only by the second mul.
        if (!pl.valid(gate) || pl.uses_[static_cast<size_t>(gate)] != 3) continue;
        const int mul2 = pl.sole_reader(up);
        if (!pl.free(mul2) || pl.op(static_cast<size_t>(mul2)).name != "aten.mul.Tensor" || pl.op(static_cast<size_t>(mul2)).args.size() != 3)
          continue;
        const OpCall& m2 = pl.op(static_cast<size_t>(mul2));
        const int32_t t = m2.args[0] == up ? m2.args[1] : m2.args[0], out = m2.args[2];
        if (m2.args[0] != up && m2.args[1] != up) continue;
        const int mul1 = pl.producer_[static_cast<size_t>(t)];
        if (pl.sole_reader(t) != mul2 || !pl.free(mul1) || pl.op(static_cast<size_t>(mul1)).name != "aten.mul.Tensor" ||
            pl.op(static_cast<size_t>(mul1)).args.size() != 3)
          continue;
        const OpCall& m1 = pl.op(static_cast<size_t>(mul1));
        const int32_t s = m1.args[0] == gate ? m1.args[1] : m1.args[0];
        if (m1.args[0] != gate && m1.args[1] != gate) continue;
        const int sig = pl.producer_[static_cast<size_t>(s)];
        if (pl.sole_reader(s) != mul1 || !pl.free(sig) || pl.op(static_cast<size_t>(sig)).name != "aten.sigmoid.default" ||
            pl.op(static_cast<size_t>(sig)).args.size() != 2 || pl.op(static_cast<size_t>(sig)).args[0] != gate)
          continue;
        if (!pl.activation(out) || pl.v(out).tensor.numel() != gate_gemv.n || !pl.activation(gate) || !pl.activation(up)) continue;
        const size_t at = static_cast<size_t>(mul2);
        if (has_norm) mark(nm.op);
        mark(group[0].op);
        mark(group[1].op);
        if (copy_a >= 0) mark(static_cast<size_t>(copy_a));
        if (copy_b >= 0) mark(static_cast<size_t>(copy_b));
        mark(static_cast<size_t>(sig));
        mark(static_cast<size_t>(mul1));
        const Q4Spec gs{gate_gemv.w, gate_gemv.scales, -1, gate_gemv.group_size}, us{up_gemv.w, up_gemv.scales, -1, up_gemv.group_size};
        place(at, [=](Graph& graph) { return build_q4gsw_swiglu(graph, in, norm_w, eps, gs, us, out); }, {in, out});
        done = true;
      }
      if (done) continue;
    }

    if (group.size() != 1) continue;
    const Gemv& gv = group[0];
    // out -> [flat copy] -> add(r, ., 1) (either order) with r the residual stream.
    int copy = -1;
    const int32_t y = pl.through_copy(gv.out, copy);
    const int add = pl.sole_reader(y);
    int32_t residual = -1, result = gv.out;
    if (pl.free(add) && pl.op(static_cast<size_t>(add)).name == "aten.add.Tensor" && pl.op(static_cast<size_t>(add)).args.size() == 4) {
      const OpCall& c = pl.op(static_cast<size_t>(add));
      const int32_t other = c.args[0] == y ? c.args[1] : c.args[0];
      if ((c.args[0] == y) != (c.args[1] == y) && pl.unit_alpha(c.args[2]) && pl.activation(other) && pl.activation(c.args[3]) &&
          pl.v(other).tensor.numel() == gv.n && pl.v(c.args[3]).tensor.dims == pl.v(other).tensor.dims && other != x) {
        residual = other;
        result = c.args[3];
        mark(static_cast<size_t>(add));
        if (copy >= 0) mark(static_cast<size_t>(copy));
      }
    }
    if (residual < 0 && !has_norm) continue;
    if (has_norm) mark(nm.op);
    const Q4Spec set{gv.w, gv.scales, result, gv.group_size};
    std::vector<int32_t> reads = {in, result};
    if (residual >= 0) reads.push_back(residual);
    place(gv.op, [=](Graph& graph) { return build_q4gsw_fused(graph, in, norm_w, eps, set, residual); }, reads);
  }
}

// ---- builders ---------------------------------------------------------------------

namespace {

struct FusedParams {
  uint32_t n, k, k_packed, group_size;
  uint32_t n_pad, flags;
  float eps;
  uint32_t pad;
};
static_assert(sizeof(FusedParams) == 32);  // struct Params of q4gsw_gemv_fused.wgsl

struct SwigluParams {
  uint32_t n, k, k_packed, group_size;
  uint32_t n_pad0, n_pad1, flags;
  float eps;
};
static_assert(sizeof(SwigluParams) == 32);  // struct Params of q4gsw_gemv_swiglu.wgsl

struct QkvParams {
  uint32_t n0, n1, n2, k;
  uint32_t k_packed, group_size, wg0, wg1;
  uint32_t pad0, pad1, pad2, flags;
  float eps;
  uint32_t z0, z1, z2;
};
static_assert(sizeof(QkvParams) == 64);  // struct Params of q4gsw_gemv_qkv.wgsl

struct Operands {
  GpuTensor* x = nullptr;
  GpuTensor* norm_w = nullptr;
};

Result<Operands> operands(Graph& g, int32_t x, int32_t norm_w, const char* name) {
  Operands o;
  WICK_ASSIGN_OR_RETURN(o.x, g.tensor(x, name));
  if (norm_w >= 0) {
    WICK_ASSIGN_OR_RETURN(o.norm_w, g.tensor(norm_w, name));
  }
  if (!o.x->is_float() || (o.norm_w && !o.norm_w->is_float()))
    return Status(ErrorCode::kInternal, std::string(name) + ": float input and norm weight expected");
  return o;
}

// Sets an output's shape to its (static) bound: the fused ops run only where x is one row.
Status set_static(GpuTensor* t) {
  t->dims = t->max_dims;
  return {};
}

// Records a fused kernel whose shapes are static: its params are written once here, and its
// step sets the outputs' live shapes and sizes the grid (64-thread workgroups).
template <class P>
Status add_static_kernel(Graph& g, const char* name, gpu::ShaderName shader, const P& p,
                         std::initializer_list<const gpu::Buffer*> buffers, std::vector<GpuTensor*> outs,
                         uint64_t threads) {
  WICK_ASSIGN_OR_RETURN(const KernelDispatch k, add_kernel(g, name, gpu::PipelineKey(shader), sizeof(P), buffers));
  WICK_RETURN_IF_ERROR(k.params->write(p));
  return g.add_step([=, &g]() -> Status {
    for (GpuTensor* y : outs) WICK_RETURN_IF_ERROR(set_static(y));
    return g.set_grid(k.index, threads, 64);
  });
}

}  // namespace

Status build_q4gsw_fused(Graph& g, int32_t x_id, int32_t norm_w_id, float eps, Q4Spec set, int32_t residual_id) {
  const char* name = "q4gsw_gemv_fused (linear_q4gsw with rms_norm and/or residual add)";
  WICK_ASSIGN_OR_RETURN(Operands in, operands(g, x_id, norm_w_id, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * w, g.tensor(set.w, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * scales, g.tensor(set.scales, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * y, g.tensor(set.out, name));
  GpuTensor* res = nullptr;
  if (residual_id >= 0) {
    WICK_ASSIGN_OR_RETURN(res, g.tensor(residual_id, name));
  }
  if (!y->is_float() || (res && !res->is_float()) || y->buffer == in.x->buffer || (res && res->buffer == y->buffer))
    return Status(ErrorCode::kInternal, std::string(name) + ": float output in its own buffer expected");
  FusedParams p{};
  p.n = static_cast<uint32_t>(y->max_numel());
  p.k = static_cast<uint32_t>(in.x->max_numel());
  p.k_packed = static_cast<uint32_t>(w->max_dims[1]);
  p.group_size = static_cast<uint32_t>(set.group_size);
  p.n_pad = static_cast<uint32_t>(scales->max_dims[1]);
  p.flags = (in.norm_w ? 1u : 0u) | (res ? 2u : 0u);
  p.eps = eps;
  const uint64_t threads = ceil_div(static_cast<uint64_t>(p.n), 4) * 64;
  const gpu::Buffer* x = in.x->buffer.get();
  return add_static_kernel(g, name, gpu::shaders::q4gsw_gemv_fused, p,
                           {x, in.norm_w ? in.norm_w->buffer.get() : x, w->buffer.get(), scales->buffer.get(),
                            res ? res->buffer.get() : x, y->buffer.get(), kParamsSlot},
                           {y}, threads);
}

Status build_q4gsw_swiglu(Graph& g, int32_t x_id, int32_t norm_w_id, float eps, Q4Spec gate, Q4Spec up, int32_t out_id) {
  const char* name = "q4gsw_gemv_swiglu (rms_norm, gate and up linear_q4gsw, silu(gate) * up)";
  WICK_ASSIGN_OR_RETURN(Operands in, operands(g, x_id, norm_w_id, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * w0, g.tensor(gate.w, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * s0, g.tensor(gate.scales, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * w1, g.tensor(up.w, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * s1, g.tensor(up.scales, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * y, g.tensor(out_id, name));
  if (!y->is_float() || y->buffer == in.x->buffer)
    return Status(ErrorCode::kInternal, std::string(name) + ": float output in its own buffer expected");
  SwigluParams p{};
  p.n = static_cast<uint32_t>(y->max_numel());
  p.k = static_cast<uint32_t>(in.x->max_numel());
  p.k_packed = static_cast<uint32_t>(w0->max_dims[1]);
  p.group_size = static_cast<uint32_t>(gate.group_size);
  p.n_pad0 = static_cast<uint32_t>(s0->max_dims[1]);
  p.n_pad1 = static_cast<uint32_t>(s1->max_dims[1]);
  p.flags = in.norm_w ? 1u : 0u;
  p.eps = eps;
  const uint64_t threads = ceil_div(static_cast<uint64_t>(p.n), 2) * 64;
  const gpu::Buffer* x = in.x->buffer.get();
  return add_static_kernel(g, name, gpu::shaders::q4gsw_gemv_swiglu, p,
                           {x, in.norm_w ? in.norm_w->buffer.get() : x, w0->buffer.get(), s0->buffer.get(),
                            w1->buffer.get(), s1->buffer.get(), y->buffer.get(), kParamsSlot},
                           {y}, threads);
}

Status build_q4gsw_qkv(Graph& g, int32_t x_id, int32_t norm_w_id, float eps, const Q4Spec sets[3]) {
  const char* name = "q4gsw_gemv_qkv (rms_norm, q, k and v linear_q4gsw)";
  WICK_ASSIGN_OR_RETURN(Operands in, operands(g, x_id, norm_w_id, name));
  GpuTensor *w[3], *s[3], *y[3];
  for (int i = 0; i < 3; ++i) {
    WICK_ASSIGN_OR_RETURN(w[i], g.tensor(sets[i].w, name));
    WICK_ASSIGN_OR_RETURN(s[i], g.tensor(sets[i].scales, name));
    WICK_ASSIGN_OR_RETURN(y[i], g.tensor(sets[i].out, name));
    if (!y[i]->is_float() || y[i]->buffer == in.x->buffer)
      return Status(ErrorCode::kInternal, std::string(name) + ": float outputs in their own buffers expected");
  }
  if (y[0]->buffer == y[1]->buffer || y[0]->buffer == y[2]->buffer || y[1]->buffer == y[2]->buffer)
    return Status(ErrorCode::kInternal, std::string(name) + ": the three outputs share a buffer");
  QkvParams p{};
  p.n0 = static_cast<uint32_t>(y[0]->max_numel());
  p.n1 = static_cast<uint32_t>(y[1]->max_numel());
  p.n2 = static_cast<uint32_t>(y[2]->max_numel());
  p.k = static_cast<uint32_t>(in.x->max_numel());
  p.k_packed = static_cast<uint32_t>(w[0]->max_dims[1]);
  p.group_size = static_cast<uint32_t>(sets[0].group_size);
  p.wg0 = static_cast<uint32_t>(ceil_div(static_cast<uint64_t>(p.n0), 4));
  p.wg1 = static_cast<uint32_t>(ceil_div(static_cast<uint64_t>(p.n1), 4));
  p.pad0 = static_cast<uint32_t>(s[0]->max_dims[1]);
  p.pad1 = static_cast<uint32_t>(s[1]->max_dims[1]);
  p.pad2 = static_cast<uint32_t>(s[2]->max_dims[1]);
  p.flags = in.norm_w ? 1u : 0u;
  p.eps = eps;
  const uint64_t threads = (static_cast<uint64_t>(p.wg0) + p.wg1 + ceil_div(static_cast<uint64_t>(p.n2), 4)) * 64;
  const gpu::Buffer* x = in.x->buffer.get();
  return add_static_kernel(g, name, gpu::shaders::q4gsw_gemv_qkv, p,
                           {x, in.norm_w ? in.norm_w->buffer.get() : x, w[0]->buffer.get(), s[0]->buffer.get(),
                            w[1]->buffer.get(), s[1]->buffer.get(), w[2]->buffer.get(), s[2]->buffer.get(),
                            y[0]->buffer.get(), y[1]->buffer.get(), y[2]->buffer.get(), kParamsSlot},
                           {y[0], y[1], y[2]}, threads);
}

}  // namespace wick::webgpu
