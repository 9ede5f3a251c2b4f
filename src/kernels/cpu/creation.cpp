// Tensor factories: scalar_tensor, full, zeros, ones, arange, fill, triangular masks.
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"

namespace wick::cpu {
namespace {

Status fill_with(const char* op, Tensor& out, std::span<const int64_t> shape, const Scalar& value) {
  if (!is_kernel_dtype(out.dtype)) return not_supported(op, "out has dtype " + dtype_str(out.dtype));
  WICK_RETURN_IF_ERROR(prepare_output(op, out, shape));
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = value.as<T>();
    T* o = out.data_as<T>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = v;
  });
  return {};
}

Status check_size(const char* op, const std::vector<int64_t>& size) {
  for (int64_t s : size)
    if (s < 0) return invalid_arg(op, "negative size in " + shape_to_string(size));
  return {};
}

Scalar int_scalar(int64_t v) {
  Scalar s;
  s.tag = ValueTag::kInt;
  s.i = v;
  return s;
}

}  // namespace

// scalar_tensor.out(Scalar s, *, Tensor(a!) out)
Status scalar_tensor_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::scalar_tensor.out";
  Scalar s;
  Tensor *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 3, arg(s, "s"), arg(out, "out")));
  return fill_with(op, *out, {}, s);
}

// full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out)
Status full_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::full.out";
  std::vector<int64_t> size;
  Scalar v;
  Tensor *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, arg(size, "size"), arg(v, "fill_value"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_size(op, size));
  return fill_with(op, *out, size, v);
}

// full_like.out(Tensor self, Scalar fill_value, *, MemoryFormat? memory_format=None, Tensor(a!) out)
Status full_like_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::full_like.out";
  Tensor *self{}, *out{};
  Scalar v;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, arg(self, "self"), arg(v, "fill_value"), skip(),
                                 arg(out, "out")));
  return fill_with(op, *out, self->sizes, v);
}

namespace {
// zeros.out / ones.out(SymInt[] size, *, Tensor(a!) out)
Status constant_of_size(const char* op, int64_t value, ValueTable& values, std::span<const int32_t> args) {
  std::vector<int64_t> size;
  Tensor *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 3, arg(size, "size"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_size(op, size));
  return fill_with(op, *out, size, int_scalar(value));
}
// zeros_like.out / ones_like.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out)
Status constant_like(const char* op, int64_t value, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, arg(self, "self"), skip(), arg(out, "out")));
  return fill_with(op, *out, self->sizes, int_scalar(value));
}
}  // namespace

Status zeros_out(ValueTable& v, std::span<const int32_t> a) { return constant_of_size("aten::zeros.out", 0, v, a); }
Status ones_out(ValueTable& v, std::span<const int32_t> a) { return constant_of_size("aten::ones.out", 1, v, a); }
Status zeros_like_out(ValueTable& v, std::span<const int32_t> a) { return constant_like("aten::zeros_like.out", 0, v, a); }
Status ones_like_out(ValueTable& v, std::span<const int32_t> a) { return constant_like("aten::ones_like.out", 1, v, a); }

// fill.Scalar_out(Tensor self, Scalar value, *, Tensor(a!) out)
Status fill_scalar_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::fill.Scalar_out";
  Tensor *self{}, *out{};
  Scalar v;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, arg(self, "self"), arg(v, "value"), arg(out, "out")));
  return fill_with(op, *out, self->sizes, v);
}

namespace {
// out[i] = start + i * step, with PyTorch's length rule ceil((end - start) / step).
Status arange_impl(const char* op, const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  if (!is_kernel_dtype(out.dtype) || out.dtype == ScalarType::kBool)
    return not_supported(op, "out has dtype " + dtype_str(out.dtype));
  const bool integral = start.is_integral() && end.is_integral() && step.is_integral() && !is_floating(out.dtype);
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  if (st == 0) return invalid_arg(op, "step must be nonzero");
  if (!std::isfinite(s) || !std::isfinite(e) || !std::isfinite(st))
    return invalid_arg(op, "unsupported range: " + std::to_string(s) + " -> " + std::to_string(e) + " step " +
                               std::to_string(st));
  if ((st > 0 && e < s) || (st < 0 && e > s)) return invalid_arg(op, "upper bound and larger bound inconsistent with step sign");
  // The bounds and step come from the file: the length is computed where it cannot
  // overflow (128 bits, or a double checked before its conversion), then bounded by `out`.
  int64_t n;
  if (integral) {
    const __int128 span = static_cast<__int128>(end.i) - start.i, st128 = step.i;
    const __int128 len = st128 > 0 ? (span + st128 - 1) / st128 : (-span - st128 - 1) / -st128;
    n = len > INT64_MAX ? INT64_MAX : static_cast<int64_t>(len);
  } else {
    const double len = std::ceil((e - s) / st);
    n = len < 9.2e18 ? static_cast<int64_t>(len) : INT64_MAX;
  }
  if (n == INT64_MAX) return invalid_arg(op, "the range holds more than 2^63 elements");
  const int64_t shape[] = {n};
  WICK_RETURN_IF_ERROR(prepare_output(op, out, shape));
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      // Modulo 2^64, which is exact: the true value lies between start and end.
      if (integral) o[i] = convert<T>(static_cast<int64_t>(static_cast<uint64_t>(start.i) +
                                                           static_cast<uint64_t>(i) * static_cast<uint64_t>(step.i)));
      else o[i] = convert<T>(s + st * static_cast<double>(i));
    }
  });
  return {};
}
}  // namespace

// arange.out(Scalar end, *, Tensor(a!) out)
Status arange_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::arange.out";
  Scalar end;
  Tensor *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 3, arg(end, "end"), arg(out, "out")));
  return arange_impl(op, int_scalar(0), end, int_scalar(1), *out);
}

// arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out)
Status arange_start_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::arange.start_out";
  Scalar start, end, step;
  Tensor *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, arg(start, "start"), arg(end, "end"), arg(step, "step"),
                                 arg(out, "out")));
  return arange_impl(op, start, end, step, *out);
}

namespace {
// tril/triu.out(Tensor self, int diagonal=0, *, Tensor(a!) out) over the last two dims.
Status triangle(const char* op, bool lower, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *out{};
  int64_t diagonal = 0;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, checked_arg(self, "self"), arg(diagonal, "diagonal"),
                                 arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *self, "self", *out, "out"));
  if (self->dim() < 2) return invalid_arg(op, "self must have at least 2 dims, got " + self->shape_string());
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, self->sizes));
  const int64_t rows = self->size(self->dim() - 2), cols = self->size(self->dim() - 1);
  const int64_t mats = rows * cols == 0 ? 0 : self->numel() / (rows * cols);
  visit_dtype(self->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = self->data_as<T>();
    T* y = out->data_as<T>();
    for (int64_t m = 0; m < mats; ++m)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          const int64_t k = (m * rows + i) * cols + j;
          const bool keep = lower ? j - i <= diagonal : j - i >= diagonal;
          y[k] = keep ? x[k] : convert<T>(0);
        }
  });
  return {};
}
}  // namespace

Status tril_out(ValueTable& v, std::span<const int32_t> a) { return triangle("aten::tril.out", true, v, a); }
Status triu_out(ValueTable& v, std::span<const int32_t> a) { return triangle("aten::triu.out", false, v, a); }

}  // namespace wick::cpu
