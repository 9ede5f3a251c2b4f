// Reductions (sum, mean, amax, amin, argmax, argmin over any set of dims, max.dim as amax +
// argmax) and softmax / log_softmax (numerically stable, along one dim) -> reduce.wgsl;
// float ones over the innermost dims on GPU kernel choices -> reduce_rows.wgsl (a workgroup
// per row or row chunk; reduce_rows_sg.wgsl with GraphOptions::subgroups); softmax on CPU adapters (SwiftShader) -> softmax_rows.wgsl, one
// barrier-free thread per row; topk -> topk_rank.wgsl.
#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

enum class ReduceOp : uint32_t { kSum = 0, kMean = 1, kAmax = 2, kAmin = 3, kArgmax = 4, kArgmin = 5, kSoftmax = 6, kLogSoftmax = 7 };

constexpr int kMaxRank = 8;
constexpr uint32_t kWorkgroup = 256;
constexpr uint32_t kRowsWorkgroup = 64;  // softmax_rows.wgsl: threads (rows) per workgroup

struct ReduceParams {
  uint32_t out_n, red_n, kept_rank, red_rank;
  uint32_t op, flags, tpr, pad0;
  float scale;
  uint32_t pad1, pad2, pad3;
  std::array<uint32_t, kMaxRank> kept_dims, kept_strides, red_dims, red_strides;
};
static_assert(sizeof(ReduceParams) == 48 + 4 * 32);
// The WGSL Params of the family's module has the same size (generated at configure time).
static_assert(sizeof(ReduceParams) == gpu::wgsl_size::reduce_common_Params);

// ---- reduce_rows.wgsl: the reduced dims are the innermost (contiguous rows) ----

enum class RowsOp : uint32_t { kSum = 0, kAmax = 1, kAmin = 2, kSoftmax = 3, kLogSoftmax = 4 };

struct RowParams {
  uint32_t rows, len, op, nchunks;
  uint32_t chunk;
  float scale;
  uint32_t pad0, pad1;
};

// Workgroups a reduction should spread over before a row is split into chunks (enough to
// fill a large GPU: the H200 holds ~1000 such workgroups at once), and the least words a
// chunk's 256 threads each read (8).
constexpr uint64_t kTargetGroups = 1024;
constexpr uint64_t kMinChunk = 8 * kWorkgroup;
// Rows shorter than a workgroup take reduce.wgsl's packed rows instead (build_reduce).
constexpr uint64_t kRowsMinLen = kWorkgroup;

// Whether every reduced dim larger than 1 comes after every kept dim larger than 1 (in the
// upper-bound shape; live dims are no larger): each output row is then one contiguous run.
bool reduces_inner_run(const std::vector<int64_t>& max_dims, const std::vector<bool>& reduced) {
  bool seen_reduced = false;
  for (size_t d = 0; d < max_dims.size(); ++d) {
    if (max_dims[d] == 1) continue;
    if (reduced[d]) seen_reduced = true;
    else if (seen_reduced) return false;
  }
  return true;
}

// Chunks per row for sum/mean/amax/amin: 1 unless the rows are too few to fill the GPU.
uint64_t chunks_for(uint64_t rows, uint64_t len) {
  if (rows == 0 || rows >= kTargetGroups || len <= kMinChunk) return 1;
  return std::min((kTargetGroups + rows - 1) / rows, (len + kMinChunk - 1) / kMinChunk);
}

Status build_reduce_rows(Graph& g, GpuTensor* in, GpuTensor* out, std::vector<bool> reduced, bool keepdim, ReduceOp op,
                         RowsOp rop, const char* name) {
  const bool softmax = rop == RowsOp::kSoftmax || rop == RowsOp::kLogSoftmax;
  // GraphOptions::subgroups: the same kernel with its partials combined by subgroup operations.
  const auto shader = g.use_subgroups() ? gpu::shaders::reduce_rows_sg : gpu::shaders::reduce_rows;
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(gpu::PipelineKey(shader).set("WG", kWorkgroup)));
  // Split rows (two dispatches: chunk partials into scratch, then their reduction) where the
  // upper-bound shape has too few rows; the live shape decides the chunk count.
  uint64_t max_rows = 1, max_len = 1;
  for (size_t d = 0; d < in->max_dims.size(); ++d) (reduced[d] ? max_len : max_rows) *= static_cast<uint64_t>(in->max_dims[d]);
  const bool split = !softmax && chunks_for(max_rows, max_len) > 1;
  gpu::Buffer* partials = nullptr;
  if (split) {
    WICK_ASSIGN_OR_RETURN(partials, g.scratch((kTargetGroups + max_rows) * 4, std::string(name) + " partials"));
  }
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(RowParams), name));
  gpu::Dispatch disp;
  disp.pipeline = pipeline;
  disp.bindings = {{0, in->buffer.get()}, {1, split ? partials : out->buffer.get()}, {2, params->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t index, g.add_dispatch(std::move(disp)));
  ParamsBlock* params2 = nullptr;
  size_t index2 = 0;
  if (split) {
    WICK_ASSIGN_OR_RETURN(params2, g.params(sizeof(RowParams), std::string(name) + " combine"));
    gpu::Dispatch d2;
    d2.pipeline = pipeline;
    d2.bindings = {{0, partials}, {1, out->buffer.get()}, {2, params2->buffer()}};
    WICK_ASSIGN_OR_RETURN(index2, g.add_dispatch(std::move(d2)));
  }
  return g.add_step([=, &g]() -> Status {
    const std::vector<int64_t>& shape = in->dims;
    std::vector<int64_t> out_shape;
    uint64_t rows = 1, len = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (reduced[d]) {
        len *= static_cast<uint64_t>(shape[d]);
        if (keepdim) out_shape.push_back(1);
      } else {
        rows *= static_cast<uint64_t>(shape[d]);
        out_shape.push_back(shape[d]);
      }
    }
    if (softmax) out_shape = shape;
    WICK_RETURN_IF_ERROR(set_output_dims(name, out, out_shape));
    if (op != ReduceOp::kSum && op != ReduceOp::kMean && len == 0 && rows != 0)
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": reduction over an empty dimension");
    if (rows * std::max<uint64_t>(len, 1) > 0xffffffffull)
      return Status(ErrorCode::kNotSupported, std::string(name) + ": more than 2^32 elements");
    const float mean_scale = len ? 1.0f / static_cast<float>(len) : std::numeric_limits<float>::quiet_NaN();
    RowParams p{};
    p.rows = static_cast<uint32_t>(rows);
    p.len = static_cast<uint32_t>(len);
    p.op = static_cast<uint32_t>(rop);
    p.nchunks = split ? static_cast<uint32_t>(chunks_for(rows, len)) : 1;
    p.chunk = static_cast<uint32_t>((len + p.nchunks - 1) / p.nchunks);
    p.scale = op == ReduceOp::kMean && !split ? mean_scale : 1.0f;
    WICK_RETURN_IF_ERROR(params->write(p));
    WICK_RETURN_IF_ERROR(g.set_grid(index, rows * p.nchunks * kWorkgroup, kWorkgroup));
    if (!split) return {};
    RowParams p2{};
    p2.rows = static_cast<uint32_t>(rows);
    p2.len = p.nchunks;
    p2.op = p.op;
    p2.nchunks = 1;
    p2.chunk = p.nchunks;
    p2.scale = op == ReduceOp::kMean ? mean_scale : 1.0f;
    WICK_RETURN_IF_ERROR(params2->write(p2));
    return g.set_grid(index2, rows * kWorkgroup, kWorkgroup);
  });
}

// dims: the reduced dims as given (possibly negative); empty = all dims.
// keepdim decides the output's rank for reductions; softmax keeps the input's shape.
Status build_reduce(Graph& g, GpuTensor* in, GpuTensor* out, std::vector<int64_t> dims, bool keepdim, ReduceOp op,
                    const char* name) {
  if (in->elem == Elem::kPackedBytes || out->elem == Elem::kPackedBytes)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": byte-packed operands");
  const int64_t rank = static_cast<int64_t>(in->max_dims.size());
  if (rank > kMaxRank) return Status(ErrorCode::kNotSupported, std::string(name) + ": rank above 8");
  std::vector<bool> reduced(static_cast<size_t>(rank), dims.empty());
  for (int64_t d : dims) {
    const int64_t bound = std::max<int64_t>(rank, 1);
    if (d < -bound || d >= bound)
      return Status(ErrorCode::kInvalidProgram, std::string(name) + ": dim " + std::to_string(d) +
                                                    " out of range for rank " + std::to_string(rank));
    if (rank == 0) continue;  // a 0-d tensor reduces over nothing
    const int64_t nd = d < 0 ? d + rank : d;
    if (reduced[static_cast<size_t>(nd)] && !dims.empty() && op != ReduceOp::kSoftmax && op != ReduceOp::kLogSoftmax) {
      // PyTorch rejects repeated dims.
      int count = 0;
      for (int64_t e : dims) count += ((e < 0 ? e + rank : e) == nd);
      if (count > 1)
        return Status(ErrorCode::kInvalidProgram, std::string(name) + ": dim " + std::to_string(d) + " repeated");
    }
    reduced[static_cast<size_t>(nd)] = true;
  }
  const bool softmax = op == ReduceOp::kSoftmax || op == ReduceOp::kLogSoftmax;
  if (softmax && (!in->is_float() || !out->is_float()))
    return Status(ErrorCode::kNotSupported, std::string(name) + ": float tensors only");
  // reduce_rows gives every row (or chunk) a workgroup of 256 threads: rows shorter than that
  // (D-FINE's deformable-attention sums over 12 sampling points, 76,800 rows: 162 us each on
  // the H100) go to reduce.wgsl, which packs 256 / tpr rows a workgroup.
  uint64_t max_len = 1;
  for (size_t d = 0; d < reduced.size(); ++d)
    if (reduced[d]) max_len *= static_cast<uint64_t>(std::max<int64_t>(in->max_dims[d], 1));
  if (g.gpu_kernel_choice() && in->is_float() && out->is_float() && reduces_inner_run(in->max_dims, reduced) &&
      max_len >= kRowsMinLen) {
    const RowsOp rop = op == ReduceOp::kAmax ? RowsOp::kAmax : op == ReduceOp::kAmin ? RowsOp::kAmin
                     : op == ReduceOp::kSoftmax ? RowsOp::kSoftmax : op == ReduceOp::kLogSoftmax ? RowsOp::kLogSoftmax
                     : RowsOp::kSum;
    if (op != ReduceOp::kArgmax && op != ReduceOp::kArgmin) return build_reduce_rows(g, in, out, reduced, keepdim, op, rop, name);
  }

  // On a CPU adapter, one thread per row beats reduce.wgsl's cooperative rows, whose
  // barriers dominate there (bench/kernels/softmax/README.md). GPUs keep reduce.wgsl.
  const bool rows_kernel = softmax && g.device().adapter_info().adapter_type == "CPU";
  WICK_ASSIGN_OR_RETURN(auto pipeline, rows_kernel
                                           ? g.pipeline(gpu::PipelineKey(gpu::shaders::softmax_rows).set("wg_size", kRowsWorkgroup))
                                           : g.pipeline(gpu::PipelineKey(gpu::shaders::reduce).set("wg_size", kWorkgroup)));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(ReduceParams), name));
  gpu::Dispatch disp;
  disp.pipeline = pipeline;
  disp.bindings = {{0, in->buffer.get()}, {1, out->buffer.get()}, {2, params->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t index, g.add_dispatch(std::move(disp)));

  return g.add_step([=, &g]() -> Status {
    const std::vector<int64_t>& shape = in->dims;
    const auto strides = contiguous_strides(shape);
    std::vector<int64_t> out_shape;
    ReduceParams p{};
    p.out_n = 1;
    p.red_n = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (reduced[d]) {
        p.red_dims[p.red_rank] = static_cast<uint32_t>(shape[d]);
        p.red_strides[p.red_rank] = static_cast<uint32_t>(strides[d]);
        ++p.red_rank;
        p.red_n *= static_cast<uint32_t>(shape[d]);
        if (keepdim) out_shape.push_back(1);
      } else {
        p.kept_dims[p.kept_rank] = static_cast<uint32_t>(shape[d]);
        p.kept_strides[p.kept_rank] = static_cast<uint32_t>(strides[d]);
        ++p.kept_rank;
        p.out_n *= static_cast<uint32_t>(shape[d]);
        out_shape.push_back(shape[d]);
      }
    }
    if (softmax) out_shape = shape;
    WICK_RETURN_IF_ERROR(set_output_dims(name, out, out_shape));
    if ((op == ReduceOp::kArgmax || op == ReduceOp::kArgmin || op == ReduceOp::kAmax || op == ReduceOp::kAmin ||
         softmax) && p.red_n == 0 && p.out_n != 0)
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": reduction over an empty dimension");
    p.op = static_cast<uint32_t>(op);
    p.flags = (in->elem == Elem::kI32 ? 1u : 0u) | (out->elem == Elem::kI32 ? 4u : 0u);
    p.tpr = 1;
    while (p.tpr < p.red_n && p.tpr < kWorkgroup) p.tpr *= 2;
    // Many rows (softmax over attention scores): fewer threads per row, more rows per
    // workgroup, while the dispatch keeps >= 64k threads. Each halving drops one barrier
    // round of the combine; on SwiftShader barriers were most of a softmax's time.
    while (p.tpr > 32 && uint64_t{p.out_n} * (p.tpr / 2) >= 65536) p.tpr /= 2;
    p.scale = op == ReduceOp::kMean ? (p.red_n ? 1.0f / static_cast<float>(p.red_n) : std::numeric_limits<float>::quiet_NaN()) : 1.0f;
    WICK_RETURN_IF_ERROR(params->write(p));
    if (rows_kernel) return g.set_grid(index, p.out_n, kRowsWorkgroup);
    const uint64_t rows_per_group = kWorkgroup / p.tpr;
    const uint64_t groups = (uint64_t{p.out_n} + rows_per_group - 1) / rows_per_group;
    return g.set_grid(index, groups * kWorkgroup, kWorkgroup);
  });
}

// variant = ReduceOp.
//   sum.dim_IntList / mean.dim: [self, dims (None: all), keepdim, dtype?, out]
//   amax / amin: [self, dims, keepdim, out]
//   argmax / argmin: [self, dim (None flattens; keepdim gives all-1 dims), keepdim, out]
//   _softmax / _log_softmax: [self, dim, half_to_float, out]
Status reduce(Graph& g, const OpArgs& a) {
  const ReduceOp op = a.variant_as<ReduceOp>();
  switch (op) {
    case ReduceOp::kSoftmax: case ReduceOp::kLogSoftmax:
      return build_reduce(g, a.tensor(0), a.out(), {a.integer(1)}, true, op, a.name());
    case ReduceOp::kArgmax: case ReduceOp::kArgmin: {
      if (a.out()->is_float()) return a.invalid("output must be an integer tensor");
      std::vector<int64_t> dims;
      if (a.has(1)) dims.push_back(a.integer(1));
      return build_reduce(g, a.tensor(0), a.out(), dims, a.flag(2), op, a.name());
    }
    default: return build_reduce(g, a.tensor(0), a.out(), a.ints(1), a.flag(2), op, a.name());
  }
}

// any.dim: [self, dim, keepdim, out]. Bools are 0/1 words on the GPU, so their any is their
// max (of bools only: the max of other integers is not their any).
Status any_dim(Graph& g, const OpArgs& a) {
  const GpuTensor* in = a.tensor(0);
  if (in->vk_dtype != vk::VkDataType::BOOL || a.out()->vk_dtype != vk::VkDataType::BOOL || in->elem != Elem::kI32)
    return a.unsupported("only bool tensors");
  return build_reduce(g, a.tensor(0), a.out(), {a.integer(1)}, a.flag(2), ReduceOp::kAmax, a.name());
}

// max.dim: [self, dim, keepdim, (values, indices)] as two reductions over the same rows:
// amax, and argmax (first index of the maximum, as PyTorch's CPU kernel).
Status max_dim(Graph& g, const OpArgs& a) {
  WICK_ASSIGN_OR_RETURN(std::vector<GpuTensor*> outs, a.outputs(3));
  if (outs.size() != 2 || outs[0] == nullptr || outs[1] == nullptr) return a.invalid("expected (values, indices) outputs");
  if (outs[1]->elem != Elem::kI32) return a.unsupported("indices must be an integer tensor");
  if (outs[0]->buffer == outs[1]->buffer) return a.unsupported("values and indices share a buffer");
  const std::vector<int64_t> dims{a.integer(1)};
  WICK_RETURN_IF_ERROR(build_reduce(g, a.tensor(0), outs[0], dims, a.flag(2), ReduceOp::kAmax, a.name()));
  return build_reduce(g, a.tensor(0), outs[1], dims, a.flag(2), ReduceOp::kArgmax, a.name());
}

// topk_rank's grid target: about 4 workgroups per multiprocessor of a large GPU (the H200
// has 132), so that a single long line still spreads over the whole GPU.
constexpr uint64_t kTopkMinGroups = 512;

struct TopkParams {
  uint32_t lines, size, inner, k;
  uint32_t largest, per_line, pad0, pad1;
};
static_assert(sizeof(TopkParams) == 32);

// topk: [self, k, dim, largest, sorted, (values, indices)]. The result is always sorted
// (for sorted=False PyTorch leaves the order unspecified).
Status topk(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor* x = a.tensor(0);
  WICK_ASSIGN_OR_RETURN(std::vector<GpuTensor*> outs, a.outputs(5));
  if (outs.size() != 2 || outs[0] == nullptr || outs[1] == nullptr) return a.invalid("expected (values, indices) outputs");
  GpuTensor *values = outs[0], *indices = outs[1];
  if (!x->is_float() || !values->is_float()) return a.unsupported("float tensors only");
  if (indices->elem != Elem::kI32) return a.unsupported("indices must be an integer tensor");
  if (values->buffer == x->buffer || indices->buffer == x->buffer || values->buffer == indices->buffer)
    return a.unsupported("an output aliases another operand");
  const int32_t k_id = a.id(1);
  const int64_t dim_arg = a.integer(2);
  const bool largest = a.flag(3);
  const int64_t rank = static_cast<int64_t>(x->max_dims.size());
  const int64_t bound = std::max<int64_t>(rank, 1);
  if (dim_arg < -bound || dim_arg >= bound)
    return a.invalid("dim " + std::to_string(dim_arg) + " out of range for rank " + std::to_string(rank));
  const size_t dim = static_cast<size_t>(dim_arg < 0 ? dim_arg + bound : dim_arg);
  // Threads per workgroup: the longest line rounded up to a power of two, 32..256 (a
  // workgroup serves one line: short lines would otherwise idle most of 256 threads).
  const int64_t max_size = x->max_dims.empty() ? 1 : x->max_dims[dim];
  uint32_t wg = 32;
  while (wg < max_size && wg < kWorkgroup) wg *= 2;
  // Elements per workgroup: halved (each element's comparisons shared by more threads)
  // while the grid has fewer than kTopkMinGroups workgroups, down to 16 (topk_rank.wgsl).
  const int64_t max_lines = max_size > 0 ? x->max_numel() / max_size : 0;
  uint32_t per_group = wg;
  while (per_group > 16 && static_cast<uint64_t>(max_lines) * static_cast<uint64_t>((max_size + per_group - 1) / per_group) < kTopkMinGroups)
    per_group /= 2;
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kd, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::topk_rank).set("wg_size", wg).set("E", per_group), sizeof(TopkParams),
      {x->buffer.get(), values->buffer.get(), indices->buffer.get(), kParamsSlot}));
  ParamsBlock* params = kd.params;
  const size_t index = kd.index;
  return g.add_step([=, &g]() -> Status {
    WICK_ASSIGN_OR_RETURN(int64_t k, g.int_arg(k_id, name));  // a SymInt's value now
    const std::vector<int64_t>& shape = x->dims;
    const int64_t size = shape.empty() ? 1 : shape[dim];
    if (k < 0 || k > size)
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": k " + std::to_string(k) + " out of range for a dim of " +
                                                     std::to_string(size));
    std::vector<int64_t> out_shape = shape;
    if (!out_shape.empty()) out_shape[dim] = k;
    WICK_RETURN_IF_ERROR(set_output_dims(name, values, out_shape));
    WICK_RETURN_IF_ERROR(set_output_dims(name, indices, out_shape));
    int64_t inner = 1;
    for (size_t d = dim + 1; d < shape.size(); ++d) inner *= shape[d];
    const int64_t lines = size == 0 ? 0 : shape_numel(shape) / size;
    TopkParams p{};
    p.lines = static_cast<uint32_t>(lines);
    p.size = static_cast<uint32_t>(size);
    p.inner = static_cast<uint32_t>(std::max<int64_t>(inner, 1));
    p.k = static_cast<uint32_t>(k);
    p.largest = largest ? 1u : 0u;
    p.per_line = static_cast<uint32_t>((size + per_group - 1) / per_group);
    WICK_RETURN_IF_ERROR(params->write(p));
    const uint64_t groups = k == 0 ? 0 : uint64_t{p.lines} * p.per_line;
    return g.set_grid(index, groups * wg, wg);
  });
}

}  // namespace

void append_reduce_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.sum.dim_IntList", "T L? B * -> T", reduce, ReduceOp::kSum},
      {"aten.mean.dim", "T L? B * -> T", reduce, ReduceOp::kMean},
      {"aten.amax.default", "T L? B -> T", reduce, ReduceOp::kAmax},
      {"aten.amin.default", "T L? B -> T", reduce, ReduceOp::kAmin},
      {"aten.argmax.default", "T I? B -> T", reduce, ReduceOp::kArgmax},
      {"aten.any.dim", "T I B -> T", any_dim},
      {"aten.argmin.default", "T I? B -> T", reduce, ReduceOp::kArgmin},
      {"aten.max.dim", "T I B -> O", max_dim},
      {"aten.topk.default", "T I I B B -> O", topk},
      {"aten._softmax.default", "T I B -> T", reduce, ReduceOp::kSoftmax},
      {"aten._log_softmax.default", "T I B -> T", reduce, ReduceOp::kLogSoftmax},
  });
}

}  // namespace wick::webgpu
