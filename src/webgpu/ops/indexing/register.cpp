// Indexing: embedding, index_select, index.Tensor (one index tensor) -> index_rows.wgsl;
// gather -> gather.wgsl.
//
// Out-of-range indices are an error, as in PyTorch. When the index tensor is a graph input
// (token ids, the common case) its values are on the host already: each execute checks them
// there before the dispatch, at the cost of one pass over the indices and no GPU readback.
// Indices computed on the GPU by an earlier op are not checked (that would need a readback
// or an error-flag buffer read after the submit); the shaders then write 0 for them rather
// than read outside the source buffer.
#include <array>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"

namespace wick::webgpu {

namespace {

struct RowsParams {
  uint32_t total, inner, count, src_size;
  uint32_t wrap, pad0, pad1, pad2;
};

constexpr int kMaxRank = 8;
struct GatherParams {
  uint32_t total, rank, dim, src_size;
  std::array<uint32_t, kMaxRank> index_dims, src_strides;
};
static_assert(sizeof(GatherParams) == 80);

constexpr uint32_t kWorkgroup = 256;

Status arg_count(const char* name, const std::vector<int32_t>& args, size_t n) {
  if (args.size() != n)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": expected " + std::to_string(n) + " arguments, got " +
                                                  std::to_string(args.size()));
  return {};
}

Status check_index(const char* name, const GpuTensor* index) {
  if (index->elem != Elem::kI32 || index->vk_dtype == vk::VkDataType::BOOL)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": index tensors must be integer");
  return {};
}

// The host values of graph input `index_id` each lie in [-size, size) when `wrap` (negatives
// count from the end) or in [0, size) otherwise; anything else names the op and the index.
// An index that is no graph input cannot be checked here (see the top of the file). The
// step that calls this adds the op name to the message.
Status check_host_indices(const Graph& g, int64_t index_id, int64_t count, int64_t size, bool wrap,
                          const std::string& what) {
  for (int64_t k = 0; k < count; ++k) {
    Result<int64_t> v = g.host_input_word(index_id, k);
    if (!v.ok()) return {};  // not a graph input
    const int64_t idx = *v;
    if (idx >= size || idx < (wrap ? -size : 0))
      return Status(ErrorCode::kInvalidArgument, "index " + std::to_string(idx) +
                                                     " is out of bounds for " + what + " of size " +
                                                     std::to_string(size));
  }
  return {};
}

Status check_words(const char* name, const GpuTensor* src, const GpuTensor* out) {
  if (src->elem == Elem::kPackedBytes || out->elem != src->elem)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": source and output element types differ");
  return {};
}

// Source viewed as [outer, S, inner] with S = src dim `dim`; output shape =
// src[:dim] + index.shape + src[dim+1:]  (embedding: dim 0 of a 2-D weight).
Status build_rows(Graph& g, const char* name, GpuTensor* src, int64_t index_id, GpuTensor* index, GpuTensor* out,
                  int64_t dim, bool wrap, bool index_is_list) {
  WICK_RETURN_IF_ERROR(check_index(name, index));
  WICK_RETURN_IF_ERROR(check_words(name, src, out));
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(gpu::PipelineKey("index_rows").set("wg_size", kWorkgroup)));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(RowsParams), name));
  gpu::Dispatch d;
  d.pipeline = pipeline;
  d.bindings = {{0, src->buffer.get()}, {1, index->buffer.get()}, {2, out->buffer.get()}, {3, params->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t at, g.add_dispatch(std::move(d)));
  return g.add_step([=, &g]() -> Status {
    const auto& sd = src->dims;
    if (dim < 0 || dim >= static_cast<int64_t>(sd.size()))
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": dim out of range for " + shape_to_string(sd));
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < dim; ++i) outer *= sd[static_cast<size_t>(i)];
    for (size_t i = static_cast<size_t>(dim) + 1; i < sd.size(); ++i) inner *= sd[i];
    const int64_t count = index->numel();
    std::vector<int64_t> shape(sd.begin(), sd.begin() + dim);
    if (index_is_list) {
      if (index->rank() > 1)
        return Status(ErrorCode::kInvalidArgument, std::string(name) + ": index must be 0-D or 1-D");
      shape.push_back(count);
    } else {
      shape.insert(shape.end(), index->dims.begin(), index->dims.end());
    }
    shape.insert(shape.end(), sd.begin() + dim + 1, sd.end());
    if (index_is_list && sd.empty()) shape.clear();
    if (shape.size() != out->max_dims.size() || shape_numel(shape) > out->max_numel())
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": result " + shape_to_string(shape) +
                                                     " does not fit the output " + shape_to_string(out->max_dims));
    WICK_RETURN_IF_ERROR(check_host_indices(g, index_id, count, sd.empty() ? 1 : sd[static_cast<size_t>(dim)],
                                            wrap, "dim " + std::to_string(dim)));
    out->dims = shape;
    RowsParams p{};
    p.total = static_cast<uint32_t>(outer * count * inner);
    p.inner = static_cast<uint32_t>(std::max<int64_t>(inner, 1));
    p.count = static_cast<uint32_t>(std::max<int64_t>(count, 1));
    p.src_size = static_cast<uint32_t>(sd.empty() ? 1 : sd[static_cast<size_t>(dim)]);
    p.wrap = wrap ? 1 : 0;
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(at, p.total, kWorkgroup);
  });
}

// [weight, indices, padding_idx, scale_grad_by_freq, sparse, out]
Status embedding(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.embedding.default";
  WICK_RETURN_IF_ERROR(arg_count(name, args, 6));
  WICK_ASSIGN_OR_RETURN(GpuTensor * weight, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * indices, g.tensor(args[1], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(args[5], name));
  if (weight->rank() != 2) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": weight must be [vocab, dim]");
  return build_rows(g, name, weight, args[1], indices, out, 0, false, false);
}

// [self, dim, index, out]
Status index_select(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.index_select.default";
  WICK_RETURN_IF_ERROR(arg_count(name, args, 4));
  WICK_ASSIGN_OR_RETURN(GpuTensor * self, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(int64_t dim, g.int_arg(args[1], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * index, g.tensor(args[2], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(args[3], name));
  const int64_t rank = std::max<int64_t>(self->rank(), 1);
  dim = normalize_dim(dim, rank);
  if (dim < 0 || dim >= rank) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": dim out of range");
  return build_rows(g, name, self, args[2], index, out, dim, false, true);
}

// [self, ValueList(Tensor?...), out]: exactly one index tensor (advanced indexing on one dim).
Status index_tensor(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.index.Tensor";
  WICK_RETURN_IF_ERROR(arg_count(name, args, 3));
  WICK_ASSIGN_OR_RETURN(GpuTensor * self, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(auto items, g.value_list(args[1], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(args[2], name));
  GpuTensor* index = nullptr;
  int64_t dim = -1;
  for (size_t i = 0; i < items.size(); ++i) {
    if (g.is_none(items[i])) continue;
    if (index) return Status(ErrorCode::kNotSupported, std::string(name) + ": more than one index tensor");
    WICK_ASSIGN_OR_RETURN(index, g.tensor(items[i], name));
    dim = static_cast<int64_t>(i);
  }
  if (!index) return Status(ErrorCode::kNotSupported, std::string(name) + ": no index tensor");
  if (dim >= self->rank()) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": too many indices");
  return build_rows(g, name, self, items[static_cast<size_t>(dim)], index, out, dim, true, false);
}

// [self, dim, index, sparse_grad, out]
Status gather(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.gather.default";
  WICK_RETURN_IF_ERROR(arg_count(name, args, 5));
  WICK_ASSIGN_OR_RETURN(GpuTensor * self, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(int64_t dim, g.int_arg(args[1], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * index, g.tensor(args[2], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(args[4], name));
  WICK_RETURN_IF_ERROR(check_index(name, index));
  WICK_RETURN_IF_ERROR(check_words(name, self, out));
  const int64_t rank = std::max<int64_t>(self->rank(), 1);
  dim = normalize_dim(dim, rank);
  if (dim < 0 || dim >= rank || self->rank() > kMaxRank)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": dim out of range or rank above 8");
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(gpu::PipelineKey("gather").set("wg_size", kWorkgroup)));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(GatherParams), name));
  gpu::Dispatch d;
  d.pipeline = pipeline;
  d.bindings = {{0, self->buffer.get()}, {1, index->buffer.get()}, {2, out->buffer.get()}, {3, params->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t at, g.add_dispatch(std::move(d)));
  return g.add_step([=, &g]() -> Status {
    std::vector<int64_t> sd = self->dims, id = index->dims;
    if (sd.empty()) sd = {1};
    if (id.empty()) id = {1};
    if (id.size() != sd.size())
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": index rank differs from the input rank");
    for (size_t i = 0; i < sd.size(); ++i)
      if (static_cast<int64_t>(i) != dim && id[i] > sd[i])
        return Status(ErrorCode::kInvalidArgument, std::string(name) + ": index " + shape_to_string(index->dims) +
                                                       " larger than the input " + shape_to_string(self->dims));
    const std::vector<int64_t>& shape = index->dims;
    if (shape.size() != out->max_dims.size() || shape_numel(shape) > out->max_numel())
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": result " + shape_to_string(shape) +
                                                     " does not fit the output " + shape_to_string(out->max_dims));
    WICK_RETURN_IF_ERROR(check_host_indices(g, args[2], shape_numel(id), sd[static_cast<size_t>(dim)], false,
                                            "dim " + std::to_string(dim)));
    out->dims = shape;
    GatherParams p{};
    p.total = static_cast<uint32_t>(shape_numel(shape));
    p.rank = static_cast<uint32_t>(sd.size());
    p.dim = static_cast<uint32_t>(dim);
    p.src_size = static_cast<uint32_t>(sd[static_cast<size_t>(dim)]);
    const auto strides = contiguous_strides(sd);
    for (size_t i = 0; i < sd.size(); ++i) {
      p.index_dims[i] = static_cast<uint32_t>(id[i]);
      p.src_strides[i] = static_cast<uint32_t>(strides[i]);
    }
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(at, p.total, kWorkgroup);
  });
}

}  // namespace

void append_indexing_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.embedding.default", embedding},
      {"aten.index_select.default", index_select},
      {"aten.index.Tensor", index_tensor},
      {"aten.gather.default", gather},
  });
}

}  // namespace wick::webgpu
