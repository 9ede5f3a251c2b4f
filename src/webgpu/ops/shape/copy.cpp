#include "webgpu/ops/shape/copy.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "webgpu/ops/elementwise/broadcast.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"

namespace wick::webgpu {

namespace {

using Arr = std::array<uint32_t, kMaxCopyRank>;

struct CopyParams {
  uint32_t n, rank, in_base, out_base;
  uint32_t mode, fill, pad0, pad1;
  Arr dims, in_strides, out_strides, mods, offs, lims;
};
static_assert(sizeof(CopyParams) == 32 + 6 * 32);

constexpr uint32_t kWorkgroup = 256;

bool is_bool(const GpuTensor* t) { return t->vk_dtype == vk::VkDataType::BOOL; }

uint32_t copy_mode(const GpuTensor* src, const GpuTensor* dst) {
  if (is_bool(dst) && !is_bool(src)) return src->elem == Elem::kF32 ? 3 : 4;
  if (src->elem == Elem::kF32 && dst->elem == Elem::kI32) return 1;
  if (src->elem == Elem::kI32 && dst->elem == Elem::kF32) return 2;
  return 0;
}

uint32_t fill_word(const GpuTensor* dst, double v) {
  uint32_t w;
  if (dst->elem == Elem::kF32) {
    float f = static_cast<float>(v);
    std::memcpy(&w, &f, 4);
  } else {
    int32_t x = is_bool(dst) ? (v != 0 ? 1 : 0) : static_cast<int32_t>(v);
    std::memcpy(&w, &x, 4);
  }
  return w;
}

Arr to_arr(const std::vector<int64_t>& v) {
  Arr a{};
  for (size_t i = 0; i < v.size() && i < a.size(); ++i) a[i] = static_cast<uint32_t>(static_cast<int64_t>(v[i]));
  return a;
}

// `plain`: no wrap, shift or bounds (mods/offs/lims all zero); the dims both sides walk
// contiguously are then merged, so the shaders' per-dim div/mod loops run as few times as
// possible.
Status encode(const std::string& name, const CopyPlan& plan_in, uint32_t mode, uint32_t fill, CopyParams& p,
              bool* plain_out = nullptr) {
  CopyPlan plan = plan_in;
  const size_t rank = plan.dims.size();
  if (rank > static_cast<size_t>(kMaxCopyRank))
    return Status(ErrorCode::kNotSupported, name + ": copy of rank " + std::to_string(rank) + " (at most 8)");
  auto check = [&](std::vector<int64_t>& v, const std::vector<int64_t>& dflt, const char* what) -> Status {
    if (v.empty()) v = dflt;
    if (v.size() != rank)
      return Status(ErrorCode::kInternal, name + ": copy plan " + what + " has " + std::to_string(v.size()) +
                                              " entries for rank " + std::to_string(rank));
    return {};
  };
  const std::vector<int64_t> contiguous = contiguous_strides(plan.dims), zeros(rank, 0);
  WICK_RETURN_IF_ERROR(check(plan.in_strides, contiguous, "in_strides"));
  WICK_RETURN_IF_ERROR(check(plan.out_strides, contiguous, "out_strides"));
  WICK_RETURN_IF_ERROR(check(plan.mods, zeros, "mods"));
  WICK_RETURN_IF_ERROR(check(plan.offs, zeros, "offs"));
  WICK_RETURN_IF_ERROR(check(plan.lims, zeros, "lims"));
  const int64_t n = shape_numel(plan.dims);
  if (n > int64_t{0xffffffff})
    return Status(ErrorCode::kNotSupported, name + ": copy of " + std::to_string(n) + " elements is too large");
  p = CopyParams{};
  p.n = static_cast<uint32_t>(n);
  p.rank = static_cast<uint32_t>(rank);
  p.in_base = static_cast<uint32_t>(plan.in_base);
  p.out_base = static_cast<uint32_t>(plan.out_base);
  p.mode = mode;
  p.fill = fill;
  p.dims = to_arr(plan.dims);
  p.in_strides = to_arr(plan.in_strides);
  p.out_strides = to_arr(plan.out_strides);
  p.mods = to_arr(plan.mods);
  p.offs = to_arr(plan.offs);
  p.lims = to_arr(plan.lims);
  const auto is_zero = [](const std::vector<int64_t>& v) {
    for (int64_t x : v) if (x != 0) return false;
    return true;
  };
  const bool plain = is_zero(plan.mods) && is_zero(plan.offs) && is_zero(plan.lims);
  if (plain) p.rank = coalesce_dims(p.rank, p.dims, {&p.in_strides, &p.out_strides});
  if (plain_out) *plain_out = plain;
  return {};
}

int32_t as_signed(uint32_t w) { return static_cast<int32_t>(w); }

// A plain copy's (coalesced) params in units of 4 words for shape_copy_vec4, when the
// innermost dim is contiguous on both sides and every size, stride and base divides by 4.
bool to_vec4(CopyParams& p) {
  if (p.n == 0 || p.rank == 0) return false;
  const uint32_t last = p.rank - 1;
  if (p.in_strides[last] != 1 || p.out_strides[last] != 1 || p.dims[last] % 4 != 0) return false;
  if (p.in_base % 4 != 0 || p.out_base % 4 != 0) return false;
  for (uint32_t d = 0; d < last; ++d)
    if (as_signed(p.in_strides[d]) < 0 || p.in_strides[d] % 4 != 0 || p.out_strides[d] % 4 != 0) return false;
  p.n /= 4;
  p.dims[last] /= 4;
  p.in_base /= 4;
  p.out_base /= 4;
  for (uint32_t d = 0; d < last; ++d) {
    p.in_strides[d] /= 4;
    p.out_strides[d] /= 4;
  }
  return true;
}

constexpr uint32_t kTile = 32;  // shape_copy_tiled.wgsl's T

// Whether a plain copy's (coalesced) params move the innermost dim: the destination's
// contiguous dim is read with a stride and some other dim is the source's contiguous one,
// both at least 8 long (shorter ones would leave most of a 32 x 32 tile idle).
bool transposes(const CopyParams& p) {
  if (p.rank < 2) return false;
  const uint32_t last = p.rank - 1;
  if (p.out_strides[last] != 1 || p.in_strides[last] == 1 || p.dims[last] < 8) return false;
  for (uint32_t d = 0; d < last; ++d)
    if (p.in_strides[d] == 1) return p.dims[d] >= 8;
  return false;
}

// A plain copy's params for shape_copy_tiled: the source's contiguous dim (if any) moved
// next to the last one, the rank padded to 2, and n / tiles_a / tiles_b (the shader's
// _p0 / _p1) set to the workgroup grid. Correct for any plain plan: the shader is a strided
// copy in tiles over the last two dims.
void to_tiled(CopyParams& p) {
  while (p.rank < 2) {
    for (uint32_t d = p.rank; d > 0; --d) {
      p.dims[d] = p.dims[d - 1];
      p.in_strides[d] = p.in_strides[d - 1];
      p.out_strides[d] = p.out_strides[d - 1];
    }
    p.dims[0] = 1;
    p.in_strides[0] = p.out_strides[0] = 0;
    ++p.rank;
  }
  const uint32_t a = p.rank - 2;
  for (uint32_t d = 0; d < a; ++d) {
    if (p.in_strides[d] != 1) continue;
    // Rotate d to position a; the dims in between move out one (their order is free).
    for (Arr* v : {&p.dims, &p.in_strides, &p.out_strides}) {
      const uint32_t keep = (*v)[d];
      for (uint32_t k = d; k < a; ++k) (*v)[k] = (*v)[k + 1];
      (*v)[a] = keep;
    }
    break;
  }
  uint64_t batch = 1;
  for (uint32_t d = 0; d < a; ++d) batch *= p.dims[d];
  const uint32_t tiles_a = (p.dims[a] + kTile - 1) / kTile, tiles_b = (p.dims[a + 1] + kTile - 1) / kTile;
  p.pad0 = tiles_a;
  p.pad1 = tiles_b;
  p.n = static_cast<uint32_t>(batch * tiles_a * tiles_b);
}

}  // namespace

Status check_word_tensor(const std::string& name, const GpuTensor* t) {
  if (t->elem == Elem::kPackedBytes)
    return Status(ErrorCode::kNotSupported, name + ": byte-packed (uint8/int8 constant) tensors are not supported");
  if (t->rank() > kMaxCopyRank) return Status(ErrorCode::kNotSupported, name + ": rank above 8");
  return {};
}

CopyKernel choose_copy_kernel(const CopyPlan& plan, bool fixed_shapes, bool gpu_choice) {
  CopyParams p;
  bool plain = false;
  if (!encode("copy", plan, 0, 0, p, &plain).ok() || !plain || p.n == 0) return CopyKernel::kGeneric;
  for (uint32_t d = 0; d < p.rank; ++d)
    if (as_signed(p.in_strides[d]) < 0) return CopyKernel::kGeneric;  // flips
  // The tiles' workgroup barrier is what costs most on CPU adapters (SwiftShader: 7x the
  // generic kernel, bench/kernels/shape_copy/README.md): GPU kernel choice only.
  if (gpu_choice && transposes(p)) return CopyKernel::kTiled;
  // The vec4 form needs sizes divisible by 4 at every execution: only where shapes are the
  // build's (Graph::shapes_fixed).
  CopyParams v = p;
  if (fixed_shapes && to_vec4(v)) return CopyKernel::kVec4;
  return CopyKernel::kGeneric;
}

Status add_strided_copy(Graph& g, const std::string& name, GpuTensor* src, GpuTensor* dst, CopyPlanner planner) {
  WICK_RETURN_IF_ERROR(check_word_tensor(name, src));
  WICK_RETURN_IF_ERROR(check_word_tensor(name, dst));
  WICK_ASSIGN_OR_RETURN(auto generic, g.pipeline(gpu::PipelineKey(gpu::shaders::shape_copy).set("wg_size", kWorkgroup)));
  const uint32_t mode = copy_mode(src, dst);
  // The kernel is chosen once from the build's shapes (the plan's structure: plain or not,
  // which dim is contiguous where, does not change with the sizes; only kVec4 depends on
  // them, and is only chosen where they cannot change).
  CopyPlan first;
  WICK_RETURN_IF_ERROR(planner(first));
  const CopyKernel kernel = choose_copy_kernel(first, g.shapes_fixed(), g.gpu_kernel_choice());
  if (kernel == CopyKernel::kVec4) g.count_fixed_shape_op();
  std::shared_ptr<const gpu::ComputePipeline> pipeline = generic;
  if (kernel == CopyKernel::kVec4) {
    WICK_ASSIGN_OR_RETURN(pipeline,
                          g.pipeline(gpu::PipelineKey(gpu::shaders::shape_copy_vec4).set("wg_size", kWorkgroup)));
  } else if (kernel == CopyKernel::kTiled) {
    WICK_ASSIGN_OR_RETURN(pipeline, g.pipeline(gpu::PipelineKey(gpu::shaders::shape_copy_tiled)));
  }
  // One WebGPU buffer (views of one buffer included, cat_plan.h): stage through scratch.
  const bool aliased = src->buffer->handle() == dst->buffer->handle();
  ParamsBlock* stage_params = nullptr;
  size_t stage_index = 0;
  const gpu::Buffer* source = src->buffer.get();
  if (aliased) {
    // Reading and writing one buffer in a dispatch is not allowed (and would race): stage it.
    WICK_ASSIGN_OR_RETURN(gpu::Buffer * scratch, g.scratch(static_cast<uint64_t>(std::max<int64_t>(src->max_numel(), 1)) * 4,
                                                          name + " staging"));
    WICK_ASSIGN_OR_RETURN(stage_params, g.params(sizeof(CopyParams), name + " staging"));
    gpu::Dispatch d;
    d.pipeline = generic;
    d.bindings = {{0, src->buffer.get()}, {1, scratch}, {2, stage_params->buffer()}};
    WICK_ASSIGN_OR_RETURN(stage_index, g.add_dispatch(std::move(d)));
    source = scratch;
  }
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(CopyParams), name));
  gpu::Dispatch d;
  d.pipeline = pipeline;
  d.bindings = {{0, source}, {1, dst->buffer.get()}, {2, params->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t index, g.add_dispatch(std::move(d)));

  return g.add_step([=, &g]() -> Status {
    if (aliased) {
      CopyPlan stage;
      stage.dims = {src->numel()};
      CopyParams sp;
      WICK_RETURN_IF_ERROR(encode(name, stage, 0, 0, sp));
      WICK_RETURN_IF_ERROR(stage_params->write(sp));
      WICK_RETURN_IF_ERROR(g.set_grid(stage_index, sp.n, kWorkgroup));
    }
    CopyPlan plan;
    WICK_RETURN_IF_ERROR(planner(plan));
    CopyParams p;
    WICK_RETURN_IF_ERROR(encode(name, plan, mode, fill_word(dst, plan.fill), p));
    if (kernel == CopyKernel::kVec4 && p.n != 0 && !to_vec4(p))
      return Status(ErrorCode::kInternal, name + ": shapes changed under a copy built for fixed shapes");
    if (kernel == CopyKernel::kTiled) {
      to_tiled(p);
      WICK_RETURN_IF_ERROR(params->write(p));
      return g.set_grid(index, uint64_t{p.n} * kWorkgroup, kWorkgroup);
    }
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(index, p.n, kWorkgroup);
  });
}

Status add_flat_copy(Graph& g, const std::string& name, GpuTensor* src, GpuTensor* dst,
                     std::function<Result<std::vector<int64_t>>()> shape_of) {
  WICK_RETURN_IF_ERROR(check_word_tensor(name, src));
  WICK_RETURN_IF_ERROR(check_word_tensor(name, dst));
  auto plan_flat = [=](CopyPlan& plan) -> Status {
    WICK_ASSIGN_OR_RETURN(std::vector<int64_t> shape, shape_of());
    if (shape_numel(shape) != src->numel())
      return Status(ErrorCode::kInvalidArgument, name + ": shape " + shape_to_string(shape) + " has " +
                                                     std::to_string(shape_numel(shape)) + " elements, the input " +
                                                     shape_to_string(src->dims) + " has " +
                                                     std::to_string(src->numel()));
    WICK_RETURN_IF_ERROR(set_output_dims(name, dst, shape));
    plan.dims = {src->numel()};
    return {};
  };
  if (src->buffer == dst->buffer && copy_mode(src, dst) == 0) {
    // The exporter planned the output onto the input's memory: the words are already there.
    return g.add_step([=]() -> Status {
      CopyPlan plan;
      return plan_flat(plan);
    });
  }
  return add_strided_copy(g, name, src, dst, plan_flat);
}

bool copy_converts(const GpuTensor* src, const GpuTensor* dst) { return copy_mode(src, dst) != 0; }

bool permute_keeps_order(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
  if (perm.size() != dims.size()) return false;
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t last = -1;
  for (int64_t d : perm) {
    const int64_t nd = d < 0 ? d + rank : d;
    if (nd < 0 || nd >= rank) return false;
    if (dims[static_cast<size_t>(nd)] == 1) continue;
    if (nd < last) return false;
    last = nd;
  }
  return true;
}

bool is_zero_pad(const Graph& g, int32_t pad_id) {
  auto v = g.value(pad_id);
  // Only a literal IntList: a ValueList may hold SymInts that change between executions.
  if (!v.ok() || (*v)->kind != GValue::kIntList) return false;
  for (int64_t p : (*v)->ints)
    if (p != 0) return false;
  return true;
}

namespace {

// A literal int argument (a SymInt may change between executions), `fallback` for None.
std::optional<int64_t> literal_int(const Graph& g, int32_t id, int64_t fallback) {
  if (id < 0 || g.is_none(id)) return fallback;
  auto v = g.value(id);
  if (!v.ok() || ((*v)->kind != GValue::kInt && (*v)->kind != GValue::kDouble)) return std::nullopt;
  auto i = g.int_arg(id, "view");
  return i.ok() ? std::optional<int64_t>(*i) : std::nullopt;
}

const GpuTensor* tensor_of(const Graph& g, int32_t id) {
  auto v = g.value(id);
  return v.ok() && (*v)->kind == GValue::kTensor ? &(*v)->tensor : nullptr;
}

}  // namespace

std::vector<RangeView> range_views(const Graph& g, std::string_view op, const std::vector<int32_t>& args) {
  const bool slice = op == "aten.slice_copy.Tensor" && args.size() == 6;
  const bool select = op == "aten.select_copy.int" && args.size() == 4;
  const bool split = op == "aten.split_with_sizes_copy.default" && args.size() == 4;
  if (!(slice || select || split) || !g.shapes_fixed()) return {};
  if (!slice && !g.options().range_views) return {};
  const GpuTensor* xt = tensor_of(g, args[0]);
  if (!xt || xt->elem == Elem::kPackedBytes || xt->max_dims.empty()) return {};
  const int64_t rank = static_cast<int64_t>(xt->max_dims.size());
  auto dim = literal_int(g, args[slice || select ? 1 : 2], 0);
  if (!dim) return {};
  const int64_t d = *dim < 0 ? *dim + rank : *dim;
  if (d < 0 || d >= rank) return {};
  // One range of the input's words only when every dim before `d` is 1.
  for (int64_t k = 0; k < d; ++k)
    if (xt->max_dims[static_cast<size_t>(k)] != 1) return {};
  const int64_t size = xt->max_dims[static_cast<size_t>(d)];
  const int64_t inner = shape_numel(xt->max_dims) / std::max<int64_t>(size, 1);
  // Output `dst` as elements [start, start + len) of dim d, if that is a whole view.
  std::vector<RangeView> views;
  auto add = [&](int32_t dst, int64_t start, int64_t len) {
    const GpuTensor* ot = tensor_of(g, dst);
    if (!ot || len <= 0 || copy_converts(xt, ot) || len * inner != shape_numel(ot->max_dims)) return;
    const uint64_t offset = static_cast<uint64_t>(start * inner) * 4;
    if (offset % g.view_alignment() != 0) return;
    views.push_back(RangeView{args[0], dst, offset});
  };
  if (slice) {
    auto start = literal_int(g, args[2], 0), end = literal_int(g, args[3], size), step = literal_int(g, args[4], 1);
    if (!start || !end || !step || *step != 1) return {};
    int64_t s0 = *start < 0 ? *start + size : *start, e0 = *end < 0 ? *end + size : *end;
    s0 = std::clamp<int64_t>(s0, 0, size);
    e0 = std::clamp<int64_t>(e0, s0, size);
    add(args[5], s0, e0 - s0);
  } else if (select) {
    auto index = literal_int(g, args[2], 0);
    if (!index || *index < -size || *index >= size) return {};
    add(args[3], *index < 0 ? *index + size : *index, 1);
  } else {
    // Literal sizes only (a ValueList may hold SymInts), summing to the dim.
    auto sv = g.value(args[1]);
    auto items = g.value(args[3]);
    if (!sv.ok() || (*sv)->kind != GValue::kIntList || !items.ok() || (*items)->kind != GValue::kValueList) return {};
    const std::vector<int64_t>& sizes = (*sv)->ints;
    const std::vector<int32_t>& outs = (*items)->items;
    if (sizes.size() != outs.size()) return {};
    int64_t total = 0;
    for (int64_t s : sizes) {
      if (s < 0) return {};
      total += s;
    }
    if (total != size) return {};
    int64_t start = 0;
    for (size_t k = 0; k < sizes.size(); ++k) {
      add(outs[k], start, sizes[k]);
      start += sizes[k];
    }
  }
  return views;
}

std::optional<RangeView> range_view_of(const Graph& g, std::string_view op, const std::vector<int32_t>& args, int32_t dst) {
  for (const RangeView& v : range_views(g, op, args))
    if (v.dst == dst) return v;
  return std::nullopt;
}

bool is_range_view(const GpuTensor* src, const GpuTensor* dst, const RangeView& v) {
  return src->buffer && dst->buffer && src->buffer->valid() && dst->buffer->handle() == src->buffer->handle() &&
         dst->buffer->offset() == src->buffer->offset() + v.offset;
}

std::vector<RangeView> buffer_views(const Graph& g, std::string_view op, const std::vector<int32_t>& args) {
  auto whole = [&](size_t dst) { return std::vector<RangeView>{RangeView{args[0], args[dst], 0}}; };
  if (auto io = flat_copy_args(op, args.size())) return whole(io->second);
  if (op == "aten.constant_pad_nd.default" && args.size() == 4 && is_zero_pad(g, args[1])) return whole(3);
  if ((op == "aten.permute_copy.default" || op == "aten.permute.default") && args.size() == 3) {
    auto x = g.value(args[0]);
    auto perm = g.int_list(args[1], "permute");
    if (!x.ok() || (*x)->kind != GValue::kTensor || !perm.ok()) return {};
    if (permute_keeps_order((*x)->tensor.max_dims, *perm)) return whole(2);
    return {};
  }
  return range_views(g, op, args);
}

std::optional<std::pair<size_t, size_t>> flat_copy_args(std::string_view op, size_t nargs) {
  const OpEntry* e = find_op(op).entry();
  if (!e || !e->build || !is_flat_copy(e->build) || nargs < 2 || !schema_accepts(e->schema, nargs)) return std::nullopt;
  return std::make_pair(size_t{0}, nargs - 1);
}

}  // namespace wick::webgpu
