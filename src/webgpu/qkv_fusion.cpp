// plan_qkv_joins and build_qkv_join (qkv_fusion.h).
#include "webgpu/qkv_fusion.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/matmul/build_linear.h"

namespace wick::webgpu {

namespace {

// One part: a linear whose whole output the attention reads through `view`.
struct Part {
  AttentionView* view;
  int64_t rows;  // the view's S extent (sq for q, skv for k and v)
  size_t op;
  int32_t x, weight, bias;
  int32_t x_root;  // x before any flat copies (exports give each linear a squeeze of its own)
};

// Copies that keep every element in place (row-major order and count).
bool is_flat_copy(const std::string& n) {
  return n == "aten.view_copy.default" || n == "aten._unsafe_view.default" || n == "aten.squeeze_copy.dims" ||
         n == "aten.squeeze_copy.dim" || n == "aten.squeeze_copy.default" || n == "aten.unsqueeze_copy.default" ||
         n == "aten.clone.default" || n == "aten.alias_copy.default";
}

// The view of part `j` of `parts` in the joint [M, parts * n] output: each whole-row stride
// (a multiple of n) times `parts`, column strides kept, the offset moved to row r0 of the joint
// output plus j * n. Nullopt where a stride is neither, or the columns leave one row.
std::optional<AttentionView> joint_view(const AttentionView& v, const int64_t (&extent)[4], int64_t n, int64_t parts,
                                        int64_t j) {
  AttentionView r = v;
  int64_t* strides[4] = {&r.sb, &r.sh, &r.ss, &r.sd};
  const int64_t c0 = v.offset % n;
  int64_t col_span = c0;  // the last column any element of the view reaches
  for (int d = 0; d < 4; ++d) {
    int64_t& s = *strides[d];
    if (extent[d] <= 1 || s == 0) continue;
    if (s < 0) return std::nullopt;
    if (s % n == 0) {
      s *= parts;
    } else {
      col_span += (extent[d] - 1) * s;
    }
  }
  if (col_span >= n) return std::nullopt;
  r.offset = (v.offset / n) * n * parts + j * n + c0;
  return r;
}

}  // namespace

size_t QkvJoins::dropped_linears() const {
  size_t n = 0;
  for (const auto& [at, j] : joins) n += j.dropped.size();
  return n;
}

QkvJoins plan_qkv_joins(const vkgraph::Plan& plan, AttentionFusions& attention, uint64_t max_binding_bytes) {
  QkvJoins result;
  const size_t nv = plan.values.size();
  auto valid = [&](int32_t id) { return id >= 0 && static_cast<size_t>(id) < nv; };
  auto val = [&](int32_t id) -> const vkgraph::ValueDecl& { return plan.values[static_cast<size_t>(id)]; };
  auto f32_tensor = [&](int32_t id) {
    return valid(id) && val(id).kind == vkgraph::ValueKind::kTensor && val(id).tensor.dtype == vk::VkDataType::FLOAT32;
  };
  // Producers (-2: written by more than one op) and readers of every value.
  std::vector<int> producer(nv, -1);
  std::vector<std::vector<size_t>> readers(nv);
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    const auto& a = plan.ops[i].args;
    for (size_t k = 0; k + 1 < a.size(); ++k) {
      if (!valid(a[k])) continue;
      readers[static_cast<size_t>(a[k])].push_back(i);
      if (val(a[k]).kind == vkgraph::ValueKind::kValueList)
        for (int32_t item : val(a[k]).items)
          if (valid(item)) readers[static_cast<size_t>(item)].push_back(i);
    }
    if (!a.empty() && valid(a.back())) {
      int& p = producer[static_cast<size_t>(a.back())];
      p = p == -1 ? static_cast<int>(i) : -2;
    }
  }
  std::vector<bool> is_output(nv, false);
  for (int32_t id : plan.output_ids)
    if (valid(id)) is_output[static_cast<size_t>(id)] = true;
  std::set<size_t> folded(attention.skipped.begin(), attention.skipped.end());
  // How many fused views read each value: a part must belong to one attention only.
  std::vector<int> view_refs(nv, 0);
  for (const auto& [at, f] : attention.fused)
    for (const AttentionView* v : {&f.q, &f.k, &f.v})
      if (valid(v->id)) ++view_refs[static_cast<size_t>(v->id)];

  // The linear producing `id` as a part, if the attention alone reads it.
  auto part_of = [&](AttentionView* view, int64_t rows) -> std::optional<Part> {
    const int32_t id = view->id;
    if (!f32_tensor(id) || is_output[static_cast<size_t>(id)] || view_refs[static_cast<size_t>(id)] != 1) return std::nullopt;
    const int p = producer[static_cast<size_t>(id)];
    if (p < 0 || plan.ops[static_cast<size_t>(p)].name != "aten.linear.default") return std::nullopt;
    const auto& a = plan.ops[static_cast<size_t>(p)].args;
    if (a.size() != 4 || a[3] != id) return std::nullopt;
    for (size_t r : readers[static_cast<size_t>(id)])
      if (!folded.count(r)) return std::nullopt;
    const int32_t w = a[1];
    if (!f32_tensor(w) || !val(w).tensor.is_constant() || val(w).tensor.rank() != 2) return std::nullopt;
    int32_t bias = -1;
    if (valid(a[2]) && val(a[2]).kind != vkgraph::ValueKind::kNone) {
      const auto& bt = val(a[2]).tensor;
      if (!f32_tensor(a[2]) || !bt.is_constant() || bt.numel() != val(w).tensor.dims[0]) return std::nullopt;
      bias = a[2];
    }
    if (!f32_tensor(a[0])) return std::nullopt;
    int32_t root = a[0];
    for (int guard = 0; guard < 16; ++guard) {
      const int rp = producer[static_cast<size_t>(root)];
      if (rp < 0 || !is_flat_copy(plan.ops[static_cast<size_t>(rp)].name)) break;
      const int32_t src = plan.ops[static_cast<size_t>(rp)].args[0];
      if (!f32_tensor(src) || val(src).tensor.numel() != val(root).tensor.numel()) break;
      root = src;
    }
    return Part{view, rows, static_cast<size_t>(p), a[0], w, bias, root};
  };

  std::set<size_t> used_ops;
  for (auto& [at, f] : attention.fused) {
    std::vector<Part> all;
    for (auto [view, rows] : {std::pair{&f.q, f.sq}, std::pair{&f.k, f.skv}, std::pair{&f.v, f.skv}})
      if (auto part = part_of(view, rows)) all.push_back(*part);
    // The largest group of parts with one input (q, k, v in that column order).
    std::vector<Part> parts;
    for (const Part& first : all) {
      std::vector<Part> same;
      for (const Part& p : all)
        if (p.x_root == first.x_root && val(p.x).tensor.dims == val(first.x).tensor.dims) same.push_back(p);
      if (same.size() > parts.size()) parts = same;
    }
    if (parts.size() < 2) continue;
    const auto& w0 = val(parts[0].weight).tensor.dims;
    const int64_t n = w0[0], k = w0[1];
    bool ok = n > 0 && k > 0;
    std::set<size_t> ops;
    std::set<int32_t> ids;
    for (const Part& p : parts) {
      ok = ok && val(p.weight).tensor.dims == w0 && !used_ops.count(p.op);
      ops.insert(p.op);
      ids.insert(p.view->id);
      const auto& od = val(p.view->id).tensor.dims;
      ok = ok && !od.empty() && od.back() == n && !val(p.x).tensor.dims.empty() && val(p.x).tensor.dims.back() == k;
    }
    const int64_t np = static_cast<int64_t>(parts.size());
    const uint64_t rows = ok ? static_cast<uint64_t>(val(parts[0].view->id).tensor.numel() / n) : 0;
    ok = ok && ops.size() == parts.size() && ids.size() == parts.size() &&
         static_cast<uint64_t>(np * n * k) * 4 <= max_binding_bytes && rows * static_cast<uint64_t>(np * n) * 4 <= max_binding_bytes;
    if (!ok) continue;
    const size_t host = *ops.begin();
    const int32_t out = plan.ops[host].args.back();
    const int32_t host_x = plan.ops[host].args[0];  // computed by the time the host runs
    std::vector<AttentionView> views;
    for (size_t j = 0; j < parts.size() && ok; ++j) {
      const int64_t extent[4] = {f.batch, f.heads, parts[j].rows, f.d};
      auto v = joint_view(*parts[j].view, extent, n, np, static_cast<int64_t>(j));
      if (!v) ok = false;
      else views.push_back(*v);
    }
    if (!ok) continue;
    QkvJoin join;
    join.host_op = host;
    join.x = host_x;
    join.out = out;
    join.n = n;
    join.k = k;
    for (size_t j = 0; j < parts.size(); ++j) {
      join.weights.push_back(parts[j].weight);
      join.biases.push_back(parts[j].bias);
      if (parts[j].op != host) join.dropped.push_back(parts[j].op);
      const int32_t old_id = parts[j].view->id;
      *parts[j].view = views[j];
      parts[j].view->id = out;
      std::replace(f.uses.begin(), f.uses.end(), old_id, out);
    }
    for (const Part& p : parts)
      for (int32_t c : {p.weight, p.bias}) {
        if (c < 0 || is_output[static_cast<size_t>(c)]) continue;
        bool only_parts = true;
        for (size_t r : readers[static_cast<size_t>(c)]) only_parts = only_parts && ops.count(r);
        if (only_parts && std::find(join.released.begin(), join.released.end(), c) == join.released.end())
          join.released.push_back(c);
      }
    used_ops.insert(ops.begin(), ops.end());
    attention.skipped.insert(attention.skipped.end(), join.dropped.begin(), join.dropped.end());
    result.joins.emplace(host, std::move(join));
  }
  return result;
}

Status build_qkv_join(Graph& g, const QkvJoin& join) {
  const char* name = "aten.linear.default (q, k, v joined)";
  const size_t parts = join.weights.size();
  const uint64_t n = static_cast<uint64_t>(join.n), k = static_cast<uint64_t>(join.k);
  WICK_ASSIGN_OR_RETURN(GpuTensor * x, g.tensor(join.x, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(join.out, name));
  // The stacked weight [parts * n, k] and bias [parts * n], from the constants' host bytes.
  std::vector<float> w(parts * n * k), b(parts * n, 0.f);
  bool any_bias = false;
  for (size_t j = 0; j < parts; ++j) {
    WICK_ASSIGN_OR_RETURN(std::span<const uint8_t> wb, g.constant_bytes(join.weights[j], name));
    if (wb.size() != n * k * 4)
      return Status(ErrorCode::kInvalidProgram, std::string(name) + ": weight " + std::to_string(j) + " holds " +
                                                    std::to_string(wb.size()) + " bytes, expected " + std::to_string(n * k * 4));
    std::memcpy(w.data() + j * n * k, wb.data(), wb.size());
    if (join.biases[j] < 0) continue;
    WICK_ASSIGN_OR_RETURN(std::span<const uint8_t> bb, g.constant_bytes(join.biases[j], name));
    if (bb.size() != n * 4)
      return Status(ErrorCode::kInvalidProgram, std::string(name) + ": bias " + std::to_string(j) + " holds " +
                                                    std::to_string(bb.size()) + " bytes, expected " + std::to_string(n * 4));
    std::memcpy(b.data() + j * n, bb.data(), bb.size());
    any_bias = true;
  }
  auto constant = [&](const std::vector<float>& data, std::vector<int64_t> dims, const char* label) -> Result<GpuTensor*> {
    GpuTensor t;
    t.max_dims = t.dims = std::move(dims);
    WICK_ASSIGN_OR_RETURN(gpu::Buffer buf, gpu::Buffer::create_storage(g.device_ptr(), data.size() * 4, label));
    WICK_RETURN_IF_ERROR(buf.write(data.data(), data.size() * 4));
    t.buffer = std::make_shared<gpu::Buffer>(std::move(buf));
    return g.own_tensor(std::move(t));
  };
  const int64_t pn = static_cast<int64_t>(parts * n);
  WICK_ASSIGN_OR_RETURN(GpuTensor * wt, constant(w, {pn, join.k}, "joint q/k/v weight"));
  GpuTensor* bt = nullptr;
  if (any_bias) { WICK_ASSIGN_OR_RETURN(bt, constant(b, {pn}, "joint q/k/v bias")); }
  WICK_RETURN_IF_ERROR(build_linear(g, name, x, wt, bt, out));
  // The parts' own weights and biases, read by nothing else now, leave the GPU.
  for (int32_t id : join.released) {
    WICK_ASSIGN_OR_RETURN(GpuTensor * t, g.tensor(id, name));
    t->buffer.reset();
  }
  return {};
}

}  // namespace wick::webgpu
