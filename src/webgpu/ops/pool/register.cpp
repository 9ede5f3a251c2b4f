// aten.avg_pool2d and aten.max_pool2d_with_indices (NCHW or CHW) -> pool2d.wgsl.
// (adaptive_avg_pool2d exports as aten.mean.dim: ops/reduce.)
#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"

namespace wick::webgpu {

namespace {

struct PoolParams {
  uint32_t total, in_h, in_w, out_h;
  uint32_t out_w, k_h, k_w, s_h;
  uint32_t s_w, p_h, p_w, d_h;
  uint32_t d_w, mode, count_include_pad, divisor;
};
static_assert(sizeof(PoolParams) == 64);

constexpr uint32_t kWorkgroup = 64;

// An int[2] argument: one value applies to both dims; empty gives `fallback`.
Result<std::array<int64_t, 2>> pair_arg(Graph& g, int32_t id, const char* name, std::array<int64_t, 2> fallback) {
  if (g.is_none(id)) return fallback;
  WICK_ASSIGN_OR_RETURN(auto v, g.int_list(id, name));
  if (v.empty()) return fallback;
  if (v.size() == 1) return std::array<int64_t, 2>{v[0], v[0]};
  if (v.size() != 2) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": expected a list of 2 ints");
  return std::array<int64_t, 2>{v[0], v[1]};
}

// PyTorch's pooling_output_shape: floor (or ceil) division, and in ceil mode the last
// window must start inside the input or its left padding.
int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t pad, int64_t dil, bool ceil_mode) {
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
  if (ceil_mode && (out - 1) * s >= in + pad) --out;
  return out;
}

struct PoolSpec {
  GpuTensor *x, *out, *indices;
  std::array<int64_t, 2> k, s, pad, dil;
  bool ceil_mode, count_include_pad;
  int64_t divisor;
  uint32_t mode;
};

Status build_pool(Graph& g, const char* name, const PoolSpec& sp) {
  if (!sp.x->is_float() || !sp.out->is_float())
    return Status(ErrorCode::kNotSupported, std::string(name) + ": float tensors only");
  if (sp.indices && sp.indices->elem != Elem::kI32)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": indices must be an integer tensor");
  if (sp.x->rank() != 3 && sp.x->rank() != 4)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": input must be 3-D or 4-D");
  for (int i = 0; i < 2; ++i)
    if (sp.k[i] <= 0 || sp.s[i] <= 0 || sp.pad[i] < 0 || sp.dil[i] <= 0 || sp.pad[i] * 2 > sp.k[i])
      return Status(ErrorCode::kInvalidProgram, std::string(name) + ": invalid kernel/stride/padding/dilation");
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(gpu::PipelineKey(gpu::shaders::pool2d).set("wg_size", kWorkgroup)));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(PoolParams), name));
  gpu::Buffer* idx_buf = sp.indices ? sp.indices->buffer.get() : nullptr;
  if (!idx_buf || idx_buf == sp.out->buffer.get()) {
    WICK_ASSIGN_OR_RETURN(idx_buf, g.scratch(4, std::string(name) + " unused indices"));
  }
  gpu::Dispatch d;
  d.pipeline = pipeline;
  d.bindings = {{0, sp.x->buffer.get()}, {1, sp.out->buffer.get()}, {2, idx_buf}, {3, params->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t index, g.add_dispatch(std::move(d)));
  const bool write_indices = sp.indices && sp.indices->buffer.get() == idx_buf;
  const PoolSpec spec = sp;
  return g.add_step([=, &g]() -> Status {
    const auto& dims = spec.x->dims;
    const size_t r = dims.size();
    const int64_t ih = dims[r - 2], iw = dims[r - 1];
    const int64_t oh = pooled_size(ih, spec.k[0], spec.s[0], spec.pad[0], spec.dil[0], spec.ceil_mode);
    const int64_t ow = pooled_size(iw, spec.k[1], spec.s[1], spec.pad[1], spec.dil[1], spec.ceil_mode);
    if (oh <= 0 || ow <= 0)
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": input " + shape_to_string(dims) + " too small for the kernel");
    std::vector<int64_t> shape = dims;
    shape[r - 2] = oh;
    shape[r - 1] = ow;
    if (shape.size() != spec.out->max_dims.size() || shape_numel(shape) > spec.out->max_numel())
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": result " + shape_to_string(shape) +
                                                     " does not fit the output " + shape_to_string(spec.out->max_dims));
    spec.out->dims = shape;
    PoolParams p{};
    if (spec.indices) {
      if (!write_indices || shape.size() != spec.indices->max_dims.size() || shape_numel(shape) > spec.indices->max_numel())
        return Status(ErrorCode::kInvalidArgument, std::string(name) + ": indices output cannot hold " + shape_to_string(shape));
      spec.indices->dims = shape;
    }
    p.total = static_cast<uint32_t>(shape_numel(shape));
    p.in_h = static_cast<uint32_t>(ih);
    p.in_w = static_cast<uint32_t>(iw);
    p.out_h = static_cast<uint32_t>(oh);
    p.out_w = static_cast<uint32_t>(ow);
    p.k_h = static_cast<uint32_t>(spec.k[0]);
    p.k_w = static_cast<uint32_t>(spec.k[1]);
    p.s_h = static_cast<uint32_t>(spec.s[0]);
    p.s_w = static_cast<uint32_t>(spec.s[1]);
    p.p_h = static_cast<uint32_t>(spec.pad[0]);
    p.p_w = static_cast<uint32_t>(spec.pad[1]);
    p.d_h = static_cast<uint32_t>(spec.dil[0]);
    p.d_w = static_cast<uint32_t>(spec.dil[1]);
    p.mode = spec.mode;
    p.count_include_pad = spec.count_include_pad ? 1 : 0;
    p.divisor = static_cast<uint32_t>(spec.divisor);
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(index, p.total, kWorkgroup);
  });
}

// avg_pool2d (variant 0): [input, kernel, stride, padding, ceil_mode, count_include_pad,
//   divisor_override?, out]
// max_pool2d_with_indices (variant 1): [input, kernel, stride, padding, dilation, ceil_mode,
//   out or (out, indices)]
Status pool2d(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  const bool max = a.variant() == 1;
  PoolSpec s{};
  s.mode = a.variant();
  s.x = a.tensor(0);
  WICK_ASSIGN_OR_RETURN(s.k, pair_arg(g, a.id(1), name, {0, 0}));
  WICK_ASSIGN_OR_RETURN(s.s, pair_arg(g, a.id(2), name, s.k));
  WICK_ASSIGN_OR_RETURN(s.pad, pair_arg(g, a.id(3), name, {0, 0}));
  s.dil = {1, 1};
  if (max) {
    WICK_ASSIGN_OR_RETURN(s.dil, pair_arg(g, a.id(4), name, {1, 1}));
    s.ceil_mode = a.flag(5);
    WICK_ASSIGN_OR_RETURN(std::vector<GpuTensor*> outs, a.outputs(6));
    s.out = outs[0];
    s.indices = outs.size() > 1 ? outs[1] : nullptr;
    return build_pool(g, name, s);
  }
  s.ceil_mode = a.flag(4);
  s.count_include_pad = a.flag(5);
  s.divisor = a.integer_or(6, 0);
  if (a.has(6) && s.divisor <= 0) return a.invalid("divisor_override must be positive");
  s.out = a.out();
  s.indices = nullptr;
  return build_pool(g, name, s);
}

}  // namespace

void append_pool_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.avg_pool2d.default", "T L? L? L? B B I? -> T", pool2d, 0},
      {"aten.max_pool2d_with_indices.default", "T L? L? L? L? B -> O", pool2d, 1},
  });
}

}  // namespace wick::webgpu
