// Reductions (sum, mean, amax, amin, argmax, argmin over any set of dims) and softmax /
// log_softmax (numerically stable, along one dim) -> reduce.wgsl; softmax on CPU adapters
// (SwiftShader) -> softmax_rows.wgsl, one barrier-free thread per row.
#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
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

Status arg_count(const std::vector<int32_t>& args, size_t expected, const char* name) {
  if (args.size() != expected)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": expected " + std::to_string(expected) +
                                                  " arguments, got " + std::to_string(args.size()));
  return {};
}

// dims: the reduced dims as given (possibly negative); empty = all dims.
// keepdim decides the output's rank for reductions; softmax keeps the input's shape.
Status build_reduce(Graph& g, int32_t in_id, int32_t out_id, std::vector<int64_t> dims, bool keepdim, ReduceOp op,
                    const char* name) {
  WICK_ASSIGN_OR_RETURN(GpuTensor * in, g.tensor(in_id, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(out_id, name));
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
    if (out_shape.size() != out->max_dims.size() || shape_numel(out_shape) > out->max_numel())
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": result shape " + shape_to_string(out_shape) +
                                                     " does not fit the output " + shape_to_string(out->max_dims));
    if ((op == ReduceOp::kArgmax || op == ReduceOp::kArgmin || op == ReduceOp::kAmax || op == ReduceOp::kAmin ||
         softmax) && p.red_n == 0 && p.out_n != 0)
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": reduction over an empty dimension");
    out->dims = out_shape;
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

// sum.dim_IntList / mean.dim: [self, dims(IntList|Null), keepdim, dtype?, out]
Status sum_like(Graph& g, const std::vector<int32_t>& args, ReduceOp op, const char* name) {
  WICK_RETURN_IF_ERROR(arg_count(args, 5, name));
  std::vector<int64_t> dims;
  if (!g.is_none(args[1])) {
    WICK_ASSIGN_OR_RETURN(dims, g.int_list(args[1], name));
  }
  WICK_ASSIGN_OR_RETURN(bool keepdim, g.bool_arg(args[2], name));
  return build_reduce(g, args[0], args[4], dims, keepdim, op, name);
}
Status sum_dim(Graph& g, const std::vector<int32_t>& a) { return sum_like(g, a, ReduceOp::kSum, "aten.sum.dim_IntList"); }
Status mean_dim(Graph& g, const std::vector<int32_t>& a) { return sum_like(g, a, ReduceOp::kMean, "aten.mean.dim"); }

// amax / amin: [self, dims, keepdim, out]
Status amax_like(Graph& g, const std::vector<int32_t>& args, ReduceOp op, const char* name) {
  WICK_RETURN_IF_ERROR(arg_count(args, 4, name));
  std::vector<int64_t> dims;
  if (!g.is_none(args[1])) {
    WICK_ASSIGN_OR_RETURN(dims, g.int_list(args[1], name));
  }
  WICK_ASSIGN_OR_RETURN(bool keepdim, g.bool_arg(args[2], name));
  return build_reduce(g, args[0], args[3], dims, keepdim, op, name);
}
Status amax(Graph& g, const std::vector<int32_t>& a) { return amax_like(g, a, ReduceOp::kAmax, "aten.amax.default"); }
Status amin(Graph& g, const std::vector<int32_t>& a) { return amax_like(g, a, ReduceOp::kAmin, "aten.amin.default"); }

// argmax / argmin: [self, dim(Int|Null), keepdim, out]; Null flattens (keepdim gives all-1 dims).
Status argmax_like(Graph& g, const std::vector<int32_t>& args, ReduceOp op, const char* name) {
  WICK_RETURN_IF_ERROR(arg_count(args, 4, name));
  std::vector<int64_t> dims;
  if (!g.is_none(args[1])) {
    WICK_ASSIGN_OR_RETURN(int64_t d, g.int_arg(args[1], name));
    dims.push_back(d);
  }
  WICK_ASSIGN_OR_RETURN(bool keepdim, g.bool_arg(args[2], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(args[3], name));
  if (out->is_float()) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": output must be an integer tensor");
  return build_reduce(g, args[0], args[3], dims, keepdim, op, name);
}
Status argmax(Graph& g, const std::vector<int32_t>& a) { return argmax_like(g, a, ReduceOp::kArgmax, "aten.argmax.default"); }
Status argmin(Graph& g, const std::vector<int32_t>& a) { return argmax_like(g, a, ReduceOp::kArgmin, "aten.argmin.default"); }

// any.dim: [self, dim, keepdim, out]. Bools are 0/1 words on the GPU, so any is their max
// (of bools only: the max of other integers is not their any);
// PyTorch's any over an empty dimension is false, which a max cannot give: refused.
Status any_dim(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.any.dim";
  WICK_RETURN_IF_ERROR(arg_count(args, 4, name));
  WICK_ASSIGN_OR_RETURN(int64_t d, g.int_arg(args[1], name));
  WICK_ASSIGN_OR_RETURN(bool keepdim, g.bool_arg(args[2], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * in, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(args[3], name));
  if (in->vk_dtype != vk::VkDataType::BOOL || out->vk_dtype != vk::VkDataType::BOOL || in->elem != Elem::kI32)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": only bool tensors (value " +
                                                std::to_string(args[0]) + ")");
  return build_reduce(g, args[0], args[3], {d}, keepdim, ReduceOp::kAmax, name);
}

// _softmax / _log_softmax: [self, dim, half_to_float, out]
Status softmax_like(Graph& g, const std::vector<int32_t>& args, ReduceOp op, const char* name) {
  WICK_RETURN_IF_ERROR(arg_count(args, 4, name));
  WICK_ASSIGN_OR_RETURN(int64_t d, g.int_arg(args[1], name));
  return build_reduce(g, args[0], args[3], {d}, true, op, name);
}
Status softmax(Graph& g, const std::vector<int32_t>& a) { return softmax_like(g, a, ReduceOp::kSoftmax, "aten._softmax.default"); }
Status log_softmax(Graph& g, const std::vector<int32_t>& a) {
  return softmax_like(g, a, ReduceOp::kLogSoftmax, "aten._log_softmax.default");
}

}  // namespace

void append_reduce_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.sum.dim_IntList", sum_dim},
      {"aten.mean.dim", mean_dim},
      {"aten.amax.default", amax},
      {"aten.amin.default", amin},
      {"aten.argmax.default", argmax},
      {"aten.any.dim", any_dim},
      {"aten.argmin.default", argmin},
      {"aten._softmax.default", softmax},
      {"aten._log_softmax.default", log_softmax},
  });
}

}  // namespace wick::webgpu
