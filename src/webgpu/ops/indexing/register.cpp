// Indexing: embedding, index_select, index.Tensor (one index tensor) -> index_rows.wgsl;
// gather -> gather.wgsl.
//
// Out-of-range indices are an error naming the op and the index, as in PyTorch. Where the
// check happens depends on where the index tensor comes from:
//   - a graph input (token ids, the common case): its values are on the host already, and
//     each execute checks them there before the dispatch (one pass, no readback);
//   - a constant: checked on the host once, against each execute's source size;
//   - computed on the GPU by an earlier op (dfine's gather after topk, SAM2's embedding
//     after clamp, Whisper's positional embedding after arange): the shader counts the
//     indices out of range into a two-word flag buffer (count, one offending index), which
//     the graph copies back in the same submission as the outputs and checks after it
//     (Graph::add_copy, Graph::add_after_submit). Cost: one 8-byte clear before and one small readback
//     after each execute of such a graph, none for the others.
// The shaders write 0 for an out-of-range index rather than read outside the source.
#include <array>
#include <cstring>
#include <memory>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"

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

Status check_index(const char* name, const GpuTensor* index) {
  if (index->elem != Elem::kI32 || index->vk_dtype == vk::VkDataType::BOOL)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": index tensors must be integer");
  return {};
}

std::string out_of_bounds(int64_t idx, int64_t size, const std::string& what) {
  return "index " + std::to_string(idx) + " is out of bounds for " + what + " of size " + std::to_string(size);
}

bool in_range(int64_t idx, int64_t size, bool wrap) { return idx < size && idx >= (wrap ? -size : 0); }

// Where an index tensor's values come from, and for constants the values themselves.
struct IndexSource {
  enum Kind { kGraphInput, kConstant, kComputed } kind = kComputed;
  std::vector<int64_t> constant;  // kConstant: the values, read at build time
  gpu::Buffer* flags = nullptr;   // the shader's [count, index] out-of-range flags
};

Result<std::shared_ptr<IndexSource>> index_source(Graph& g, int64_t index_id, const GpuTensor* index,
                                                  const char* name) {
  auto src = std::make_shared<IndexSource>();
  WICK_ASSIGN_OR_RETURN(src->flags, g.scratch(8, std::string(name) + " index flags"));
  if (index->constant_id >= 0) {
    WICK_ASSIGN_OR_RETURN(std::span<const uint8_t> bytes, g.constant_bytes(index_id, name));
    const bool wide = index->vk_dtype == vk::VkDataType::INT64;
    const size_t n = bytes.size() / (wide ? 8 : 4);
    for (size_t k = 0; k < n; ++k) {
      if (wide) {
        int64_t v;
        std::memcpy(&v, bytes.data() + 8 * k, 8);
        src->constant.push_back(v);
      } else {
        int32_t v;
        std::memcpy(&v, bytes.data() + 4 * k, 4);
        src->constant.push_back(v);
      }
    }
    src->kind = IndexSource::kConstant;
  } else if (g.host_input_word(index_id, 0).ok()) {
    src->kind = IndexSource::kGraphInput;
  }
  return src;
}

// The host-side check of one execute (graph inputs and constants), before the dispatch:
// each of the `count` indices must lie in [-size, size) when `wrap` (negatives count from
// the end) or in [0, size). The step that calls this adds the op name to the message.
Status check_host_indices(const Graph& g, int64_t index_id, const IndexSource& src, int64_t count, int64_t size,
                          bool wrap, const std::string& what) {
  if (src.kind == IndexSource::kComputed) return {};
  for (int64_t k = 0; k < count; ++k) {
    int64_t idx = 0;
    if (src.kind == IndexSource::kConstant) {
      if (static_cast<size_t>(k) >= src.constant.size()) break;
      idx = src.constant[static_cast<size_t>(k)];
    } else {
      Result<int64_t> v = g.host_input_word(index_id, k);
      if (!v.ok()) return {};
      idx = *v;
    }
    if (!in_range(idx, size, wrap)) return Status(ErrorCode::kInvalidArgument, out_of_bounds(idx, size, what));
  }
  return {};
}

// For computed indices: clear the flags before each execute (in the step) and check them
// after it. `size` and `what` are read when the check runs (the step keeps them current).
struct FlagCheck {
  int64_t size = 0;
  std::string what;
};

// The flags go to a mappable copy after the op's dispatch (same submission) and are read
// once the submission is done.
Status watch_flags(Graph& g, const char* name, const std::shared_ptr<IndexSource>& src,
                   const std::shared_ptr<FlagCheck>& check) {
  if (src->kind != IndexSource::kComputed) return {};
  WICK_ASSIGN_OR_RETURN(gpu::Buffer staging,
                        gpu::Buffer::create(g.device_ptr(), 8, gpu::BufferUsage::kMapRead | gpu::BufferUsage::kCopyDst,
                                            std::string(name) + " index flags readback"));
  auto readback = std::make_shared<gpu::Buffer>(std::move(staging));
  WICK_RETURN_IF_ERROR(g.add_copy(*src->flags, *readback, 8).status());
  const std::string op = name;
  g.add_after_submit([op, check, readback]() -> Status {
    uint32_t words[2] = {0, 0};
    WICK_RETURN_IF_ERROR(readback->read(words, sizeof words));
    if (words[0] == 0) return {};
    const int64_t idx = static_cast<int32_t>(words[1]);
    return Status(ErrorCode::kInvalidArgument,
                  op + ": " + out_of_bounds(idx, check->size, check->what) + " (the index was computed on the GPU; " +
                      std::to_string(words[0]) + " out of range)");
  });
  return {};
}

Status clear_flags(const IndexSource& src) {
  if (src.kind != IndexSource::kComputed) return {};
  const uint32_t zero[2] = {0, 0};
  return src.flags->write(zero, sizeof zero);
}

Status check_words(const char* name, const GpuTensor* src, const GpuTensor* out) {
  if (src->elem == Elem::kPackedBytes || out->elem != src->elem)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": source and output element types differ");
  return {};
}

// One indexing dispatch (index_rows.wgsl, gather.wgsl: bindings src, index, out, params,
// flags) with its index source and, for computed indices, the flag check after it.
struct IndexedKernel {
  KernelDispatch k;
  std::shared_ptr<IndexSource> source;
  std::shared_ptr<FlagCheck> flag_check = std::make_shared<FlagCheck>();
};

Result<IndexedKernel> add_indexed_kernel(Graph& g, const char* name, gpu::ShaderName shader, size_t params_bytes,
                                         const GpuTensor* src, int64_t index_id, const GpuTensor* index,
                                         const GpuTensor* out) {
  WICK_RETURN_IF_ERROR(check_index(name, index));
  WICK_RETURN_IF_ERROR(check_words(name, src, out));
  IndexedKernel r;
  WICK_ASSIGN_OR_RETURN(r.source, index_source(g, index_id, index, name));
  WICK_ASSIGN_OR_RETURN(r.k, add_kernel(g, name, gpu::PipelineKey(shader).set("wg_size", kWorkgroup), params_bytes,
                                        {src->buffer.get(), index->buffer.get(), out->buffer.get(), kParamsSlot,
                                         r.source->flags}));
  WICK_RETURN_IF_ERROR(watch_flags(g, name, r.source, r.flag_check));
  return r;
}

// Source viewed as [outer, S, inner] with S = src dim `dim`; output shape =
// src[:dim] + index.shape + src[dim+1:]  (embedding: dim 0 of a 2-D weight).
Status build_rows(Graph& g, const char* name, GpuTensor* src, int64_t index_id, GpuTensor* index, GpuTensor* out,
                  int64_t dim, bool wrap, bool index_is_list) {
  WICK_ASSIGN_OR_RETURN(const IndexedKernel ik,
                        add_indexed_kernel(g, name, gpu::shaders::index_rows, sizeof(RowsParams), src, index_id, index, out));
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
    WICK_RETURN_IF_ERROR(set_output_dims(name, out, shape));
    const int64_t size = sd.empty() ? 1 : sd[static_cast<size_t>(dim)];
    ik.flag_check->size = size;
    ik.flag_check->what = "dim " + std::to_string(dim);
    WICK_RETURN_IF_ERROR(check_host_indices(g, index_id, *ik.source, count, size, wrap, ik.flag_check->what));
    WICK_RETURN_IF_ERROR(clear_flags(*ik.source));
    RowsParams p{};
    p.total = static_cast<uint32_t>(outer * count * inner);
    p.inner = static_cast<uint32_t>(std::max<int64_t>(inner, 1));
    p.count = static_cast<uint32_t>(std::max<int64_t>(count, 1));
    p.src_size = static_cast<uint32_t>(sd.empty() ? 1 : sd[static_cast<size_t>(dim)]);
    p.wrap = wrap ? 1 : 0;
    return ik.k.launch(g, p, p.total, kWorkgroup);
  });
}

// [weight, indices, padding_idx, scale_grad_by_freq, sparse, out]
Status embedding(Graph& g, const OpArgs& a) {
  GpuTensor* weight = a.tensor(0);
  if (weight->rank() != 2) return a.invalid("weight must be [vocab, dim]");
  return build_rows(g, a.name(), weight, a.id(1), a.tensor(1), a.out(), 0, false, false);
}

// A dim argument normalized against `t`'s rank (a 0-D tensor has one dim).
Result<int64_t> dim_arg(const OpArgs& a, size_t i, const GpuTensor* t) {
  const int64_t rank = std::max<int64_t>(t->rank(), 1);
  const int64_t dim = normalize_dim(a.integer(i), rank);
  if (dim < 0 || dim >= rank) return a.invalid("dim out of range");
  return dim;
}

// [self, dim, index, out]
Status index_select(Graph& g, const OpArgs& a) {
  GpuTensor* self = a.tensor(0);
  WICK_ASSIGN_OR_RETURN(const int64_t dim, dim_arg(a, 1, self));
  return build_rows(g, a.name(), self, a.id(2), a.tensor(2), a.out(), dim, false, true);
}

// [self, ValueList(Tensor?...), out]: exactly one index tensor (advanced indexing on one dim).
Status index_tensor(Graph& g, const OpArgs& a) {
  GpuTensor* self = a.tensor(0);
  WICK_ASSIGN_OR_RETURN(std::vector<GpuTensor*> indices, a.tensors(1));
  GpuTensor* index = nullptr;
  int64_t dim = -1;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!indices[i]) continue;
    if (index) return a.unsupported("more than one index tensor");
    index = indices[i];
    dim = static_cast<int64_t>(i);
  }
  if (!index) return a.unsupported("no index tensor");
  if (dim >= self->rank()) return a.invalid("too many indices");
  return build_rows(g, a.name(), self, a.items(1)[static_cast<size_t>(dim)], index, a.out(), dim, true, false);
}

// [self, dim, index, sparse_grad, out]
Status gather(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *self = a.tensor(0), *index = a.tensor(2), *out = a.out();
  const int32_t index_id = a.id(2);
  WICK_ASSIGN_OR_RETURN(const int64_t dim, dim_arg(a, 1, self));
  if (self->rank() > kMaxRank) return a.invalid("rank above 8");
  WICK_ASSIGN_OR_RETURN(const IndexedKernel ik,
                        add_indexed_kernel(g, name, gpu::shaders::gather, sizeof(GatherParams), self, index_id, index, out));
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
    WICK_RETURN_IF_ERROR(set_output_dims(name, out, shape));
    ik.flag_check->size = sd[static_cast<size_t>(dim)];
    ik.flag_check->what = "dim " + std::to_string(dim);
    WICK_RETURN_IF_ERROR(check_host_indices(g, index_id, *ik.source, shape_numel(id), ik.flag_check->size, false,
                                            ik.flag_check->what));
    WICK_RETURN_IF_ERROR(clear_flags(*ik.source));
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
    return ik.k.launch(g, p, p.total, kWorkgroup);
  });
}

}  // namespace

void append_indexing_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.embedding.default", "T T * * * -> T", embedding},
      {"aten.index_select.default", "T I T -> T", index_select},
      {"aten.index.Tensor", "T V -> T", index_tensor},
      {"aten.gather.default", "T I T * -> T", gather},
  });
}

}  // namespace wick::webgpu
