// LLM attention operators:
//   et_vk.select_as_symint   SymInt from a graph input's host data (input_pos[0].item())
//   sdpa_with_kv_cache       cache update (sdpa_kv_update.wgsl) + causal GQA attention
//                            with an online softmax (sdpa_attend.wgsl)
//   et_vk.sdpa               softmax(q k^T * scale + mask) v on [B,H,S,D] (sdpa_plain.wgsl)
//   update_cache             writes value rows into a cache at start_pos (cache_update.wgsl)
//   et_vk.apply_rotary_emb   Llama interleaved RoPE   } rope_apply.wgsl
//   et_vk.apply_rotary_emb_hf HF rotate-half RoPE     }
#include <algorithm>
#include <cmath>
#include <memory>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

Status arg_count(const std::vector<int32_t>& args, size_t n, const char* name) {
  if (args.size() != n)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": expected " + std::to_string(n) +
                                                  " arguments, got " + std::to_string(args.size()));
  return {};
}

Status require_f32(const GpuTensor* t, const char* what, const char* name) {
  if (!t->is_float())
    return Status(ErrorCode::kNotSupported, std::string(name) + ": " + what + " must be a float tensor");
  return {};
}

// ---- et_vk.select_as_symint(x, dim, index) -> SymInt ----
// The element x[0,…,index,…,0] (index along dim, negative allowed) read from the host data
// of the last upload of graph input x, so no GPU readback is needed.
Status select_as_symint(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "et_vk.select_as_symint.default";
  WICK_RETURN_IF_ERROR(arg_count(args, 4, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * x, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(int64_t dim, g.int_arg(args[1], name));
  WICK_ASSIGN_OR_RETURN(GValue * out, g.value(args[3]));
  if (out->kind != GValue::kSymInt && out->kind != GValue::kInt)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": output is not a SymInt");
  dim = normalize_dim(dim, x->rank());
  if (dim < 0 || dim >= x->rank()) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": dim out of range");
  const int32_t x_id = args[0], index_id = args[2];
  // The first run happens at build time, before any input was uploaded: keep the
  // serialized value then.
  auto built = std::make_shared<bool>(false);
  return g.add_step([=, &g]() -> Status {
    if (!*built) {
      *built = true;
      return {};
    }
    WICK_ASSIGN_OR_RETURN(int64_t index, g.int_arg(index_id, name));
    const int64_t size = x->dims[static_cast<size_t>(dim)];
    if (index < 0) index += size;
    if (index < 0 || index >= size)
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": index out of range for " +
                                                     shape_to_string(x->dims));
    const int64_t flat = index * contiguous_strides(x->dims)[static_cast<size_t>(dim)];
    WICK_ASSIGN_OR_RETURN(int64_t v, g.host_input_word(x_id, flat));
    out->i = v;
    return {};
  });
}

// ---- sdpa_with_kv_cache ----
struct UpdateParams {
  uint32_t n, offset, pad0, pad1;
};
static_assert(sizeof(UpdateParams) == gpu::wgsl_size::kv_update_params_Params);
struct AttendParams {
  uint32_t s_len, hq, hkv, d;
  uint32_t start_pos, causal, pad0;
  float scale;
};
constexpr uint32_t kCopyWorkgroup = 256;
constexpr int64_t kMaxHeadDim = 256;

Status sdpa_with_kv_cache(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "sdpa_with_kv_cache.default";
  WICK_RETURN_IF_ERROR(arg_count(args, 12, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * q, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * k, g.tensor(args[1], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * v, g.tensor(args[2], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * k_cache, g.tensor(args[3], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * v_cache, g.tensor(args[4], name));
  const int32_t start_pos_id = args[5];
  WICK_RETURN_IF_ERROR(g.int_arg(start_pos_id, name).status());
  if (!g.is_none(args[7]))
    return Status(ErrorCode::kNotSupported, std::string(name) + ": attn_mask must be None");
  if (!g.is_none(args[8])) {
    WICK_ASSIGN_OR_RETURN(double dropout, g.scalar_arg(args[8], name));
    if (dropout != 0) return Status(ErrorCode::kNotSupported, std::string(name) + ": dropout must be 0");
  }
  bool causal = true;
  if (!g.is_none(args[9])) {
    WICK_ASSIGN_OR_RETURN(causal, g.bool_arg(args[9], name));
  }
  double scale_arg = 0;
  const bool has_scale = !g.is_none(args[10]);
  if (has_scale) {
    WICK_ASSIGN_OR_RETURN(scale_arg, g.scalar_arg(args[10], name));
  }
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(args[11], name));
  for (auto [t, what] : {std::pair{q, "query"}, {k, "key"}, {v, "value"}, {k_cache, "key cache"},
                         {v_cache, "value cache"}, {out, "output"}})
    WICK_RETURN_IF_ERROR(require_f32(t, what, name));
  if (q->rank() != 4 || k->rank() != 4 || v->rank() != 4 || k_cache->rank() != 4 || v_cache->rank() != 4)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": expected rank-4 q/k/v [1,S,H,D] and caches [1,C,H,D]");
  const int64_t hq = q->max_dims[2], d = q->max_dims[3];
  const int64_t hkv = k_cache->max_dims[2], cmax = k_cache->max_dims[1];
  if (q->max_dims[0] != 1 || k_cache->max_dims[0] != 1)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": batch must be 1");
  if (k_cache->max_dims != v_cache->max_dims || k_cache->max_dims[3] != d || k->max_dims[2] != hkv ||
      v->max_dims[2] != hkv || k->max_dims[3] != d || v->max_dims[3] != d)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": q " + shape_to_string(q->max_dims) + ", k " +
                                                  shape_to_string(k->max_dims) + ", cache " +
                                                  shape_to_string(k_cache->max_dims) + " do not agree");
  if (hkv <= 0 || hq % hkv != 0)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": query heads are not a multiple of kv heads");
  if (d > kMaxHeadDim)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": head dim above 256");
  if (out->max_numel() < q->max_numel())
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": output smaller than the query");
  if (out->buffer == q->buffer || out->buffer == k_cache->buffer || out->buffer == v_cache->buffer ||
      k_cache->buffer == k->buffer || k_cache->buffer == v->buffer || v_cache->buffer == k->buffer ||
      v_cache->buffer == v->buffer)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": aliased buffers");

  const float scale = has_scale ? static_cast<float>(scale_arg) : static_cast<float>(1.0 / std::sqrt(double(d)));

  WICK_ASSIGN_OR_RETURN(auto update_pipe, g.pipeline(gpu::PipelineKey(gpu::shaders::sdpa_kv_update).set("wg_size", kCopyWorkgroup)));
  WICK_ASSIGN_OR_RETURN(auto attend_pipe, g.pipeline(gpu::PipelineKey(gpu::shaders::sdpa_attend)));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * up, g.params(sizeof(UpdateParams), name));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * ap, g.params(sizeof(AttendParams), name));
  gpu::Dispatch du;
  du.pipeline = update_pipe;
  du.bindings = {{0, k->buffer.get()}, {1, v->buffer.get()}, {2, k_cache->buffer.get()}, {3, v_cache->buffer.get()},
                 {4, up->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t update_index, g.add_dispatch(std::move(du)));
  gpu::Dispatch da;
  da.pipeline = attend_pipe;
  da.bindings = {{0, q->buffer.get()}, {1, k_cache->buffer.get()}, {2, v_cache->buffer.get()}, {3, out->buffer.get()},
                 {4, ap->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t attend_index, g.add_dispatch(std::move(da)));

  return g.add_step([=, &g]() -> Status {
    WICK_ASSIGN_OR_RETURN(int64_t start_pos, g.int_arg(start_pos_id, name));
    const int64_t s = q->dims[1];
    if (q->dims[0] != 1 || q->dims[2] != hq || q->dims[3] != d)
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": query shape " + shape_to_string(q->dims));
    if (k->dims[1] != s || v->dims[1] != s)
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": key/value length differs from the query's");
    if (start_pos < 0 || start_pos + s > cmax)
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": positions [" + std::to_string(start_pos) + ", " +
                                                     std::to_string(start_pos + s) + ") exceed the cache length " +
                                                     std::to_string(cmax));
    if (out->rank() == 4) out->dims = {1, s, hq, d};
    else if (out->rank() == 3) out->dims = {1, s, hq * d};
    else return Status(ErrorCode::kNotSupported, std::string(name) + ": output rank " + std::to_string(out->rank()));
    UpdateParams u{};
    u.n = static_cast<uint32_t>(s * hkv * d);
    u.offset = static_cast<uint32_t>(start_pos * hkv * d);
    WICK_RETURN_IF_ERROR(up->write(u));
    WICK_RETURN_IF_ERROR(g.set_grid(update_index, u.n, kCopyWorkgroup));
    AttendParams a{};
    a.s_len = static_cast<uint32_t>(s);
    a.hq = static_cast<uint32_t>(hq);
    a.hkv = static_cast<uint32_t>(hkv);
    a.d = static_cast<uint32_t>(d);
    a.start_pos = static_cast<uint32_t>(start_pos);
    a.causal = causal ? 1 : 0;
    a.scale = scale;
    WICK_RETURN_IF_ERROR(ap->write(a));
    return g.set_workgroups(attend_index, static_cast<uint32_t>(hq), static_cast<uint32_t>(s));
  });
}

// ---- update_cache ----
// [value [1,S,H,D], cache [1,Cmax,H,D], start_pos (Int or SymInt), out]: the cache is
// written in place (it persists across executions like sdpa_with_kv_cache's); out is
// ExecuTorch's placeholder result and is left as it is.
Status update_cache(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "update_cache.default";
  WICK_RETURN_IF_ERROR(arg_count(args, 4, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * value, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * cache, g.tensor(args[1], name));
  const int32_t start_pos_id = args[2];
  WICK_RETURN_IF_ERROR(g.int_arg(start_pos_id, name).status());
  WICK_RETURN_IF_ERROR(require_f32(value, "value", name));
  WICK_RETURN_IF_ERROR(require_f32(cache, "cache", name));
  if (value->rank() != 4 || cache->rank() != 4 || value->max_dims[0] != 1 || cache->max_dims[0] != 1)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": expected value [1,S,H,D] and cache [1,C,H,D], got " +
                                                  shape_to_string(value->max_dims) + " and " + shape_to_string(cache->max_dims));
  if (value->max_dims[2] != cache->max_dims[2] || value->max_dims[3] != cache->max_dims[3])
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": value " + shape_to_string(value->max_dims) +
                                                  " and cache " + shape_to_string(cache->max_dims) + " differ in heads or head dim");
  if (value->buffer == cache->buffer) return Status(ErrorCode::kNotSupported, std::string(name) + ": value aliases the cache");
  const int64_t hd = cache->max_dims[2] * cache->max_dims[3], cmax = cache->max_dims[1];
  WICK_ASSIGN_OR_RETURN(const KernelDispatch index_k, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::cache_update).set("wg_size", kCopyWorkgroup), sizeof(UpdateParams),
      {value->buffer.get(), cache->buffer.get(), kParamsSlot}));
  ParamsBlock* up = index_k.params;
  const size_t index = index_k.index;
  return g.add_step([=, &g]() -> Status {
    WICK_ASSIGN_OR_RETURN(int64_t start_pos, g.int_arg(start_pos_id, name));
    const int64_t s = value->dims[1];
    if (start_pos < 0 || start_pos + s > cmax)
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": positions [" + std::to_string(start_pos) + ", " +
                                                     std::to_string(start_pos + s) + ") exceed the cache length " +
                                                     std::to_string(cmax));
    UpdateParams u{};
    u.n = static_cast<uint32_t>(s * hd);
    u.offset = static_cast<uint32_t>(start_pos * hd);
    WICK_RETURN_IF_ERROR(up->write(u));
    return g.set_grid(index, u.n, kCopyWorkgroup);
  });
}

// ---- et_vk.sdpa ----
struct SdpaParams {
  uint32_t total, hq, sq, skv, d, kv_bh_stride, mask_mode;
  float scale;
  uint32_t kv_b_div, kv_h_div, pad0, pad1;
};
static_assert(sizeof(SdpaParams) == gpu::wgsl_size::sdpa_plain_params_Params);

// [q [B,H,Sq,D], k [Bk,Hk,Skv,D], v like k, attn_mask?, scale?, out]; Bk, Hk equal to the
// query's or 1 (torch.matmul's broadcast); mask [Sq,Skv] or [B,H,Sq,Skv].
Status et_vk_sdpa(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "et_vk.sdpa.default";
  WICK_RETURN_IF_ERROR(arg_count(args, 6, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * q, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * k, g.tensor(args[1], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * v, g.tensor(args[2], name));
  GpuTensor* mask = nullptr;
  if (!g.is_none(args[3])) {
    WICK_ASSIGN_OR_RETURN(mask, g.tensor(args[3], name));
  }
  double scale_arg = 0;
  const bool has_scale = !g.is_none(args[4]);
  if (has_scale) {
    WICK_ASSIGN_OR_RETURN(scale_arg, g.scalar_arg(args[4], name));
  }
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(args[5], name));
  for (auto [t, what] : {std::pair{q, "q"}, {k, "k"}, {v, "v"}, {out, "output"}}) WICK_RETURN_IF_ERROR(require_f32(t, what, name));
  if (mask) WICK_RETURN_IF_ERROR(require_f32(mask, "attn_mask", name));
  if (q->rank() != 4 || k->rank() != 4 || v->rank() != 4 || out->rank() != 4)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": expected rank-4 q, k, v, out [B,H,S,D]");
  if (out->buffer == q->buffer || out->buffer == k->buffer || out->buffer == v->buffer || (mask && out->buffer == mask->buffer))
    return Status(ErrorCode::kNotSupported, std::string(name) + ": output aliases an input");
  WICK_ASSIGN_OR_RETURN(const KernelDispatch index_k, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::sdpa_plain).set("wg_size", 64u), sizeof(SdpaParams),
      {q->buffer.get(), k->buffer.get(), v->buffer.get(), mask ? mask->buffer.get() : q->buffer.get(), out->buffer.get(), kParamsSlot}));
  ParamsBlock* pb = index_k.params;
  const size_t index = index_k.index;
  return g.add_step([=, &g]() -> Status {
    const auto &qd = q->dims, &kd = k->dims;
    const int64_t b = qd[0], h = qd[1], sq = qd[2], dim = qd[3], skv = kd[2];
    auto bad = [&](const std::string& what) {
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": " + what + " (q " + shape_to_string(qd) + ", k " +
                                                     shape_to_string(kd) + ", v " + shape_to_string(v->dims) + ")");
    };
    if (v->dims != kd || kd[3] != dim) return bad("k and v must agree with each other and with q's head dim");
    if ((kd[0] != b && kd[0] != 1) || (kd[1] != h && kd[1] != 1)) return bad("k's batch and heads must equal q's or be 1");
    uint32_t mask_mode = 0;
    if (mask) {
      if (mask->numel() == sq * skv) mask_mode = 1;
      else if (mask->numel() == b * h * sq * skv) mask_mode = 2;
      else return bad("attn_mask " + shape_to_string(mask->dims) + " is neither [Sq,Skv] nor [B,H,Sq,Skv]");
    }
    if (shape_numel(qd) > out->max_numel()) return bad("the output bound " + shape_to_string(out->max_dims) + " is too small");
    out->dims = qd;
    SdpaParams p{};
    p.total = static_cast<uint32_t>(shape_numel(qd));
    p.hq = static_cast<uint32_t>(h);
    p.sq = static_cast<uint32_t>(sq);
    p.skv = static_cast<uint32_t>(skv);
    p.d = static_cast<uint32_t>(dim);
    p.kv_bh_stride = static_cast<uint32_t>(skv * dim);
    p.mask_mode = mask_mode;
    p.scale = has_scale ? static_cast<float>(scale_arg) : static_cast<float>(1.0 / std::sqrt(double(dim)));
    p.kv_b_div = kd[0] == 1 ? static_cast<uint32_t>(std::max<int64_t>(b, 1)) : 1u;
    p.kv_h_div = kd[1] == 1 ? static_cast<uint32_t>(std::max<int64_t>(h, 1)) : 1u;
    WICK_RETURN_IF_ERROR(pb->write(p));
    return g.set_grid(index, p.total, 64);
  });
}

// ---- rotary embeddings ----
struct RopeParams {
  uint32_t nq, n, s_len, d;
  uint32_t hq, hk, mode, start_pos;
  uint32_t f_width, f_rows, pad0, pad1;
};

Status rotary(Graph& g, const std::vector<int32_t>& args, bool hf) {
  const char* name = hf ? "et_vk.apply_rotary_emb_hf.default" : "et_vk.apply_rotary_emb.default";
  WICK_RETURN_IF_ERROR(arg_count(args, hf ? 6 : 5, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * xq, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * xk, g.tensor(args[1], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * fcos, g.tensor(args[2], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * fsin, g.tensor(args[3], name));
  const int32_t start_pos_id = hf ? args[4] : -1;
  if (hf) WICK_RETURN_IF_ERROR(g.int_arg(start_pos_id, name).status());
  WICK_ASSIGN_OR_RETURN(auto outs, g.value_list(args.back(), name));
  if (outs.size() != 2) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": expected two outputs");
  WICK_ASSIGN_OR_RETURN(GpuTensor * q_out, g.tensor(outs[0], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * k_out, g.tensor(outs[1], name));
  for (auto [t, what] : {std::pair{xq, "xq"}, {xk, "xk"}, {fcos, "freqs_cos"}, {fsin, "freqs_sin"}, {q_out, "xq_out"},
                         {k_out, "xk_out"}})
    WICK_RETURN_IF_ERROR(require_f32(t, what, name));
  if (xq->rank() != 4 || xk->rank() != 4)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": xq/xk must be [B,S,H,D]");
  const int64_t d = xq->max_dims[3];
  if (xk->max_dims[3] != d || d % 2 != 0)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": head dims differ or are odd");
  if (q_out->max_numel() < xq->max_numel() || k_out->max_numel() < xk->max_numel())
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": outputs smaller than the inputs");
  for (const GpuTensor* o : {q_out, k_out})
    for (const GpuTensor* i : {xq, xk, fcos, fsin})
      if (o->buffer == i->buffer) return Status(ErrorCode::kNotSupported, std::string(name) + ": aliased buffers");
  if (q_out->buffer == k_out->buffer)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": both outputs share a buffer");
  if (fcos->rank() < 1 || fcos->max_dims != fsin->max_dims)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": cos and sin tables differ");
  const int64_t f_width = fcos->max_dims.back();
  if (hf ? (f_width > d || f_width % 2 != 0) : (f_width != d / 2))
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": freqs width " + std::to_string(f_width) +
                                                  " does not fit head dim " + std::to_string(d));

  constexpr uint32_t kWg = 256;
  WICK_ASSIGN_OR_RETURN(const KernelDispatch index_k, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::rope_apply).set("wg_size", kWg), sizeof(RopeParams),
      {xq->buffer.get(), xk->buffer.get(), fcos->buffer.get(), fsin->buffer.get(), q_out->buffer.get(), k_out->buffer.get(), kParamsSlot}));
  ParamsBlock* params = index_k.params;
  const size_t index = index_k.index;

  return g.add_step([=, &g]() -> Status {
    if (xq->dims[0] != xk->dims[0] || xq->dims[1] != xk->dims[1])
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": xq " + shape_to_string(xq->dims) + " and xk " +
                                                     shape_to_string(xk->dims) + " differ in batch or length");
    const int64_t s = xq->dims[1];
    const int64_t rows = fcos->numel() / f_width;
    int64_t start_pos = 0;
    if (hf) {
      WICK_ASSIGN_OR_RETURN(start_pos, g.int_arg(start_pos_id, name));
      if (start_pos < 0 || start_pos + s > rows)
        return Status(ErrorCode::kInvalidArgument, std::string(name) + ": positions beyond the freqs table (" +
                                                       std::to_string(rows) + " rows)");
    } else if (rows != 1 && rows < s) {
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": freqs have " + std::to_string(rows) +
                                                     " rows for " + std::to_string(s) + " positions");
    }
    q_out->dims = xq->dims;
    k_out->dims = xk->dims;
    RopeParams p{};
    p.nq = static_cast<uint32_t>(xq->numel());
    p.n = static_cast<uint32_t>(xq->numel() + xk->numel());
    p.s_len = static_cast<uint32_t>(s);
    p.d = static_cast<uint32_t>(d);
    p.hq = static_cast<uint32_t>(xq->dims[2]);
    p.hk = static_cast<uint32_t>(xk->dims[2]);
    p.mode = hf ? 1 : 0;
    p.start_pos = static_cast<uint32_t>(start_pos);
    p.f_width = static_cast<uint32_t>(f_width);
    p.f_rows = static_cast<uint32_t>(rows);
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(index, p.n, kWg);
  });
}

Status apply_rotary_emb(Graph& g, const std::vector<int32_t>& args) { return rotary(g, args, false); }
Status apply_rotary_emb_hf(Graph& g, const std::vector<int32_t>& args) { return rotary(g, args, true); }

}  // namespace

void append_attention_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"et_vk.select_as_symint.default", select_as_symint},
      {"sdpa_with_kv_cache.default", sdpa_with_kv_cache},
      {"update_cache.default", update_cache},
      {"et_vk.sdpa.default", et_vk_sdpa},
      {"et_vk.apply_rotary_emb.default", apply_rotary_emb},
      {"et_vk.apply_rotary_emb_hf.default", apply_rotary_emb_hf},
  });
}

}  // namespace wick::webgpu
