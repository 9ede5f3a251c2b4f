// Normalization: native_layer_norm, native_group_norm and et_vk.rms_norm -> row_norm_rows.wgsl
// (rows of at most 2048 words, several a workgroup, read once), row_norm.wgsl (one workgroup
// per longer row) or, for fewer than 1024 rows of more than 2048 words on GPU kernel choices,
// row_norm_stats.wgsl + row_norm_apply.wgsl (rows split across workgroups);
// _native_batch_norm_legit_no_training -> batch_norm.wgsl;
// _native_batch_norm_legit.no_stats (nn.InstanceNorm2d's export) -> row_norm.wgsl as a
// group norm of one channel per group. With GraphOptions::subgroups each kernel's *_sg.wgsl
// twin (same body include, sums through subgroup operations).

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/norm/norm_into_splitk.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

// row_norm_params.inc.wgsl's Params.
struct RowNormParams {
  uint32_t rows, inner, mode, flags;
  uint32_t groups, cpg, hw, nchunks;
  float eps;
  uint32_t chunk, pad2, pad3;
};
static_assert(sizeof(RowNormParams) == gpu::wgsl_size::row_norm_params_Params);

struct BatchNormParams {
  uint32_t n, channels, inner, flags;
  float eps, pad0, pad1, pad2;
};

constexpr uint32_t kRowWorkgroup = 256;

// Split rows (row_norm_stats + row_norm_apply) when one workgroup per row would leave a large
// GPU idle: fewer rows than kTargetGroups (the H200 holds ~1000 such workgroups at once) that
// are long enough for chunks of kMinChunk words (8 per thread). Same rule as reduce_rows.
constexpr uint64_t kTargetGroups = 1024;
constexpr uint64_t kMinChunk = 8 * kRowWorkgroup;

uint64_t chunks_for(uint64_t rows, uint64_t inner) {
  if (rows == 0 || rows >= kTargetGroups || inner <= kMinChunk) return 1;
  return std::min((kTargetGroups + rows - 1) / rows, (inner + kMinChunk - 1) / kMinChunk);
}

// Short rows (row_norm_rows.wgsl): up to kRowsCache words a thread, 256 threads.
constexpr uint64_t kRowsCache = 8;
constexpr uint64_t kRowsMaxInner = kRowsCache * kRowWorkgroup;
constexpr uint32_t kWorkgroup = 256;

enum Mode : uint32_t { kLayer = 0, kGroup = 1, kRms = 2 };

// The (out, mean, rstd) outputs: a ValueList (or a lone tensor); missing ones are null.
Status outputs3(const OpArgs& a, size_t i, GpuTensor*& out, GpuTensor*& mean, GpuTensor*& rstd) {
  WICK_ASSIGN_OR_RETURN(std::vector<GpuTensor*> outs, a.outputs(i));
  out = outs[0];
  mean = outs.size() > 1 ? outs[1] : nullptr;
  rstd = outs.size() > 2 ? outs[2] : nullptr;
  return {};
}

Status check_float(const char* name, std::initializer_list<const GpuTensor*> ts) {
  for (const GpuTensor* t : ts)
    if (t && !t->is_float()) return Status(ErrorCode::kNotSupported, std::string(name) + ": float tensors only");
  return {};
}

// Sets a statistics output's live shape when it can hold `rows` values; returns whether to write it.
bool set_stat_dims(GpuTensor* t, const std::vector<int64_t>& shape) {
  if (!t || shape.size() != t->max_dims.size() || shape_numel(shape) > t->max_numel()) return false;
  t->dims = shape;
  return true;
}

struct RowNormSpec {
  GpuTensor *x, *weight, *bias, *out, *mean, *rstd;
  Mode mode;
  size_t norm_rank = 1;  // layer norm: trailing dims normalized
  int64_t groups = 1;    // group norm; 0: one group per channel, statistics shaped [C] (batch 1)
  float eps;
  int32_t mean_id = -1, rstd_id = -1;  // the statistics' values (layer norm; -1: none)
};

Status build_row_norm(Graph& g, const char* name, const RowNormSpec& s) {
  WICK_RETURN_IF_ERROR(check_float(name, {s.x, s.weight, s.bias, s.out, s.mean, s.rstd}));
  // Threads per row: the largest row length the program allows, rounded up to a power of two
  // (32..256). Layer norms over 64 or 384 features would otherwise idle most of 256 threads.
  uint32_t wg = kRowWorkgroup;
  if (s.mode != kGroup && s.x->max_dims.size() >= s.norm_rank) {
    uint64_t inner_max = 1;
    for (size_t i = s.x->max_dims.size() - s.norm_rank; i < s.x->max_dims.size(); ++i)
      inner_max *= static_cast<uint64_t>(std::max<int64_t>(s.x->max_dims[i], 1));
    wg = 32;
    while (wg < inner_max && wg < kRowWorkgroup) wg *= 2;
  }
  // Upper bounds of the row count and length, for the split choice (the live shape then
  // picks the chunk count; a split graph still runs live shapes of many rows, one chunk each).
  uint64_t max_rows = 1, max_inner = 1;
  {
    const auto& md = s.x->max_dims;
    const uint64_t numel = static_cast<uint64_t>(std::max<int64_t>(shape_numel(md), 1));
    if (s.mode == kGroup) {
      if (md.size() >= 2) max_rows = static_cast<uint64_t>(std::max<int64_t>(md[0], 1) * std::max<int64_t>(s.groups ? s.groups : md[1], 1));
    } else {
      for (size_t i = 0; i + s.norm_rank < md.size(); ++i) max_rows *= static_cast<uint64_t>(std::max<int64_t>(md[i], 1));
    }
    max_inner = numel / max_rows;
  }
  // GPU kernel choice only: on SwiftShader the extra workgroups' barriers made it 8-15x
  // slower (bench/kernels/reduce/norm_bench_swiftshader.txt); tests force the GPU choice.
  const bool split = g.options().norm_split && g.gpu_kernel_choice() && chunks_for(max_rows, max_inner) > 1;
  if (split) wg = kRowWorkgroup;
  // Short rows: several per workgroup, TPR threads each (~4 words a thread), held in registers.
  const bool packed = !split && g.options().norm_rows && max_inner <= kRowsMaxInner;
  uint32_t tpr = 1;
  while (packed && tpr * 4 < max_inner && tpr < kRowWorkgroup) tpr *= 2;
  if (packed) wg = kRowWorkgroup;
  // GraphOptions::subgroups: each kernel's *_sg twin, its sums through subgroup operations.
  const bool sg = g.use_subgroups();
  gpu::PipelineKey key(split    ? (sg ? gpu::shaders::row_norm_apply_sg : gpu::shaders::row_norm_apply)
                       : packed ? (sg ? gpu::shaders::row_norm_rows_sg : gpu::shaders::row_norm_rows)
                                : (sg ? gpu::shaders::row_norm_sg : gpu::shaders::row_norm));
  key.set("WG", wg);
  if (packed) key.set("TPR", tpr);
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(key));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(RowNormParams), name));
  gpu::Buffer* out_buf = s.out->buffer.get();
  gpu::Dispatch d;
  d.pipeline = pipeline;
  d.bindings = {{0, s.x->buffer.get()},
                {1, s.weight ? s.weight->buffer.get() : s.x->buffer.get()},
                {2, s.bias ? s.bias->buffer.get() : s.x->buffer.get()},
                {3, out_buf},
                {4, s.mean ? s.mean->buffer.get() : out_buf},
                {5, s.rstd ? s.rstd->buffer.get() : out_buf},
                {6, params->buffer()}};
  // Writable bindings must not alias within one dispatch; drop a statistic that shares a buffer.
  const bool mean_ok = s.mean && s.mean->buffer.get() != out_buf;
  const bool rstd_ok = s.rstd && s.rstd->buffer.get() != out_buf && (!mean_ok || s.rstd->buffer != s.mean->buffer);
  if (!mean_ok) d.bindings[4].buffer = nullptr;
  if (!rstd_ok) d.bindings[5].buffer = nullptr;
  // Unused statistic bindings still need a distinct writable buffer.
  gpu::Buffer* spare = nullptr;
  if (!mean_ok || !rstd_ok) {
    WICK_ASSIGN_OR_RETURN(spare, g.scratch(8, std::string(name) + " unused stats"));
  }
  gpu::Buffer* spare2 = nullptr;
  if (!mean_ok && !rstd_ok) {
    WICK_ASSIGN_OR_RETURN(spare2, g.scratch(8, std::string(name) + " unused stats"));
  }
  if (!mean_ok) d.bindings[4].buffer = spare;
  if (!rstd_ok) d.bindings[5].buffer = mean_ok ? spare : spare2;
  size_t stats_index = 0;
  if (split) {
    WICK_ASSIGN_OR_RETURN(gpu::Buffer * partials, g.scratch((kTargetGroups + max_rows) * 2 * sizeof(float), std::string(name) + " partials"));
    const auto stats_shader = sg ? gpu::shaders::row_norm_stats_sg : gpu::shaders::row_norm_stats;
    WICK_ASSIGN_OR_RETURN(auto stats, g.pipeline(gpu::PipelineKey(stats_shader).set("WG", wg)));
    gpu::Dispatch ds;
    ds.pipeline = stats;
    ds.bindings = {{0, s.x->buffer.get()}, {1, partials}, {2, params->buffer()}};
    WICK_ASSIGN_OR_RETURN(stats_index, g.add_dispatch(std::move(ds)));
    d.bindings.push_back({7, partials});
  }
  // A layer norm right after a split-K product's reduce may be done by it (norm_into_splitk.h):
  // that dispatch is recorded first, the plain one beside it, and each call runs one.
  NormIntoSplitk fused;
  if (s.mode == kLayer && s.norm_rank == 1 && !split) {
    WICK_ASSIGN_OR_RETURN(fused, plan_norm_into_splitk(g, name, s.x, s.weight, s.bias, s.out, s.mean_id, s.rstd_id));
  }
  WICK_ASSIGN_OR_RETURN(size_t index, g.add_dispatch(std::move(d)));

  const RowNormSpec spec = s;
  return g.add_step([=, &g]() -> Status {
    const auto& dims = spec.x->dims;
    RowNormParams p{};
    p.mode = spec.mode;
    p.eps = spec.eps;
    p.flags = (spec.weight ? 1u : 0u) | (spec.bias ? 2u : 0u);
    std::vector<int64_t> stat_shape;
    int64_t rows = 0, inner = 0;
    if (spec.mode == kGroup) {
      if (dims.size() < 2) return Status(ErrorCode::kInvalidArgument, std::string(name) + ": input must be [N, C, *]");
      const int64_t n = dims[0], c = dims[1];
      const bool per_channel = spec.groups == 0;
      // Per channel, the statistics are over N, H, W: one row per channel only when N is 1.
      if (per_channel && n != 1)
        return Status(ErrorCode::kNotSupported, std::string(name) + ": batch " + std::to_string(n) + " (only 1)");
      const int64_t groups = per_channel ? c : spec.groups;
      if (groups <= 0 || c % groups != 0)
        return Status(ErrorCode::kInvalidArgument, std::string(name) + ": " + std::to_string(groups) +
                                                       " groups do not divide " + std::to_string(c) + " channels");
      int64_t hw = 1;
      for (size_t i = 2; i < dims.size(); ++i) hw *= dims[i];
      rows = n * groups;
      inner = (c / groups) * hw;
      p.groups = static_cast<uint32_t>(groups);
      p.cpg = static_cast<uint32_t>(c / groups);
      p.hw = static_cast<uint32_t>(std::max<int64_t>(hw, 1));
      stat_shape = per_channel ? std::vector<int64_t>{c} : std::vector<int64_t>{n, groups};
      if (spec.weight && spec.weight->numel() < c)
        return Status(ErrorCode::kInvalidArgument, std::string(name) + ": weight shorter than C");
      if (spec.bias && spec.bias->numel() < c)
        return Status(ErrorCode::kInvalidArgument, std::string(name) + ": bias shorter than C");
    } else {
      if (dims.size() < spec.norm_rank)
        return Status(ErrorCode::kInvalidArgument, std::string(name) + ": input rank below the normalized rank");
      inner = 1;
      for (size_t i = dims.size() - spec.norm_rank; i < dims.size(); ++i) inner *= dims[i];
      rows = 1;
      for (size_t i = 0; i + spec.norm_rank < dims.size(); ++i) rows *= dims[i];
      stat_shape = dims;
      for (size_t i = dims.size() - spec.norm_rank; i < dims.size(); ++i) stat_shape[i] = 1;
      if ((spec.weight && spec.weight->numel() != inner) || (spec.bias && spec.bias->numel() != inner))
        return Status(ErrorCode::kInvalidArgument, std::string(name) + ": weight/bias size differs from the normalized size " +
                                                       std::to_string(inner));
    }
    WICK_RETURN_IF_ERROR(set_output_dims(name, spec.out, dims));
    if (mean_ok && set_stat_dims(spec.mean, stat_shape)) p.flags |= 4u;
    if (rstd_ok && set_stat_dims(spec.rstd, stat_shape)) p.flags |= 8u;
    WICK_ASSIGN_OR_RETURN(const bool in_reduce, use_norm_into_splitk(g, fused, rows, inner, spec.eps, spec.weight, spec.bias));
    if (in_reduce) return g.set_workgroups(index, 0, 0, 0);
    p.rows = static_cast<uint32_t>(rows);
    p.inner = static_cast<uint32_t>(inner);
    p.nchunks = 1;
    if (split) {
      p.nchunks = static_cast<uint32_t>(chunks_for(static_cast<uint64_t>(rows), static_cast<uint64_t>(inner)));
      p.chunk = static_cast<uint32_t>((inner + p.nchunks - 1) / p.nchunks);
      WICK_RETURN_IF_ERROR(g.set_grid(stats_index, static_cast<uint64_t>(rows) * p.nchunks * wg, wg));
    }
    WICK_RETURN_IF_ERROR(params->write(p));
    if (packed) {
      if (static_cast<uint64_t>(inner) > kRowsCache * tpr)
        return Status(ErrorCode::kInternal, std::string(name) + ": row of " + std::to_string(inner) + " words past its bound");
      const uint64_t per_group = wg / tpr;
      return g.set_grid(index, (static_cast<uint64_t>(rows) + per_group - 1) / per_group * wg, wg);
    }
    return g.set_grid(index, static_cast<uint64_t>(rows) * p.nchunks * wg, wg);
  });
}

// The row norms differ only in where their arguments sit (-1: none):
//   layer_norm [input, normalized_shape, weight?, bias?, eps, (out, mean, rstd)]
//   group_norm [input, weight?, bias?, N, C, HxW, group, eps, (out, mean, rstd)]
//   rms_norm   [x, weight, eps, out]
Status row_norm(Graph& g, const OpArgs& a) {
  struct At {
    int weight, bias, eps, outs, groups;
  };
  static constexpr At kAt[] = {{2, 3, 4, 5, -1}, {1, 2, 7, 8, 6}, {1, -1, 2, 3, -1}};  // by Mode
  RowNormSpec s{};
  s.mode = a.variant_as<Mode>();
  const At& at = kAt[s.mode];
  s.x = a.tensor(0);
  s.weight = a.tensor(at.weight);
  s.bias = at.bias >= 0 ? a.tensor(at.bias) : nullptr;
  s.eps = static_cast<float>(a.scalar(at.eps));
  if (at.groups >= 0) s.groups = a.integer(at.groups);
  WICK_RETURN_IF_ERROR(outputs3(a, at.outs, s.out, s.mean, s.rstd));
  if (s.mode == kLayer) {
    if (!a.is_tensor(at.outs)) {
      const std::vector<int32_t>& ids = a.items(at.outs);
      if (ids.size() > 1) s.mean_id = ids[1];
      if (ids.size() > 2) s.rstd_id = ids[2];
    }
    const std::vector<int64_t> shape = a.ints(1);
    if (shape.empty() || shape.size() > s.x->max_dims.size())
      return a.invalid("normalized_shape of rank " + std::to_string(shape.size()));
    s.norm_rank = shape.size();
  }
  return build_row_norm(g, a.name(), s);
}

// _native_batch_norm_legit.no_stats: [input, weight?, bias?, training, momentum, eps,
// (out, save_mean, save_invstd)]. Batch statistics over N and the spatial dims, biased
// variance; nn.InstanceNorm2d exports as this op on its input viewed as [1, N*C, H, W].
Status batch_norm_no_stats(Graph& g, const OpArgs& a) {
  RowNormSpec s{};
  s.mode = kGroup;
  s.groups = 0;
  s.x = a.tensor(0);
  s.weight = a.tensor(1);
  s.bias = a.tensor(2);
  s.eps = static_cast<float>(a.scalar(5));
  WICK_RETURN_IF_ERROR(outputs3(a, 6, s.out, s.mean, s.rstd));
  if (s.x->rank() < 2) return a.invalid("input must be [N, C, *]");
  if (s.x->max_dims[0] != 1) return a.unsupported("batch " + std::to_string(s.x->max_dims[0]) + " (only 1)");
  return build_row_norm(g, a.name(), s);
}

// [input, weight?, bias?, running_mean, running_var, momentum, eps, (out, mean, rstd)]
Status batch_norm(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *w = a.tensor(1), *b = a.tensor(2), *rm = a.tensor(3), *rv = a.tensor(4);
  const double eps = a.scalar(6);
  GpuTensor *out, *mean, *rstd;
  WICK_RETURN_IF_ERROR(outputs3(a, 7, out, mean, rstd));
  WICK_RETURN_IF_ERROR(check_float(name, {x, w, b, rm, rv, out}));
  if (x->rank() < 2) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": input must be [N, C, *]");

  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::batch_norm).set("wg_size", kWorkgroup), sizeof(BatchNormParams),
      {x->buffer.get(), w ? w->buffer.get() : x->buffer.get(), b ? b->buffer.get() : x->buffer.get(), rm->buffer.get(), rv->buffer.get(), out->buffer.get(), kParamsSlot}));
  const float feps = static_cast<float>(eps);
  return g.add_step([=, &g]() -> Status {
    const auto& dims = x->dims;
    const int64_t c = dims[1];
    if (rm->numel() < c || rv->numel() < c || (w && w->numel() < c) || (b && b->numel() < c))
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": per-channel tensors shorter than C=" + std::to_string(c));
    WICK_RETURN_IF_ERROR(set_output_dims(name, out, dims));
    BatchNormParams p{};
    p.n = static_cast<uint32_t>(shape_numel(dims));
    p.channels = static_cast<uint32_t>(std::max<int64_t>(c, 1));
    int64_t inner = 1;
    for (size_t i = 2; i < dims.size(); ++i) inner *= dims[i];
    p.inner = static_cast<uint32_t>(std::max<int64_t>(inner, 1));
    p.flags = (w ? 1u : 0u) | (b ? 2u : 0u);
    p.eps = feps;
    return kernel.launch(g, p, p.n, kWorkgroup);
  });
}

}  // namespace

void append_norm_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.native_layer_norm.default", "T L T? T? F -> O", row_norm, kLayer},
      {"aten.native_group_norm.default", "T T? T? I I I I F -> O", row_norm, kGroup},
      {"aten._native_batch_norm_legit_no_training.default", "T T? T? T T * F -> O", batch_norm},
      {"aten._native_batch_norm_legit.no_stats", "T T? T? B F F -> O", batch_norm_no_stats},
      {"et_vk.rms_norm.default", "T T? F -> T", row_norm, kRms},
  });
}

}  // namespace wick::webgpu
