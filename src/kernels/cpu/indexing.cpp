// Gathers and scatters driven by index tensors: advanced indexing (index.Tensor,
// index_put), index_select, embedding, gather. Every index is bounds-checked before use.
#include <algorithm>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"

namespace wick::cpu {
namespace {

bool is_index_dtype(ScalarType t) { return t == ScalarType::kLong || t == ScalarType::kInt; }

// Index values as int64, wrapped (negative counts from the end) and checked against `size`.
Result<std::vector<int64_t>> read_indices(const char* op, const Tensor& t, int64_t size, const char* what) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  convert_elements(t.data, t.dtype, v.data(), ScalarType::kLong, t.numel());
  for (int64_t& i : v) {
    if (i < -size || i >= size)
      return invalid_arg(op, std::string("index ") + std::to_string(i) + " is out of bounds for " + what + " of size " +
                                 std::to_string(size));
    if (i < 0) i += size;
  }
  return v;
}

// The element offsets into `self` that self[indices] (PyTorch advanced indexing) reads,
// in the order of the result.
struct AdvancedIndex {
  std::vector<int64_t> shape;    // the result's shape
  std::vector<int64_t> offsets;  // one per result element
};

// `max_elements` bounds the result before its offsets are allocated: index tensors that
// broadcast against each other ([N, 1] and [1, N]) can describe far more elements than
// any tensor of the program holds.
Result<AdvancedIndex> advanced_index(const char* op, const Tensor& self, const std::vector<Tensor*>& indices,
                                     int64_t max_elements) {
  const size_t rank = static_cast<size_t>(self.dim());
  // Per self dim: nothing (sliced) or an index tensor given as (shape, wrapped values).
  struct DimIndex {
    bool used = false;
    std::vector<int64_t> shape;
    std::vector<int64_t> values;
  };
  std::vector<DimIndex> dims(rank);
  size_t d = 0;
  for (Tensor* t : indices) {
    if (t == nullptr) {
      ++d;
      continue;
    }
    WICK_RETURN_IF_ERROR(check_tensor(op, *t, "index"));
    if (t->dtype == ScalarType::kBool || t->dtype == ScalarType::kByte) {
      // A mask covers as many dims as it has; it selects its nonzero coordinates.
      const size_t k = static_cast<size_t>(t->dim());
      if (k == 0) return not_supported(op, "0-dim boolean index");
      if (d + k > rank) return invalid_arg(op, "too many indices for a tensor of rank " + std::to_string(rank));
      for (size_t j = 0; j < k; ++j)
        if (t->sizes[j] != self.sizes[d + j])
          return invalid_arg(op, "mask " + t->shape_string() + " does not match self " + self.shape_string() +
                                     " at dim " + std::to_string(d + j));
      std::vector<uint8_t> mask(static_cast<size_t>(t->numel()));
      convert_elements(t->data, t->dtype, mask.data(), ScalarType::kBool, t->numel());
      std::vector<int64_t> mstrides = contiguous_strides(t->sizes);
      for (size_t j = 0; j < k; ++j) dims[d + j].used = true;
      for (size_t lin = 0; lin < mask.size(); ++lin) {
        if (!mask[lin]) continue;
        for (size_t j = 0; j < k; ++j)
          dims[d + j].values.push_back((static_cast<int64_t>(lin) / mstrides[j]) % t->sizes[j]);
      }
      for (size_t j = 0; j < k; ++j) dims[d + j].shape = {static_cast<int64_t>(dims[d + j].values.size())};
      d += k;
    } else if (is_index_dtype(t->dtype)) {
      if (d >= rank) return invalid_arg(op, "too many indices for a tensor of rank " + std::to_string(rank));
      dims[d].used = true;
      dims[d].shape = t->sizes;
      WICK_ASSIGN_OR_RETURN(dims[d].values, read_indices(op, *t, self.sizes[d], ("dim " + std::to_string(d)).c_str()));
      ++d;
    } else {
      return invalid_arg(op, "indices must be int64, int32, bool or uint8 tensors, got " + dtype_str(t->dtype));
    }
  }
  if (d > rank) return invalid_arg(op, "too many indices for a tensor of rank " + std::to_string(rank));

  std::vector<int64_t> bshape;
  std::vector<size_t> indexed;
  for (size_t i = 0; i < rank; ++i) {
    if (!dims[i].used) continue;
    indexed.push_back(i);
    WICK_ASSIGN_OR_RETURN(bshape, broadcast_shapes(op, bshape, dims[i].shape));
  }
  AdvancedIndex r;
  std::vector<int64_t> self_strides = contiguous_strides(self.sizes);
  if (indexed.empty()) {  // nothing indexed: a plain copy
    r.shape = self.sizes;
    r.offsets.resize(static_cast<size_t>(self.numel()));
    for (size_t i = 0; i < r.offsets.size(); ++i) r.offsets[i] = static_cast<int64_t>(i);
    return r;
  }
  // Adjacent indexed dims put the broadcast index shape where they were; otherwise it goes
  // first. Each result dim reads a sliced self dim (>= 0) or broadcast-index dim j (-1 - j).
  const bool adjacent = indexed.back() - indexed.front() + 1 == indexed.size();
  std::vector<int64_t> source;
  auto push_index_dims = [&] {
    for (size_t j = 0; j < bshape.size(); ++j) {
      r.shape.push_back(bshape[j]);
      source.push_back(-1 - static_cast<int64_t>(j));
    }
  };
  if (!adjacent) push_index_dims();
  for (size_t i = 0; i < rank; ++i) {
    if (adjacent && i == indexed.front()) push_index_dims();
    if (dims[i].used) continue;
    r.shape.push_back(self.sizes[i]);
    source.push_back(static_cast<int64_t>(i));
  }
  std::vector<std::vector<int64_t>> istrides;
  for (size_t i : indexed) istrides.push_back(broadcast_strides(dims[i].shape, bshape));

  const int64_t total = shape_numel(r.shape);
  if (total > max_elements)
    return invalid_arg(op, "indexing result " + shape_to_string(r.shape) + " has more elements than " +
                               std::to_string(max_elements) + ", the most its tensors allow");
  r.offsets.resize(static_cast<size_t>(total));
  std::vector<int64_t> coord(r.shape.size(), 0);
  for (int64_t e = 0; e < total; ++e) {
    int64_t off = 0;
    for (size_t k = 0; k < source.size(); ++k)
      if (source[k] >= 0) off += coord[k] * self_strides[static_cast<size_t>(source[k])];
    for (size_t q = 0; q < indexed.size(); ++q) {
      int64_t pos = 0;
      for (size_t k = 0; k < source.size(); ++k)
        if (source[k] < 0) pos += coord[k] * istrides[q][static_cast<size_t>(-1 - source[k])];
      off += dims[indexed[q]].values[static_cast<size_t>(pos)] * self_strides[indexed[q]];
    }
    r.offsets[static_cast<size_t>(e)] = off;
    for (size_t k = coord.size(); k-- > 0;) {
      if (++coord[k] < r.shape[k]) break;
      coord[k] = 0;
    }
  }
  return r;
}

// dst[i] = src[offsets[i]] for elements of `size` bytes.
void gather_bytes(const void* src, void* dst, const std::vector<int64_t>& offsets, size_t size) {
  const uint8_t* s = static_cast<const uint8_t*>(src);
  uint8_t* d = static_cast<uint8_t*>(dst);
  for (size_t i = 0; i < offsets.size(); ++i) std::memcpy(d + i * size, s + static_cast<size_t>(offsets[i]) * size, size);
}

}  // namespace

// index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out)
Status index_tensor_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::index.Tensor_out";
  Tensor *self{}, *out{};
  std::vector<Tensor*> indices;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, checked_arg(self, "self"), optional_arg(indices, "indices"),
                                 arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *self, "self", *out, "out"));
  // out must hold the result: no more elements than its storage.
  const int64_t out_room = static_cast<int64_t>(out->capacity / std::max<size_t>(element_size(out->dtype), 1));
  WICK_ASSIGN_OR_RETURN(AdvancedIndex ix, advanced_index(op, *self, indices, out_room));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, ix.shape));
  const size_t esize = element_size(self->dtype);
  if (out->data == self->data) {  // never read what this call already wrote
    std::vector<uint8_t> tmp(ix.offsets.size() * esize);
    gather_bytes(self->data, tmp.data(), ix.offsets, esize);
    if (!tmp.empty()) std::memcpy(out->data, tmp.data(), tmp.size());
  } else {
    gather_bytes(self->data, out->data, ix.offsets, esize);
  }
  return {};
}

// index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, *, Tensor(a!) out)
Status index_put_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::index_put.out";
  Tensor *self{}, *vals{}, *out{};
  std::vector<Tensor*> indices;
  bool accumulate = false;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 6, checked_arg(self, "self"), optional_arg(indices, "indices"),
                                 checked_arg(vals, "values"), arg(accumulate, "accumulate"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *self, "self", *vals, "values"));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *self, "self", *out, "out"));
  // Each result element writes one element of self with one of values; more writes than
  // self, values and every index tensor have elements can only come from index tensors
  // broadcast against each other, and would be repeated writes.
  int64_t room = std::max(self->numel(), vals->numel());
  for (const Tensor* t : indices)
    if (t != nullptr) room = std::max(room, t->numel());
  WICK_ASSIGN_OR_RETURN(AdvancedIndex ix, advanced_index(op, *self, indices, room));
  // Leading 1s of `values` beyond the result's rank are dropped, as PyTorch's setitem does.
  std::vector<int64_t> vshape = vals->sizes;
  while (vshape.size() > ix.shape.size() && vshape.front() == 1) vshape.erase(vshape.begin());
  auto bshape = broadcast_shapes(op, vshape, ix.shape);
  if (!bshape.ok() || !shape_equal(bshape.value(), ix.shape))
    return invalid_arg(op, "values " + vals->shape_string() + " cannot be broadcast to the indexing result " +
                               shape_to_string(ix.shape));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, self->sizes));
  // Stage values first: out may share storage with self or values.
  std::vector<uint8_t> staged(static_cast<size_t>(vals->nbytes()));
  if (!staged.empty()) std::memcpy(staged.data(), vals->data, staged.size());
  if (out->data != self->data && self->nbytes() > 0) std::memmove(out->data, self->data, self->nbytes());
  if (ix.offsets.empty()) return {};
  std::array<std::vector<int64_t>, 1> st{broadcast_strides(vshape, ix.shape)};
  visit_dtype(self->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* v = reinterpret_cast<const T*>(staged.data());
    T* o = out->data_as<T>();
    for_each_broadcast<1>(ix.shape, st, [&](int64_t i, const std::array<int64_t, 1>& off) {
      T& dst = o[ix.offsets[static_cast<size_t>(i)]];
      if (accumulate) {
        if constexpr (std::is_same_v<T, bool>) dst = dst || v[off[0]];
        else dst = convert<T>(wrap_add(to_arith(dst), to_arith(v[off[0]])));
      } else {
        dst = v[off[0]];
      }
    });
  });
  return {};
}

// index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out)
Status index_select_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::index_select.out";
  Tensor *self{}, *index{}, *out{};
  int64_t dim = 0;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, checked_arg(self, "self"), arg(dim, "dim"),
                                 checked_arg(index, "index"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *self, "self", *out, "out"));
  if (!is_index_dtype(index->dtype)) return invalid_arg(op, "index must be int64 or int32, got " + dtype_str(index->dtype));
  if (index->dim() > 1) return invalid_arg(op, "index must be 0-D or 1-D, got " + index->shape_string());
  WICK_ASSIGN_OR_RETURN(int64_t d, normalize_dim(op, dim, self->dim()));
  const int64_t size = self->dim() == 0 ? 1 : self->size(static_cast<int>(d));
  WICK_ASSIGN_OR_RETURN(auto idx, read_indices(op, *index, size, "dim"));
  std::vector<int64_t> shape = self->sizes;
  if (!shape.empty()) shape[static_cast<size_t>(d)] = static_cast<int64_t>(idx.size());
  else if (idx.size() != 1) return invalid_arg(op, "a 0-dim self takes exactly one index");
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  DimSplit s = split_at(self->sizes, d);
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<size_t>(out->numel()));
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t j : idx)
      for (int64_t i = 0; i < s.inner; ++i) offsets.push_back((o * s.size + j) * s.inner + i);
  gather_bytes(self->data, out->data, offsets, element_size(self->dtype));
  return {};
}

// embedding.out(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False,
//   bool sparse=False, *, Tensor(a!) out)
Status embedding_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::embedding.out";
  Tensor *weight{}, *indices{}, *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 7, checked_arg(weight, "weight"), checked_arg(indices, "indices"),
                                 skip(), skip(), skip(), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *weight, "weight", *out, "out"));
  if (weight->dim() != 2) return invalid_arg(op, "weight rank " + std::to_string(weight->dim()) + ", expected 2");
  if (!is_index_dtype(indices->dtype))
    return invalid_arg(op, "indices must be int64 or int32, got " + dtype_str(indices->dtype));
  WICK_ASSIGN_OR_RETURN(auto idx, read_indices(op, *indices, weight->size(0), "the embedding table"));
  std::vector<int64_t> shape = indices->sizes;
  shape.push_back(weight->size(1));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  const size_t row = static_cast<size_t>(weight->size(1)) * element_size(weight->dtype);
  const uint8_t* w = static_cast<const uint8_t*>(weight->data);
  uint8_t* o = static_cast<uint8_t*>(out->data);
  for (size_t i = 0; i < idx.size() && row > 0; ++i) std::memcpy(o + i * row, w + static_cast<size_t>(idx[i]) * row, row);
  return {};
}

// gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out)
Status gather_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::gather.out";
  Tensor *self{}, *index{}, *out{};
  int64_t dim = 0;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 6, checked_arg(self, "self"), arg(dim, "dim"),
                                 checked_arg(index, "index"), skip(), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *self, "self", *out, "out"));
  if (index->dtype != ScalarType::kLong) return invalid_arg(op, "index must be int64, got " + dtype_str(index->dtype));
  WICK_ASSIGN_OR_RETURN(int64_t d, normalize_dim(op, dim, self->dim()));
  const int rank = self->dim();
  if (index->dim() != rank && !(rank == 0 && index->dim() <= 1))
    return invalid_arg(op, "index rank " + std::to_string(index->dim()) + " differs from self rank " + std::to_string(rank));
  for (int i = 0; i < rank; ++i)
    if (i != d && index->size(i) > self->size(i))
      return invalid_arg(op, "index " + index->shape_string() + " is larger than self " + self->shape_string() +
                                 " outside dim " + std::to_string(d));
  const int64_t size = rank == 0 ? 1 : self->size(static_cast<int>(d));
  WICK_ASSIGN_OR_RETURN(auto idx, read_indices(op, *index, size, "the gathered dim"));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, index->sizes));
  std::vector<int64_t> self_st = contiguous_strides(self->sizes);
  std::vector<int64_t> offsets(idx.size());
  std::vector<int64_t> coord(index->sizes.size(), 0);
  for (size_t e = 0; e < idx.size(); ++e) {
    int64_t off = 0;
    for (int i = 0; i < rank; ++i) off += (i == d ? idx[e] : coord[static_cast<size_t>(i)]) * self_st[static_cast<size_t>(i)];
    offsets[e] = off;
    for (size_t k = coord.size(); k-- > 0;) {
      if (++coord[k] < index->sizes[k]) break;
      coord[k] = 0;
    }
  }
  gather_bytes(self->data, out->data, offsets, element_size(self->dtype));
  return {};
}

}  // namespace wick::cpu
