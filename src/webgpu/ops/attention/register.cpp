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

Status require_f32(const OpArgs& a, std::initializer_list<std::pair<const GpuTensor*, const char*>> tensors) {
  for (auto [t, what] : tensors)
    if (t && !t->is_float()) return a.unsupported(std::string(what) + " must be a float tensor");
  return {};
}

// ---- et_vk.select_as_symint(x, dim, index) -> SymInt ----
// The element x[0,…,index,…,0] (index along dim, negative allowed) read from the host data
// of the last upload of graph input x, so no GPU readback is needed.
Status select_as_symint(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor* x = a.tensor(0);
  WICK_ASSIGN_OR_RETURN(GValue * out, a.symint_out());
  const int64_t dim = normalize_dim(a.integer(1), x->rank());
  if (dim < 0 || dim >= x->rank()) return a.invalid("dim out of range");
  const int32_t x_id = a.id(0), index_id = a.id(2);
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
      return op_error(ErrorCode::kInvalidArgument, name, "index out of range for " +
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

// [q, k, v, k_cache, v_cache, start_pos, seq_len, attn_mask (None), dropout_p?, is_causal?,
//  scale?, out]
Status sdpa_with_kv_cache(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *q = a.tensor(0), *k = a.tensor(1), *v = a.tensor(2), *k_cache = a.tensor(3), *v_cache = a.tensor(4);
  GpuTensor* out = a.out();
  const int32_t start_pos_id = a.id(5);
  if (a.has(7)) return a.unsupported("attn_mask must be None");
  if (a.scalar_or(8, 0.0) != 0) return a.unsupported("dropout must be 0");
  const bool causal = a.integer_or(9, 1) != 0;
  const bool has_scale = a.has(10);
  const double scale_arg = a.scalar_or(10, 0.0);
  WICK_RETURN_IF_ERROR(require_f32(a, {{q, "query"}, {k, "key"}, {v, "value"}, {k_cache, "key cache"},
                                       {v_cache, "value cache"}, {out, "output"}}));
  if (q->rank() != 4 || k->rank() != 4 || v->rank() != 4 || k_cache->rank() != 4 || v_cache->rank() != 4)
    return a.unsupported("expected rank-4 q/k/v [1,S,H,D] and caches [1,C,H,D]");
  const int64_t hq = q->max_dims[2], d = q->max_dims[3];
  const int64_t hkv = k_cache->max_dims[2], cmax = k_cache->max_dims[1];
  if (q->max_dims[0] != 1 || k_cache->max_dims[0] != 1)
    return a.unsupported("batch must be 1");
  if (k_cache->max_dims != v_cache->max_dims || k_cache->max_dims[3] != d || k->max_dims[2] != hkv ||
      v->max_dims[2] != hkv || k->max_dims[3] != d || v->max_dims[3] != d)
    return a.invalid("q " + shape_to_string(q->max_dims) + ", k " +
                                                  shape_to_string(k->max_dims) + ", cache " +
                                                  shape_to_string(k_cache->max_dims) + " do not agree");
  if (hkv <= 0 || hq % hkv != 0)
    return a.invalid("query heads are not a multiple of kv heads");
  if (d > kMaxHeadDim)
    return a.unsupported("head dim above 256");
  if (out->max_numel() < q->max_numel())
    return a.invalid("output smaller than the query");
  if (out->buffer == q->buffer || out->buffer == k_cache->buffer || out->buffer == v_cache->buffer ||
      k_cache->buffer == k->buffer || k_cache->buffer == v->buffer || v_cache->buffer == k->buffer ||
      v_cache->buffer == v->buffer)
    return a.unsupported("aliased buffers");

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
      return op_error(ErrorCode::kInvalidArgument, name, "query shape " + shape_to_string(q->dims));
    if (k->dims[1] != s || v->dims[1] != s)
      return op_error(ErrorCode::kInvalidArgument, name, "key/value length differs from the query's");
    if (start_pos < 0 || start_pos + s > cmax)
      return op_error(ErrorCode::kInvalidArgument, name, "positions [" + std::to_string(start_pos) + ", " +
                                                     std::to_string(start_pos + s) + ") exceed the cache length " +
                                                     std::to_string(cmax));
    if (out->rank() == 4) out->dims = {1, s, hq, d};
    else if (out->rank() == 3) out->dims = {1, s, hq * d};
    else return op_error(ErrorCode::kNotSupported, name, "output rank " + std::to_string(out->rank()));
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
Status update_cache(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *value = a.tensor(0), *cache = a.tensor(1);
  const int32_t start_pos_id = a.id(2);
  WICK_RETURN_IF_ERROR(require_f32(a, {{value, "value"}, {cache, "cache"}}));
  if (value->rank() != 4 || cache->rank() != 4 || value->max_dims[0] != 1 || cache->max_dims[0] != 1)
    return a.unsupported("expected value [1,S,H,D] and cache [1,C,H,D], got " +
                                                  shape_to_string(value->max_dims) + " and " + shape_to_string(cache->max_dims));
  if (value->max_dims[2] != cache->max_dims[2] || value->max_dims[3] != cache->max_dims[3])
    return a.invalid("value " + shape_to_string(value->max_dims) +
                                                  " and cache " + shape_to_string(cache->max_dims) + " differ in heads or head dim");
  if (value->buffer == cache->buffer) return a.unsupported("value aliases the cache");
  const int64_t hd = cache->max_dims[2] * cache->max_dims[3], cmax = cache->max_dims[1];
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::cache_update).set("wg_size", kCopyWorkgroup), sizeof(UpdateParams),
      {value->buffer.get(), cache->buffer.get(), kParamsSlot}));
  return g.add_step([=, &g]() -> Status {
    WICK_ASSIGN_OR_RETURN(int64_t start_pos, g.int_arg(start_pos_id, name));
    const int64_t s = value->dims[1];
    if (start_pos < 0 || start_pos + s > cmax)
      return op_error(ErrorCode::kInvalidArgument, name, "positions [" + std::to_string(start_pos) + ", " +
                                                     std::to_string(start_pos + s) + ") exceed the cache length " +
                                                     std::to_string(cmax));
    UpdateParams u{};
    u.n = static_cast<uint32_t>(s * hd);
    u.offset = static_cast<uint32_t>(start_pos * hd);
    return kernel.launch(g, u, u.n, kCopyWorkgroup);
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
Status et_vk_sdpa(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *q = a.tensor(0), *k = a.tensor(1), *v = a.tensor(2), *mask = a.tensor(3), *out = a.out();
  const bool has_scale = a.has(4);
  const double scale_arg = a.scalar_or(4, 0.0);
  WICK_RETURN_IF_ERROR(require_f32(a, {{q, "q"}, {k, "k"}, {v, "v"}, {out, "output"}, {mask, "attn_mask"}}));
  if (q->rank() != 4 || k->rank() != 4 || v->rank() != 4 || out->rank() != 4)
    return a.unsupported("expected rank-4 q, k, v, out [B,H,S,D]");
  if (out->buffer == q->buffer || out->buffer == k->buffer || out->buffer == v->buffer || (mask && out->buffer == mask->buffer))
    return a.unsupported("output aliases an input");
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::sdpa_plain).set("wg_size", 64u), sizeof(SdpaParams),
      {q->buffer.get(), k->buffer.get(), v->buffer.get(), mask ? mask->buffer.get() : q->buffer.get(), out->buffer.get(), kParamsSlot}));
  return g.add_step([=, &g]() -> Status {
    const auto &qd = q->dims, &kd = k->dims;
    const int64_t b = qd[0], h = qd[1], sq = qd[2], dim = qd[3], skv = kd[2];
    auto bad = [&](const std::string& what) {
      return op_error(ErrorCode::kInvalidArgument, name, what + " (q " + shape_to_string(qd) + ", k " +
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
    return kernel.launch(g, p, p.total, 64);
  });
}

// ---- rotary embeddings ----
struct RopeParams {
  uint32_t nq, n, s_len, d;
  uint32_t hq, hk, mode, start_pos;
  uint32_t f_width, f_rows, pad0, pad1;
};

// Llama (variant 0): [xq, xk, freqs_cos, freqs_sin, (xq_out, xk_out)]
// HF (variant 1):    [xq, xk, cos, sin, start_pos, (xq_out, xk_out)]
Status rotary(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  const bool hf = a.variant() == 1;
  GpuTensor *xq = a.tensor(0), *xk = a.tensor(1), *fcos = a.tensor(2), *fsin = a.tensor(3);
  const int32_t start_pos_id = hf ? a.id(4) : -1;
  WICK_ASSIGN_OR_RETURN(std::vector<GpuTensor*> outs, a.tensors(a.num_inputs(), 2));
  GpuTensor *q_out = outs[0], *k_out = outs[1];
  if (!q_out || !k_out) return a.invalid("expected two outputs");
  WICK_RETURN_IF_ERROR(require_f32(a, {{xq, "xq"}, {xk, "xk"}, {fcos, "freqs_cos"}, {fsin, "freqs_sin"}, {q_out, "xq_out"},
                                       {k_out, "xk_out"}}));
  if (xq->rank() != 4 || xk->rank() != 4)
    return a.unsupported("xq/xk must be [B,S,H,D]");
  const int64_t d = xq->max_dims[3];
  if (xk->max_dims[3] != d || d % 2 != 0)
    return a.invalid("head dims differ or are odd");
  if (q_out->max_numel() < xq->max_numel() || k_out->max_numel() < xk->max_numel())
    return a.invalid("outputs smaller than the inputs");
  for (const GpuTensor* o : {q_out, k_out})
    for (const GpuTensor* i : {xq, xk, fcos, fsin})
      if (o->buffer == i->buffer) return a.unsupported("aliased buffers");
  if (q_out->buffer == k_out->buffer)
    return a.unsupported("both outputs share a buffer");
  if (fcos->rank() < 1 || fcos->max_dims != fsin->max_dims)
    return a.invalid("cos and sin tables differ");
  const int64_t f_width = fcos->max_dims.back();
  if (hf ? (f_width > d || f_width % 2 != 0) : (f_width != d / 2))
    return a.invalid("freqs width " + std::to_string(f_width) +
                                                  " does not fit head dim " + std::to_string(d));

  constexpr uint32_t kWg = 256;
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::rope_apply).set("wg_size", kWg), sizeof(RopeParams),
      {xq->buffer.get(), xk->buffer.get(), fcos->buffer.get(), fsin->buffer.get(), q_out->buffer.get(), k_out->buffer.get(), kParamsSlot}));

  return g.add_step([=, &g]() -> Status {
    if (xq->dims[0] != xk->dims[0] || xq->dims[1] != xk->dims[1])
      return op_error(ErrorCode::kInvalidArgument, name, "xq " + shape_to_string(xq->dims) + " and xk " +
                                                     shape_to_string(xk->dims) + " differ in batch or length");
    const int64_t s = xq->dims[1];
    const int64_t rows = fcos->numel() / f_width;
    int64_t start_pos = 0;
    if (hf) {
      WICK_ASSIGN_OR_RETURN(start_pos, g.int_arg(start_pos_id, name));
      if (start_pos < 0 || start_pos + s > rows)
        return op_error(ErrorCode::kInvalidArgument, name, "positions beyond the freqs table (" +
                                                       std::to_string(rows) + " rows)");
    } else if (rows != 1 && rows < s) {
      return op_error(ErrorCode::kInvalidArgument, name, "freqs have " + std::to_string(rows) +
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
    return kernel.launch(g, p, p.n, kWg);
  });
}

}  // namespace

void append_attention_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"et_vk.select_as_symint.default", "T I I -> *", select_as_symint},
      {"sdpa_with_kv_cache.default", "T T T T T I * * F? B? F? -> T", sdpa_with_kv_cache},
      {"update_cache.default", "T T I -> *", update_cache},
      {"et_vk.sdpa.default", "T T T T? F? -> T", et_vk_sdpa},
      {"et_vk.apply_rotary_emb.default", "T T T T -> V", rotary, 0},
      {"et_vk.apply_rotary_emb_hf.default", "T T T T I -> V", rotary, 1},
  });
}

}  // namespace wick::webgpu
