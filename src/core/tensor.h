// A tensor as the runtime sees it: dtype, current shape, capacity, and a data pointer
// that may point into the program file (constants), a planned arena (activations) or
// storage the tensor owns (unplanned inputs, kernel scratch).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"

namespace wick {

enum class ShapeDynamism : uint8_t { kStatic = 0, kDynamicBound = 1, kDynamicUnbound = 2 };

// 64-byte aligned, zero-initialised byte storage. Sizes come from files and callers, so
// making one is a Result (OutOfResources when the allocator says no), never bad_alloc.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  // `size` zeroed bytes; `what` names them in the error ("planned buffer 1").
  static Result<AlignedBuffer> allocate(size_t size, const std::string& what = "buffer");
  static Result<std::shared_ptr<AlignedBuffer>> allocate_shared(size_t size, const std::string& what = "buffer");
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  std::span<const uint8_t> bytes() const { return {data_.get(), size_}; }

 private:
  struct Free {
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t, Free> data_;
  size_t size_ = 0;
};

class Tensor {
 public:
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int64_t> sizes;      // current shape
  std::vector<int64_t> max_sizes;  // shape the storage was sized for (== sizes if static)
  std::vector<uint8_t> dim_order;  // outer -> inner; [0..n-1] is contiguous
  ShapeDynamism dynamism = ShapeDynamism::kStatic;
  void* data = nullptr;
  size_t capacity = 0;  // bytes available at `data`
  // Set when the tensor owns its storage (unplanned inputs, tensors made by hand).
  std::shared_ptr<AlignedBuffer> owned;

  int dim() const { return static_cast<int>(sizes.size()); }
  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(dtype); }
  bool is_contiguous() const;
  std::vector<int64_t> strides() const;  // in elements, from dim_order
  int64_t size(int d) const { return sizes[static_cast<size_t>(d)]; }

  template <class T>
  T* data_as() { return static_cast<T*>(data); }
  template <class T>
  const T* data_as() const { return static_cast<const T*>(data); }
  std::span<uint8_t> bytes() { return {static_cast<uint8_t*>(data), nbytes()}; }
  std::span<const uint8_t> bytes() const { return {static_cast<const uint8_t*>(data), nbytes()}; }

  // Changes the current shape. Rank must match; a static tensor must keep its shape;
  // a dynamic one may take any shape whose bytes fit in `capacity`.
  Status resize(std::span<const int64_t> new_sizes);

  // A contiguous tensor with its own zeroed storage; InvalidArgument for a negative or
  // overflowing shape, OutOfResources when the memory is not there.
  static Result<Tensor> allocate(ScalarType dtype, std::vector<int64_t> sizes);
  // The same for shapes the caller made itself and knows to be small (scalars, tests):
  // an error here aborts with its message (Result::value()).
  static Tensor make_owned(ScalarType dtype, std::vector<int64_t> sizes);
  std::string shape_string() const;  // "[4, 64]"
};

std::string shape_to_string(std::span<const int64_t> shape);
// The product of `shape`; -1 if a size is negative. Shapes can come from a hostile file or
// from a kernel's arithmetic on its values, so the product saturates at INT64_MAX instead
// of overflowing (undefined behaviour); Tensor::resize rejects such a shape, since no
// storage holds it.
int64_t shape_numel(std::span<const int64_t> shape);
// Bytes of a contiguous `dtype` tensor of `shape`, or nullopt when a size is negative or
// the byte count would exceed `limit`.
std::optional<uint64_t> checked_nbytes(ScalarType dtype, std::span<const int64_t> shape,
                                       uint64_t limit = UINT64_MAX);

}  // namespace wick
