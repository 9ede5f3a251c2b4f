// Layout and copy ops: each output is a strided view of its input, materialised
// contiguously (permute, transpose, view, expand, select, slice, squeeze, flip, ...), or a
// composition of such copies (cat, stack, split, repeat, pad), plus copy_ and dtype copies.
#include <algorithm>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"

namespace wick::cpu {
namespace {

// A view of a contiguous tensor: element strides may be 0 (broadcast) or negative (flip).
struct View {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset = 0;
};

View identity_view(const Tensor& t) { return View{t.sizes, contiguous_strides(t.sizes), 0}; }

bool bytes_overlap(const void* a, size_t na, const void* b, size_t nb) {
  if (na == 0 || nb == 0 || a == nullptr || b == nullptr) return false;
  const uint8_t* pa = static_cast<const uint8_t*>(a);
  const uint8_t* pb = static_cast<const uint8_t*>(b);
  return pa < pb + nb && pb < pa + na;
}

void gather_view_bytes(const Tensor& src, const View& v, void* dst) {
  gather_strided_bytes(src.data, element_size(src.dtype), v.sizes, v.strides, v.offset, dst);
}

// Writes `v` of `src` into `dst` (contiguous, shaped v.sizes at `dst_offset` elements),
// converting dtype when they differ; goes through a buffer when the two overlap.
void write_view(const Tensor& src, const View& v, Tensor& dst, int64_t dst_offset = 0) {
  const int64_t n = shape_numel(v.sizes);
  if (n == 0) return;
  uint8_t* dst_bytes = static_cast<uint8_t*>(dst.data) + static_cast<size_t>(dst_offset) * element_size(dst.dtype);
  const size_t dst_n = static_cast<size_t>(n) * element_size(dst.dtype);
  if (src.dtype == dst.dtype && !bytes_overlap(src.data, src.nbytes(), dst_bytes, dst_n)) {
    gather_view_bytes(src, v, dst_bytes);
    return;
  }
  std::vector<uint8_t> tmp(static_cast<size_t>(n) * element_size(src.dtype));
  gather_view_bytes(src, v, tmp.data());
  convert_elements(tmp.data(), src.dtype, dst_bytes, dst.dtype, n);
}

// Common tail: check, resize out to `shape` (the view's elements in order), copy.
Status emit_view_as(const char* op, const Tensor& self, const View& v, std::span<const int64_t> shape, Tensor& out) {
  if (!is_kernel_dtype(out.dtype)) return not_supported(op, "out has dtype " + dtype_str(out.dtype));
  WICK_RETURN_IF_ERROR(prepare_output(op, out, shape));
  write_view(self, v, out);
  return {};
}
Status emit_view(const char* op, const Tensor& self, const View& v, Tensor& out) {
  return emit_view_as(op, self, v, v.sizes, out);
}

// Reads (self, ..., out) where self is the first argument and out is at `out_pos`.
struct SelfOut {
  Tensor* self;
  Tensor* out;
};
Result<SelfOut> self_and_out(KernelArgs& a, size_t n_args, size_t out_pos) {
  WICK_RETURN_IF_ERROR(a.expect_count(n_args));
  WICK_ASSIGN_OR_RETURN(Tensor * self, a.tensor(0, "self"));
  WICK_ASSIGN_OR_RETURN(Tensor * out, a.tensor(out_pos, "out"));
  WICK_RETURN_IF_ERROR(check_tensor(a.op(), *self, "self"));
  return SelfOut{self, out};
}

Result<std::vector<int64_t>> infer_view_shape(const char* op, std::vector<int64_t> shape, int64_t numel) {
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) return invalid_arg(op, "only one dimension can be inferred in " + shape_to_string(shape));
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      return invalid_arg(op, "invalid size " + std::to_string(shape[i]) + " in " + shape_to_string(shape));
    } else {
      if (shape[i] != 0 && known > INT64_MAX / shape[i])  // sizes come from the file
        return invalid_arg(op, "shape " + shape_to_string(shape) + " has more elements than int64 counts");
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0)
      return invalid_arg(op, "shape " + shape_to_string(shape) + " is invalid for input of size " + std::to_string(numel));
    shape[static_cast<size_t>(infer)] = numel / known;
  } else if (known != numel) {
    return invalid_arg(op, "shape " + shape_to_string(shape) + " is invalid for input of size " + std::to_string(numel));
  }
  return shape;
}

Status plain_copy(const char* op, ValueTable& values, std::span<const int32_t> args, size_t n_args, size_t out_pos) {
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, n_args, out_pos));
  return emit_view(op, *so.self, identity_view(*so.self), *so.out);
}

// dim_order copies: Wick's kernels only produce contiguous layouts.
Status dim_order_copy(const char* op, ValueTable& values, std::span<const int32_t> args) {
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 5, 3));
  WICK_ASSIGN_OR_RETURN(auto dim_order, a.optional_int_list(2, "dim_order"));
  if (dim_order) {
    if (dim_order->size() != static_cast<size_t>(so.self->dim()))
      return invalid_arg(op, "dim_order " + shape_to_string(*dim_order) + " does not match rank " +
                                 std::to_string(so.self->dim()));
    for (size_t i = 0; i < dim_order->size(); ++i)
      if ((*dim_order)[i] != static_cast<int64_t>(i))
        return not_supported(op, "non-contiguous dim_order " + shape_to_string(*dim_order));
  }
  return emit_view(op, *so.self, identity_view(*so.self), *so.out);
}

Result<std::vector<int64_t>> normalize_dims(const char* op, const std::vector<int64_t>& dims, int64_t rank) {
  std::vector<int64_t> out;
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 1)), false);
  for (int64_t d : dims) {
    WICK_ASSIGN_OR_RETURN(int64_t nd, normalize_dim(op, d, rank));
    if (seen[static_cast<size_t>(nd)]) return invalid_arg(op, "dim " + std::to_string(nd) + " appears more than once");
    seen[static_cast<size_t>(nd)] = true;
    out.push_back(nd);
  }
  return out;
}

}  // namespace

// permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
Status permute_copy_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::permute_copy.out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 4, 2));
  WICK_ASSIGN_OR_RETURN(auto dims_raw, a.int_list(1, "dims"));
  const int64_t rank = so.self->dim();
  if (static_cast<int64_t>(dims_raw.size()) != rank)
    return invalid_arg(op, "dims " + shape_to_string(dims_raw) + " has " + std::to_string(dims_raw.size()) +
                               " entries, self has rank " + std::to_string(rank));
  WICK_ASSIGN_OR_RETURN(auto dims, normalize_dims(op, dims_raw, rank));
  View base = identity_view(*so.self), v;
  for (int64_t d : dims) {
    v.sizes.push_back(base.sizes[static_cast<size_t>(d)]);
    v.strides.push_back(base.strides[static_cast<size_t>(d)]);
  }
  return emit_view(op, *so.self, v, *so.out);
}

// transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out)
Status transpose_copy_int_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::transpose_copy.int_out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 5, 3));
  WICK_ASSIGN_OR_RETURN(int64_t d0, a.int_arg(1, "dim0"));
  WICK_ASSIGN_OR_RETURN(int64_t d1, a.int_arg(2, "dim1"));
  WICK_ASSIGN_OR_RETURN(d0, normalize_dim(op, d0, so.self->dim()));
  WICK_ASSIGN_OR_RETURN(d1, normalize_dim(op, d1, so.self->dim()));
  View v = identity_view(*so.self);
  if (so.self->dim() > 0) {
    std::swap(v.sizes[static_cast<size_t>(d0)], v.sizes[static_cast<size_t>(d1)]);
    std::swap(v.strides[static_cast<size_t>(d0)], v.strides[static_cast<size_t>(d1)]);
  }
  return emit_view(op, *so.self, v, *so.out);
}

// t_copy.out(Tensor self, *, Tensor(a!) out)
Status t_copy_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::t_copy.out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 3, 1));
  if (so.self->dim() > 2) return invalid_arg(op, "self must be at most rank 2, got " + so.self->shape_string());
  View v = identity_view(*so.self);
  std::reverse(v.sizes.begin(), v.sizes.end());
  std::reverse(v.strides.begin(), v.strides.end());
  return emit_view(op, *so.self, v, *so.out);
}

// view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out)
Status view_copy_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::view_copy.out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 4, 2));
  WICK_ASSIGN_OR_RETURN(auto size, a.int_list(1, "size"));
  WICK_ASSIGN_OR_RETURN(auto shape, infer_view_shape(op, size, so.self->numel()));
  View v{shape, contiguous_strides(shape), 0};
  return emit_view(op, *so.self, v, *so.out);
}

// clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out)
Status clone_out(ValueTable& v, std::span<const int32_t> a) { return plain_copy("aten::clone.out", v, a, 4, 2); }
// alias_copy.out(Tensor self, *, Tensor(a!) out)
Status alias_copy_out(ValueTable& v, std::span<const int32_t> a) { return plain_copy("aten::alias_copy.out", v, a, 3, 1); }
// _to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None, Tensor(a!) out)
Status to_copy_out(ValueTable& v, std::span<const int32_t> a) { return plain_copy("aten::_to_copy.out", v, a, 5, 3); }
// dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None, Tensor(a!) out)
Status to_dim_order_copy_out(ValueTable& v, std::span<const int32_t> a) {
  return dim_order_copy("dim_order_ops::_to_dim_order_copy.out", v, a);
}
// dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None, Tensor(a!) out)
Status clone_dim_order_out(ValueTable& v, std::span<const int32_t> a) {
  return dim_order_copy("dim_order_ops::_clone_dim_order.out", v, a);
}

// copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!): src
// broadcasts to self's shape and is converted to self's dtype.
Status copy_inplace(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::copy_";
  Tensor *self{}, *src{};
  bool non_blocking = false;
  KernelArgs a(op, values, args);
  WICK_RETURN_IF_ERROR(a.read(4, arg(self, "self"), arg(src, "src"), arg(non_blocking, "non_blocking")));
  (void)non_blocking;
  WICK_RETURN_IF_ERROR(check_tensor(op, *self, "self"));
  WICK_RETURN_IF_ERROR(check_tensor(op, *src, "src"));
  WICK_ASSIGN_OR_RETURN(auto shape, broadcast_shapes(op, src->sizes, self->sizes));
  if (!shape_equal(shape, self->sizes))
    return invalid_arg(op, "src " + src->shape_string() + " does not broadcast to self " + self->shape_string());
  View v{self->sizes, broadcast_strides(src->sizes, self->sizes), 0};
  write_view(*src, v, *self);
  // The return value aliases self.
  if (a.index(3) != a.index(0)) {
    WICK_ASSIGN_OR_RETURN(Tensor * ret, a.tensor(3, "return"));
    *ret = *self;
  }
  return {};
}

// copy.out(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out): self's
// shape and out's dtype, src's values.
Status copy_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::copy.out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 5, 3));
  WICK_ASSIGN_OR_RETURN(Tensor * src, a.tensor(1, "src"));
  WICK_RETURN_IF_ERROR(check_tensor(op, *src, "src"));
  WICK_ASSIGN_OR_RETURN(auto shape, broadcast_shapes(op, src->sizes, so.self->sizes));
  if (!shape_equal(shape, so.self->sizes))
    return invalid_arg(op, "src " + src->shape_string() + " does not broadcast to self " + so.self->shape_string());
  View v{so.self->sizes, broadcast_strides(src->sizes, so.self->sizes), 0};
  return emit_view(op, *src, v, *so.out);
}

// unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out)
Status unsqueeze_copy_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::unsqueeze_copy.out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 4, 2));
  WICK_ASSIGN_OR_RETURN(int64_t dim, a.int_arg(1, "dim"));
  WICK_ASSIGN_OR_RETURN(int64_t d, normalize_dim(op, dim, so.self->dim() + 1));
  std::vector<int64_t> shape = so.self->sizes;
  shape.insert(shape.begin() + d, 1);
  return emit_view(op, *so.self, View{shape, contiguous_strides(shape), 0}, *so.out);
}

namespace {
Status squeeze_dims(const char* op, const Tensor& self, const std::vector<bool>& mask, Tensor& out) {
  std::vector<int64_t> shape;
  for (size_t i = 0; i < self.sizes.size(); ++i)
    if (!(mask[i] && self.sizes[i] == 1)) shape.push_back(self.sizes[i]);
  return emit_view(op, self, View{shape, contiguous_strides(shape), 0}, out);
}
}  // namespace

// squeeze_copy.out(Tensor self, *, Tensor(a!) out)
Status squeeze_copy_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::squeeze_copy.out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 3, 1));
  return squeeze_dims(op, *so.self, std::vector<bool>(so.self->sizes.size(), true), *so.out);
}

// squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out)
Status squeeze_copy_dim_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::squeeze_copy.dim_out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 4, 2));
  WICK_ASSIGN_OR_RETURN(int64_t dim, a.int_arg(1, "dim"));
  WICK_ASSIGN_OR_RETURN(auto mask, reduction_mask(op, std::vector<int64_t>{dim}, so.self->dim()));
  return squeeze_dims(op, *so.self, mask, *so.out);
}

// squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out)
Status squeeze_copy_dims_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::squeeze_copy.dims_out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 4, 2));
  WICK_ASSIGN_OR_RETURN(auto dims, a.int_list(1, "dim"));
  std::vector<bool> mask(so.self->sizes.size(), false);
  WICK_ASSIGN_OR_RETURN(auto nd, normalize_dims(op, dims, so.self->dim()));
  for (int64_t d : nd)
    if (!mask.empty()) mask[static_cast<size_t>(d)] = true;
  return squeeze_dims(op, *so.self, mask, *so.out);
}

// select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out)
Status select_copy_int_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::select_copy.int_out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 5, 3));
  WICK_ASSIGN_OR_RETURN(int64_t dim, a.int_arg(1, "dim"));
  WICK_ASSIGN_OR_RETURN(int64_t index, a.int_arg(2, "index"));
  if (so.self->dim() == 0) return invalid_arg(op, "select() cannot be applied to a 0-dim tensor");
  WICK_ASSIGN_OR_RETURN(int64_t d, normalize_dim(op, dim, so.self->dim()));
  const size_t du = static_cast<size_t>(d);
  const int64_t size = so.self->sizes[du];
  if (index < -size || index >= size)
    return invalid_arg(op, "index " + std::to_string(index) + " out of range for dim " + std::to_string(d) + " of size " +
                               std::to_string(size));
  if (index < 0) index += size;
  View v = identity_view(*so.self);
  v.offset = index * v.strides[du];
  v.sizes.erase(v.sizes.begin() + d);
  v.strides.erase(v.strides.begin() + d);
  return emit_view(op, *so.self, v, *so.out);
}

// slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1, *, Tensor(a!) out)
Status slice_copy_tensor_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::slice_copy.Tensor_out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 7, 5));
  WICK_ASSIGN_OR_RETURN(int64_t dim, a.int_arg(1, "dim"));
  WICK_ASSIGN_OR_RETURN(auto start_opt, a.optional_int(2, "start"));
  WICK_ASSIGN_OR_RETURN(auto end_opt, a.optional_int(3, "end"));
  WICK_ASSIGN_OR_RETURN(int64_t step, a.int_arg(4, "step"));
  if (so.self->dim() == 0) return invalid_arg(op, "slice() cannot be applied to a 0-dim tensor");
  if (step <= 0) return invalid_arg(op, "step must be positive, got " + std::to_string(step));
  WICK_ASSIGN_OR_RETURN(int64_t d, normalize_dim(op, dim, so.self->dim()));
  const size_t du = static_cast<size_t>(d);
  const int64_t size = so.self->sizes[du];
  // Python slice semantics: wrap negatives once, then clamp into [0, size].
  int64_t start = start_opt.value_or(0), end = end_opt.value_or(size);
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, 0, size);
  // A step beyond the dim takes one element, as the dim's size does; clamping it keeps
  // the arithmetic below inside int64 for any step the file holds.
  step = std::min<int64_t>(step, std::max<int64_t>(size, 1));
  const int64_t len = end > start ? (end - start + step - 1) / step : 0;
  View v = identity_view(*so.self);
  v.offset = start * v.strides[du];
  v.sizes[du] = len;
  v.strides[du] *= step;
  return emit_view(op, *so.self, v, *so.out);
}

// expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out)
Status expand_copy_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::expand_copy.out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 5, 3));
  WICK_ASSIGN_OR_RETURN(auto size, a.int_list(1, "size"));
  const Tensor& self = *so.self;
  if (size.size() < self.sizes.size())
    return invalid_arg(op, "size " + shape_to_string(size) + " has fewer dims than self " + self.shape_string());
  const size_t lead = size.size() - self.sizes.size();
  std::vector<int64_t> shape(size.size());
  for (size_t i = 0; i < size.size(); ++i) {
    if (i < lead) {
      if (size[i] < 0) return invalid_arg(op, "new leading dims cannot be -1 or negative: " + shape_to_string(size));
      shape[i] = size[i];
      continue;
    }
    const int64_t s = self.sizes[i - lead];
    if (size[i] == -1) shape[i] = s;
    else if (s == 1 || size[i] == s) shape[i] = size[i];
    else
      return invalid_arg(op, "self " + self.shape_string() + " cannot be expanded to " + shape_to_string(size));
    if (shape[i] < 0) return invalid_arg(op, "invalid size in " + shape_to_string(size));
  }
  return emit_view(op, self, View{shape, broadcast_strides(self.sizes, shape), 0}, *so.out);
}

// flip.out(Tensor self, int[] dims, *, Tensor(a!) out)
Status flip_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::flip.out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 4, 2));
  WICK_ASSIGN_OR_RETURN(auto dims_raw, a.int_list(1, "dims"));
  WICK_ASSIGN_OR_RETURN(auto dims, normalize_dims(op, dims_raw, so.self->dim()));
  View v = identity_view(*so.self);
  for (int64_t d : dims) {
    if (v.sizes.empty()) break;
    const size_t du = static_cast<size_t>(d);
    if (v.sizes[du] > 0) v.offset += (v.sizes[du] - 1) * v.strides[du];
    v.strides[du] = -v.strides[du];
  }
  return emit_view(op, *so.self, v, *so.out);
}

namespace {
// pixel_shuffle (up) and pixel_unshuffle: both are one strided view of self, over
// [batch, C, H, W] with r = the factor.
Status pixel_shuffle_view(const char* op, const char* factor_name, bool up, ValueTable& values,
                          std::span<const int32_t> args) {
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 4, 2));
  WICK_ASSIGN_OR_RETURN(int64_t r, a.int_arg(1, factor_name));
  const Tensor& self = *so.self;
  if (self.dim() < 3) return invalid_arg(op, "self must have at least 3 dims, got " + self.shape_string());
  WICK_RETURN_IF_ERROR(check_geometry(op, factor_name, std::span<const int64_t>(&r, 1), 1));
  const size_t rank = self.sizes.size();
  const int64_t c = self.sizes[rank - 3], h = self.sizes[rank - 2], w = self.sizes[rank - 1];
  int64_t batch = 1;
  for (size_t i = 0; i + 3 < rank; ++i) batch *= self.sizes[i];
  std::vector<int64_t> shape(self.sizes.begin(), self.sizes.end() - 3);
  View v;
  if (up) {
    if (c % (r * r) != 0) return invalid_arg(op, "channels " + std::to_string(c) + " not divisible by upscale_factor^2");
    const int64_t oc = c / (r * r);
    // out[c, h*r+i, w*r+j] = in[c*r*r + i*r + j, h, w]: view [batch, oc, h, r(i), w, r(j)].
    v.sizes = {batch, oc, h, r, w, r};
    v.strides = {c * h * w, r * r * h * w, w, r * h * w, 1, h * w};
    shape.insert(shape.end(), {oc, h * r, w * r});
  } else {
    if (h % r != 0 || w % r != 0) return invalid_arg(op, "spatial size not divisible by downscale_factor");
    const int64_t oh = h / r, ow = w / r;
    // out[c*r*r + i*r + j, y, x] = in[c, y*r+i, x*r+j]: view [batch, c, r(i), r(j), oh, ow].
    v.sizes = {batch, c, r, r, oh, ow};
    v.strides = {c * h * w, h * w, w, 1, r * w, r};
    shape.insert(shape.end(), {c * r * r, oh, ow});
  }
  return emit_view_as(op, self, v, shape, *so.out);
}
}  // namespace

// pixel_shuffle.out(Tensor self, int upscale_factor, *, Tensor(a!) out):
// [..., C*r*r, H, W] -> [..., C, H*r, W*r].
Status pixel_shuffle_out(ValueTable& values, std::span<const int32_t> args) {
  return pixel_shuffle_view("aten::pixel_shuffle.out", "upscale_factor", true, values, args);
}

// pixel_unshuffle.out(Tensor self, int downscale_factor, *, Tensor(a!) out): the inverse.
Status pixel_unshuffle_out(ValueTable& values, std::span<const int32_t> args) {
  return pixel_shuffle_view("aten::pixel_unshuffle.out", "downscale_factor", false, values, args);
}

// repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out)
Status repeat_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::repeat.out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 4, 2));
  WICK_ASSIGN_OR_RETURN(auto repeats, a.int_list(1, "repeats"));
  const Tensor& self = *so.self;
  if (repeats.size() < self.sizes.size())
    return invalid_arg(op, "repeats " + shape_to_string(repeats) + " has fewer dims than self " + self.shape_string());
  WICK_RETURN_IF_ERROR(check_geometry(op, "repeats", repeats, 0));
  const size_t rank = repeats.size(), lead = rank - self.sizes.size();
  std::vector<int64_t> padded(rank, 1);
  for (size_t i = 0; i < self.sizes.size(); ++i) padded[lead + i] = self.sizes[i];
  // View [r0, s0, r1, s1, ...] with 0 strides on the repeat dims, flattened pairwise.
  std::vector<int64_t> st = contiguous_strides(padded);
  View v;
  std::vector<int64_t> shape;
  for (size_t i = 0; i < rank; ++i) {
    v.sizes.push_back(repeats[i]);
    v.strides.push_back(0);
    v.sizes.push_back(padded[i]);
    v.strides.push_back(st[i]);
    shape.push_back(repeats[i] * padded[i]);
  }
  return emit_view_as(op, self, v, shape, *so.out);
}

namespace {
// The arguments of cat and stack: (Tensor[] tensors, int dim=0, *, Tensor(a!) out), every
// input checked and their result type castable to out's dtype.
struct TensorListArgs {
  std::vector<Tensor*> tensors;
  int64_t dim = 0;
  Tensor* out = nullptr;
};
Result<TensorListArgs> read_tensor_list_args(const char* op, ValueTable& values, std::span<const int32_t> args) {
  TensorListArgs l;
  WICK_RETURN_IF_ERROR(
      read_args(op, values, args, 4, arg(l.tensors, "tensors"), arg(l.dim, "dim"), arg(l.out, "out")));
  if (l.tensors.empty()) return invalid_arg(op, "expected a non-empty list of tensors");
  ResultType rt;
  for (Tensor* t : l.tensors) {
    WICK_RETURN_IF_ERROR(check_tensor(op, *t, "tensors"));
    rt.add_tensor(*t);
  }
  if (!is_kernel_dtype(l.out->dtype) || !can_cast(rt.result(), l.out->dtype))
    return invalid_arg(op, "result type " + dtype_str(rt.result()) + " can't be cast to out dtype " +
                               dtype_str(l.out->dtype));
  return l;
}

// Writes each input along `dim` of out, one after another; inputs already checked.
void concat_into(const std::vector<const Tensor*>& inputs, int64_t dim, Tensor& out) {
  DimSplit os = split_at(out.sizes, dim);
  int64_t at = 0;
  for (const Tensor* t : inputs) {
    DimSplit s = split_at(t->sizes, dim);
    // Row o of the input ([outer, size*inner]) lands in row o of out at offset `at`.
    for (int64_t o = 0; o < s.outer && t->numel() > 0; ++o) {
      View row{{s.size * s.inner}, {1}, o * s.size * s.inner};
      write_view(*t, row, out, (o * os.size + at) * os.inner);
    }
    at += s.size;
  }
}
}  // namespace

// cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
Status cat_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::cat.out";
  WICK_ASSIGN_OR_RETURN(TensorListArgs l, read_tensor_list_args(op, values, args));
  Tensor* out = l.out;
  // Legacy behaviour: 1-D empty tensors are skipped whatever the other shapes are.
  std::vector<const Tensor*> inputs;
  for (Tensor* t : l.tensors)
    if (!(t->dim() == 1 && t->sizes[0] == 0)) inputs.push_back(t);
  if (inputs.empty()) {
    const int64_t empty[] = {0};
    return prepare_output(op, *out, empty);
  }
  const Tensor& ref = *inputs[0];
  if (ref.dim() == 0) return invalid_arg(op, "zero-dimensional tensors cannot be concatenated");
  WICK_ASSIGN_OR_RETURN(int64_t d, normalize_dim(op, l.dim, ref.dim()));
  std::vector<int64_t> shape = ref.sizes;
  shape[static_cast<size_t>(d)] = 0;
  for (const Tensor* t : inputs) {
    if (t->dim() != ref.dim())
      return invalid_arg(op, "tensors must have the same rank: " + ref.shape_string() + " vs " + t->shape_string());
    for (int i = 0; i < ref.dim(); ++i)
      if (i != d && t->sizes[static_cast<size_t>(i)] != ref.sizes[static_cast<size_t>(i)])
        return invalid_arg(op, "sizes must match except in dim " + std::to_string(d) + ": " + ref.shape_string() + " vs " +
                                   t->shape_string());
    shape[static_cast<size_t>(d)] += t->sizes[static_cast<size_t>(d)];
  }
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  for (const Tensor* t : inputs)
    if (bytes_overlap(t->data, t->nbytes(), out->data, out->nbytes()))
      return invalid_arg(op, "out overlaps an input");
  concat_into(inputs, d, *out);
  return {};
}

// stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
Status stack_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::stack.out";
  WICK_ASSIGN_OR_RETURN(TensorListArgs l, read_tensor_list_args(op, values, args));
  const std::vector<Tensor*>& tensors = l.tensors;
  Tensor* out = l.out;
  for (Tensor* t : tensors)
    if (!shape_equal(t->sizes, tensors[0]->sizes))
      return invalid_arg(op, "stack expects equal shapes: " + tensors[0]->shape_string() + " vs " + t->shape_string());
  WICK_ASSIGN_OR_RETURN(int64_t d, normalize_dim(op, l.dim, tensors[0]->dim() + 1));
  std::vector<int64_t> shape = tensors[0]->sizes;
  shape.insert(shape.begin() + d, static_cast<int64_t>(tensors.size()));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  // Stacking is concatenating the inputs unsqueezed at d.
  std::vector<Tensor> views;
  std::vector<const Tensor*> inputs;
  views.reserve(tensors.size());
  for (Tensor* t : tensors) {
    if (bytes_overlap(t->data, t->nbytes(), out->data, out->nbytes())) return invalid_arg(op, "out overlaps an input");
    Tensor v = *t;
    v.sizes.insert(v.sizes.begin() + d, 1);
    v.dim_order.clear();
    views.push_back(v);
  }
  for (const Tensor& v : views) inputs.push_back(&v);
  concat_into(inputs, d, *out);
  return {};
}

namespace {
// Splits self along dim into pieces of the given sizes, one per output tensor.
Status split_into(const char* op, const Tensor& self, const std::vector<int64_t>& sizes, int64_t dim,
                  const std::vector<Tensor*>& outs) {
  if (sizes.size() != outs.size())
    return invalid_arg(op, std::to_string(sizes.size()) + " pieces but " + std::to_string(outs.size()) + " outputs");
  const size_t du = static_cast<size_t>(dim);
  int64_t start = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) return invalid_arg(op, "negative split size " + std::to_string(sizes[i]));
    View v = identity_view(self);
    v.offset = start * v.strides[du];
    v.sizes[du] = sizes[i];
    start += sizes[i];
    if (start > self.sizes[du]) return invalid_arg(op, "split sizes exceed dim size " + std::to_string(self.sizes[du]));
    WICK_RETURN_IF_ERROR(emit_view(op, self, v, *outs[i]));
  }
  if (start != self.sizes[du])
    return invalid_arg(op, "split sizes sum to " + std::to_string(start) + ", dim size is " + std::to_string(self.sizes[du]));
  return {};
}

// The dim that split and unbind cut self along.
Result<int64_t> cut_dim(const char* op, const Tensor& self, int64_t dim, const char* verb) {
  WICK_RETURN_IF_ERROR(check_tensor(op, self, "self"));
  if (self.dim() == 0) return invalid_arg(op, std::string("cannot ") + verb + " a 0-dim tensor");
  return normalize_dim(op, dim, self.dim());
}
}  // namespace

// split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *, Tensor(a!)[] out) -> ()
Status split_with_sizes_copy_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::split_with_sizes_copy.out";
  Tensor* self{};
  std::vector<int64_t> split_sizes;
  int64_t dim = 0;
  std::vector<Tensor*> outs;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, arg(self, "self"), arg(split_sizes, "split_sizes"),
                                 arg(dim, "dim"), arg(outs, "out")));
  WICK_ASSIGN_OR_RETURN(int64_t d, cut_dim(op, *self, dim, "split"));
  return split_into(op, *self, split_sizes, d, outs);
}

// split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> ()
Status split_copy_tensor_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::split_copy.Tensor_out";
  Tensor* self{};
  int64_t split_size = 0, dim = 0;
  std::vector<Tensor*> outs;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, arg(self, "self"), arg(split_size, "split_size"),
                                 arg(dim, "dim"), arg(outs, "out")));
  WICK_ASSIGN_OR_RETURN(int64_t d, cut_dim(op, *self, dim, "split"));
  const int64_t size = self->sizes[static_cast<size_t>(d)];
  if (split_size < 0 || (split_size == 0 && size != 0))
    return invalid_arg(op, "split_size " + std::to_string(split_size) + " is invalid for a dim of size " + std::to_string(size));
  std::vector<int64_t> sizes;
  if (split_size == 0) {
    sizes.push_back(0);
  } else {
    split_size = std::min(split_size, size);  // one piece either way; s + split_size cannot overflow
    for (int64_t s = 0; s < size; s += split_size) sizes.push_back(std::min(split_size, size - s));
    if (sizes.empty()) sizes.push_back(0);
  }
  return split_into(op, *self, sizes, d, outs);
}

// unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out) -> ()
Status unbind_copy_int_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::unbind_copy.int_out";
  Tensor* self{};
  int64_t dim = 0;
  std::vector<Tensor*> outs;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 3, arg(self, "self"), arg(dim, "dim"), arg(outs, "out")));
  WICK_ASSIGN_OR_RETURN(int64_t d, cut_dim(op, *self, dim, "unbind"));
  const size_t du = static_cast<size_t>(d);
  if (static_cast<int64_t>(outs.size()) != self->sizes[du])
    return invalid_arg(op, std::to_string(outs.size()) + " outputs for a dim of size " + std::to_string(self->sizes[du]));
  for (size_t i = 0; i < outs.size(); ++i) {
    View v = identity_view(*self);
    v.offset = static_cast<int64_t>(i) * v.strides[du];
    v.sizes.erase(v.sizes.begin() + d);
    v.strides.erase(v.strides.begin() + d);
    WICK_RETURN_IF_ERROR(emit_view(op, *self, v, *outs[i]));
  }
  return {};
}

// constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out): pad
// pairs (before, after) from the last dim backwards; negative pads crop.
Status constant_pad_nd_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::constant_pad_nd.out";
  KernelArgs a(op, values, args);
  WICK_ASSIGN_OR_RETURN(SelfOut so, self_and_out(a, 5, 3));
  WICK_ASSIGN_OR_RETURN(auto pad, a.int_list(1, "pad"));
  WICK_ASSIGN_OR_RETURN(Scalar value, a.scalar(2, "value"));
  const Tensor& self = *so.self;
  Tensor& out = *so.out;
  if (pad.size() % 2 != 0) return invalid_arg(op, "pad length must be even, got " + std::to_string(pad.size()));
  if (pad.size() / 2 > self.sizes.size())
    return invalid_arg(op, "pad " + shape_to_string(pad) + " has more pairs than self " + self.shape_string() + " has dims");
  WICK_RETURN_IF_ERROR(check_same_dtype(op, self, "self", out, "out"));
  WICK_RETURN_IF_ERROR(check_geometry(op, "pad", pad, -kMaxGeometryValue));
  const size_t rank = self.sizes.size();
  std::vector<int64_t> before(rank, 0), shape = self.sizes;
  for (size_t p = 0; p < pad.size() / 2; ++p) {
    const size_t d = rank - 1 - p;
    before[d] = pad[2 * p];
    shape[d] = self.sizes[d] + pad[2 * p] + pad[2 * p + 1];
    if (shape[d] < 0)
      return invalid_arg(op, "padding " + shape_to_string(pad) + " gives a negative size for self " + self.shape_string());
  }
  WICK_RETURN_IF_ERROR(prepare_output(op, out, shape));
  if (bytes_overlap(self.data, self.nbytes(), out.data, out.nbytes())) return invalid_arg(op, "out overlaps self");
  if (rank == 0) {
    write_view(self, identity_view(self), out);
    return {};
  }
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.data_as<T>();
    const T fill = value.as<T>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = fill;
  });
  // The kept region: in each dim, output [max(before,0), ...) maps to input [max(-before,0), ...).
  View src = identity_view(self);
  std::vector<int64_t> out_st = contiguous_strides(shape);
  int64_t out_off = 0;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t in_lo = std::max<int64_t>(-before[d], 0), out_lo = std::max<int64_t>(before[d], 0);
    const int64_t len = std::max<int64_t>(0, std::min(self.sizes[d] - in_lo, shape[d] - out_lo));
    src.offset += in_lo * src.strides[d];
    src.sizes[d] = len;
    out_off += out_lo * out_st[d];
  }
  if (shape_numel(src.sizes) == 0) return {};
  // Copy row by row (innermost dim) since the destination is strided too.
  std::vector<int64_t> outer_sizes(src.sizes.begin(), src.sizes.end() - 1);
  std::array<std::vector<int64_t>, 2> st{std::vector<int64_t>(src.strides.begin(), src.strides.end() - 1),
                                         std::vector<int64_t>(out_st.begin(), out_st.end() - 1)};
  const int64_t row = src.sizes.back();
  for_each_broadcast<2>(outer_sizes, st, [&](int64_t, const std::array<int64_t, 2>& o) {
    View r{{row}, {1}, src.offset + o[0]};
    write_view(self, r, out, out_off + o[1]);
  });
  return {};
}

}  // namespace wick::cpu
