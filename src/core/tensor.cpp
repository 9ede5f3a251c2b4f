#include "core/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace wick {

Result<AlignedBuffer> AlignedBuffer::allocate(size_t size, const std::string& what) {
  if (size > SIZE_MAX - 63)
    return Status(ErrorCode::kOutOfResources, what + ": " + std::to_string(size) + " bytes cannot be allocated");
  size_t rounded = (size + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  void* p = std::aligned_alloc(64, rounded);
  if (p == nullptr)
    return Status(ErrorCode::kOutOfResources,
                  what + ": out of memory for " + std::to_string(size) + " bytes");
  std::memset(p, 0, rounded);
  AlignedBuffer b;
  b.data_.reset(static_cast<uint8_t*>(p));
  b.size_ = size;
  return b;
}

Result<std::shared_ptr<AlignedBuffer>> AlignedBuffer::allocate_shared(size_t size, const std::string& what) {
  WICK_ASSIGN_OR_RETURN(AlignedBuffer b, allocate(size, what));
  return std::make_shared<AlignedBuffer>(std::move(b));
}

void AlignedBuffer::Free::operator()(uint8_t* p) const { std::free(p); }

int64_t shape_numel(std::span<const int64_t> shape) {
  bool empty = false;
  for (int64_t s : shape) {
    if (s < 0) return -1;
    empty = empty || s == 0;
  }
  if (empty) return 0;
  int64_t n = 1;
  for (int64_t s : shape) {
    if (n > INT64_MAX / s) return INT64_MAX;
    n *= s;
  }
  return n;
}

std::optional<uint64_t> checked_nbytes(ScalarType dtype, std::span<const int64_t> shape, uint64_t limit) {
  const int64_t numel = shape_numel(shape);
  if (numel < 0 || numel == INT64_MAX) return std::nullopt;  // INT64_MAX: saturated
  const uint64_t esize = element_size(dtype);
  if (static_cast<uint64_t>(numel) > limit / std::max<uint64_t>(esize, 1)) return std::nullopt;
  return static_cast<uint64_t>(numel) * esize;
}

std::string shape_to_string(std::span<const int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

int64_t Tensor::numel() const { return shape_numel(sizes); }

bool Tensor::is_contiguous() const {
  for (size_t i = 0; i < dim_order.size(); ++i)
    if (dim_order[i] != i) return false;
  return true;
}

std::vector<int64_t> Tensor::strides() const {
  std::vector<int64_t> st(sizes.size(), 1);
  if (dim_order.size() != sizes.size()) {  // treat as contiguous
    for (int i = dim() - 2; i >= 0; --i) st[i] = st[i + 1] * sizes[i + 1];
    return st;
  }
  int64_t acc = 1;
  for (int i = dim() - 1; i >= 0; --i) {
    size_t d = dim_order[static_cast<size_t>(i)];
    st[d] = acc;
    acc *= sizes[d];
  }
  return st;
}

Status Tensor::resize(std::span<const int64_t> new_sizes) {
  if (new_sizes.size() != sizes.size())
    return Status(ErrorCode::kInvalidArgument, "cannot resize a rank-" + std::to_string(sizes.size()) +
                                                   " tensor to rank " + std::to_string(new_sizes.size()) +
                                                   " " + shape_to_string(new_sizes));
  bool same = true;
  for (size_t i = 0; i < new_sizes.size(); ++i) {
    if (new_sizes[i] < 0) return Status(ErrorCode::kInvalidArgument, "negative size in " + shape_to_string(new_sizes));
    same = same && new_sizes[i] == sizes[i];
  }
  if (same) return {};
  if (dynamism == ShapeDynamism::kStatic)
    return Status(ErrorCode::kInvalidArgument, "static tensor of shape " + shape_string() +
                                                   " cannot take shape " + shape_to_string(new_sizes));
  for (size_t i = 0; i < new_sizes.size() && i < max_sizes.size(); ++i)
    if (new_sizes[i] > max_sizes[i])
      return Status(ErrorCode::kInvalidArgument, "shape " + shape_to_string(new_sizes) +
                                                     " exceeds the upper bound " + shape_to_string(max_sizes));
  if (!checked_nbytes(dtype, new_sizes, capacity)) {
    auto need = checked_nbytes(dtype, new_sizes);
    return Status(ErrorCode::kInvalidArgument, "shape " + shape_to_string(new_sizes) + " needs " +
                                                   (need ? std::to_string(*need) : std::string("over 2^64")) +
                                                   " bytes, storage holds " + std::to_string(capacity));
  }
  sizes.assign(new_sizes.begin(), new_sizes.end());
  return {};
}

Result<Tensor> Tensor::allocate(ScalarType dtype, std::vector<int64_t> sizes) {
  const std::optional<uint64_t> need = checked_nbytes(dtype, sizes, SIZE_MAX);
  if (!need)
    return Status(ErrorCode::kInvalidArgument, std::string(dtype_name(dtype)) + shape_to_string(sizes) +
                                                   ": a negative size, or more bytes than memory holds");
  Tensor t;
  t.dtype = dtype;
  WICK_ASSIGN_OR_RETURN(t.owned, AlignedBuffer::allocate_shared(static_cast<size_t>(*need),
                                                                "tensor " + std::string(dtype_name(dtype)) +
                                                                    shape_to_string(sizes)));
  t.max_sizes = sizes;
  t.sizes = std::move(sizes);
  t.dim_order.resize(t.sizes.size());
  for (size_t i = 0; i < t.dim_order.size(); ++i) t.dim_order[i] = static_cast<uint8_t>(i);
  t.data = t.owned->data();
  t.capacity = t.owned->size();
  return t;
}

Tensor Tensor::make_owned(ScalarType dtype, std::vector<int64_t> sizes) {
  return allocate(dtype, std::move(sizes)).value();
}

std::string Tensor::shape_string() const { return shape_to_string(sizes); }

}  // namespace wick
