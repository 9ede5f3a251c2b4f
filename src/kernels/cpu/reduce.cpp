// Reductions: sum, mean, prod, any/all, amax/amin, max/min along a dim, argmax/argmin, var.
#include <algorithm>
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"

namespace wick::cpu {
namespace {

// Element offsets into the reduced output for each input element: contiguous strides of
// the kept dims, 0 along reduced ones.
std::vector<int64_t> reduce_strides(std::span<const int64_t> sizes, const std::vector<bool>& mask) {
  std::vector<int64_t> st(sizes.size(), 0);
  int64_t acc = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (mask[d]) continue;
    st[d] = acc;
    acc *= sizes[d];
  }
  return st;
}

int64_t reduced_count(std::span<const int64_t> sizes, const std::vector<bool>& mask) {
  int64_t n = 1;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (mask[d]) n *= sizes[d];
  return n;
}

// Folds every input element (converted to A) into acc[out index] with fold(acc, x).
template <class A, class Acc, class Fold>
void reduce_into(const Tensor& in, const std::vector<bool>& mask, std::vector<Acc>& acc, Fold fold) {
  std::array<std::vector<int64_t>, 1> st{reduce_strides(in.sizes, mask)};
  visit_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = in.data_as<T>();
    for_each_broadcast<1>(in.sizes, st, [&](int64_t i, const std::array<int64_t, 1>& o) {
      fold(acc[static_cast<size_t>(o[0])], convert<A>(x[i]));
    });
  });
}

struct Reduction {
  Tensor* self;
  std::vector<bool> mask;
  bool keepdim;
  Tensor* out;
};

// Reads (self, dims, keepdim, ..., out), checks, resizes out.
Status setup(const char* op, Tensor* self, const std::optional<std::vector<int64_t>>& dims, bool keepdim, Tensor* out,
             Reduction& r) {
  WICK_RETURN_IF_ERROR(check_tensor(op, *self, "self"));
  if (!is_kernel_dtype(out->dtype)) return not_supported(op, "out has dtype " + dtype_str(out->dtype));
  WICK_ASSIGN_OR_RETURN(r.mask, reduction_mask(op, dims, self->dim()));
  r.self = self;
  r.keepdim = keepdim;
  r.out = out;
  std::vector<int64_t> shape = reduced_shape(self->sizes, r.mask, keepdim);
  return prepare_output(op, *out, shape);
}

// The dtype a sum-like op computes in: `dtype` when given (it must match out's), else out's.
Status check_dtype_arg(const char* op, const std::optional<ScalarType>& dtype, const Tensor& out) {
  if (dtype && *dtype != out.dtype)
    return invalid_arg(op, "dtype " + dtype_str(*dtype) + " does not match out dtype " + dtype_str(out.dtype));
  return {};
}

enum class SumKind { kSum, kMean, kProd };

Status sum_like(const char* op, SumKind kind, const Reduction& r) {
  Tensor& out = *r.out;
  const int64_t n_out = out.numel();
  const int64_t count = reduced_count(r.self->sizes, r.mask);
  // Accumulate in double for floating results and int64 for integer ones: the input is
  // cast to the result dtype first, as PyTorch's dtype= argument does.
  // fp32 sums and means over trailing dims (global average pooling): contiguous runs, summed
  // in double like the general path, without its per-element index walk.
  const size_t rank = r.mask.size();
  size_t lead = 0;
  while (lead < rank && !r.mask[lead]) ++lead;
  const bool trailing = std::all_of(r.mask.begin() + static_cast<std::ptrdiff_t>(lead), r.mask.end(), [](bool m) { return m; });
  if (kind != SumKind::kProd && trailing && r.self->dtype == ScalarType::kFloat && out.dtype == ScalarType::kFloat &&
      count > 0 && n_out * count == r.self->numel()) {
    const float* x = r.self->data_as<float>();
    float* y = out.data_as<float>();
    for (int64_t o = 0; o < n_out; ++o) {
      const float* run = x + o * count;
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      int64_t i = 0;
      for (; i + 4 <= count; i += 4) s0 += run[i], s1 += run[i + 1], s2 += run[i + 2], s3 += run[i + 3];
      for (; i < count; ++i) s0 += run[i];
      const double sum = (s0 + s1) + (s2 + s3);
      y[o] = static_cast<float>(kind == SumKind::kMean ? sum / static_cast<double>(count) : sum);
    }
    return {};
  }
  if (is_floating(out.dtype)) {
    std::vector<double> acc(static_cast<size_t>(n_out), kind == SumKind::kProd ? 1.0 : 0.0);
    if (kind == SumKind::kProd) reduce_into<double>(*r.self, r.mask, acc, [](double& a, double x) { a *= x; });
    else reduce_into<double>(*r.self, r.mask, acc, [](double& a, double x) { a += x; });
    if (kind == SumKind::kMean)
      for (double& a : acc) a /= static_cast<double>(count);
    convert_elements(acc.data(), ScalarType::kDouble, out.data, out.dtype, n_out);
  } else {
    if (kind == SumKind::kMean)
      return invalid_arg(op, "out dtype " + dtype_str(out.dtype) + " is not floating; mean needs a floating dtype");
    std::vector<int64_t> acc(static_cast<size_t>(n_out), kind == SumKind::kProd ? 1 : 0);
    if (kind == SumKind::kProd) {
      reduce_into<int64_t>(*r.self, r.mask, acc, [](int64_t& a, int64_t x) {
        a = static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(x));
      });
    } else {
      reduce_into<int64_t>(*r.self, r.mask, acc, [](int64_t& a, int64_t x) {
        a = static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(x));
      });
    }
    // bool results (sum with dtype=bool) mean "any nonzero", which the cast gives.
    convert_elements(acc.data(), ScalarType::kLong, out.data, out.dtype, n_out);
  }
  return {};
}

// (Tensor self, int[1]? dim, bool keepdim, *, ScalarType? dtype, Tensor(a!) out)
Status sum_like_op(const char* op, SumKind kind, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *out{};
  std::optional<std::vector<int64_t>> dims;
  bool keepdim = false;
  std::optional<ScalarType> dtype;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 6, arg(self, "self"), arg(dims, "dim"), arg(keepdim, "keepdim"),
                                 arg(dtype, "dtype"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_dtype_arg(op, dtype, *out));
  Reduction r;
  WICK_RETURN_IF_ERROR(setup(op, self, dims, keepdim, out, r));
  return sum_like(op, kind, r);
}

// Whether `mask` reduces exactly the innermost dims (at least one), and the number of
// elements they span: output element o then folds the contiguous run [o * inner, (o + 1) * inner).
bool reduces_innermost(std::span<const int64_t> sizes, const std::vector<bool>& mask, int64_t& inner) {
  size_t k = sizes.size();
  while (k > 0 && mask[k - 1]) --k;
  for (size_t d = 0; d < k; ++d)
    if (mask[d]) return false;
  inner = 1;
  for (size_t d = k; d < sizes.size(); ++d) inner *= sizes[d];
  return k < sizes.size();
}

// any() of a run of one-byte values (bool, uint8): OR of 8-byte words, a loop without an
// early exit that the compiler vectorizes (attention masks: millions of bytes per call).
bool any_nonzero_byte(const uint8_t* p, int64_t n) {
  uint64_t acc = 0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    acc |= w;
  }
  for (; i < n; ++i) acc |= p[i];
  return acc != 0;
}

Status any_all(const char* op, bool is_any, const Reduction& r) {
  Tensor& out = *r.out;
  if (out.dtype != ScalarType::kBool && out.dtype != ScalarType::kByte)
    return invalid_arg(op, "out must be bool or uint8, got " + dtype_str(out.dtype));
  std::vector<uint8_t> acc(static_cast<size_t>(out.numel()), is_any ? 0 : 1);
  int64_t inner = 0;
  const ScalarType in_dtype = r.self->dtype;
  if (reduces_innermost(r.self->sizes, r.mask, inner) && inner > 0 && is_any &&
      (in_dtype == ScalarType::kBool || in_dtype == ScalarType::kByte)) {
    // The any(-1) that transformers' attention leaves outside the delegates, over a
    // [batch, heads, queries, keys] mask: the general walk below costs ~10x more.
    const uint8_t* x = r.self->data_as<uint8_t>();
    for (size_t o = 0; o < acc.size(); ++o) acc[o] = any_nonzero_byte(x + static_cast<int64_t>(o) * inner, inner) ? 1 : 0;
  } else if (is_any) reduce_into<bool>(*r.self, r.mask, acc, [](uint8_t& a, bool x) { a |= x; });
  else reduce_into<bool>(*r.self, r.mask, acc, [](uint8_t& a, bool x) { a &= x; });
  std::memcpy(out.data, acc.data(), acc.size());  // bool and uint8 are both one 0/1 byte here
  return {};
}

Status any_all_dim(const char* op, bool is_any, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *out{};
  int64_t dim = 0;
  bool keepdim = false;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, arg(self, "self"), arg(dim, "dim"), arg(keepdim, "keepdim"),
                                 arg(out, "out")));
  Reduction r;
  WICK_RETURN_IF_ERROR(setup(op, self, std::vector<int64_t>{dim}, keepdim, out, r));
  return any_all(op, is_any, r);
}

Status any_all_dims(const char* op, bool is_any, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *out{};
  std::optional<std::vector<int64_t>> dims;
  bool keepdim = false;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, arg(self, "self"), arg(dims, "dim"), arg(keepdim, "keepdim"),
                                 arg(out, "out")));
  Reduction r;
  WICK_RETURN_IF_ERROR(setup(op, self, dims, keepdim, out, r));
  return any_all(op, is_any, r);
}

Status any_all_all(const char* op, bool is_any, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 3, arg(self, "self"), arg(out, "out")));
  Reduction r;
  WICK_RETURN_IF_ERROR(setup(op, self, std::nullopt, false, out, r));
  return any_all(op, is_any, r);
}

// NaN wins (PyTorch's max/min propagate it); otherwise the larger (or smaller) value.
template <class T>
bool better(T candidate, T current, bool is_max) {
  if constexpr (!std::is_integral_v<T>) {
    if (std::isnan(current)) return false;
    if (std::isnan(candidate)) return true;
  }
  return is_max ? candidate > current : candidate < current;
}

// amax/amin over a set of dims.
Status extreme_values(const char* op, bool is_max, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *out{};
  std::vector<int64_t> dims;
  bool keepdim = false;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, checked_arg(self, "self"), arg(dims, "dim"),
                                 arg(keepdim, "keepdim"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *self, "self", *out, "out"));
  Reduction r;
  WICK_RETURN_IF_ERROR(setup(op, self, dims, keepdim, out, r));
  if (self->numel() == 0 && out->numel() > 0) return invalid_arg(op, "reducing over a zero-size dim");
  return visit_dtype(self->dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    using A = decltype(to_arith(T{}));
    Scratch<A> acc(static_cast<size_t>(out->numel()));
    std::vector<uint8_t> seen(acc.size(), 0);
    std::array<std::vector<int64_t>, 1> st{reduce_strides(self->sizes, r.mask)};
    const T* x = self->data_as<T>();
    for_each_broadcast<1>(self->sizes, st, [&](int64_t i, const std::array<int64_t, 1>& o) {
      const size_t k = static_cast<size_t>(o[0]);
      A v = to_arith(x[i]);
      if (!seen[k] || better<A>(v, static_cast<A>(acc[k]), is_max)) acc[k] = v;
      seen[k] = 1;
    });
    T* y = out->data_as<T>();
    for (size_t k = 0; k < acc.size(); ++k) y[k] = convert<T>(static_cast<A>(acc[k]));
    return {};
  });
}

// Index of the best element along `dim` of each (outer, inner) line; the first on ties.
template <class T>
void arg_extreme(const T* x, DimSplit s, bool is_max, T* best_values, int64_t* best_index) {
  using A = decltype(to_arith(T{}));
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t in = 0; in < s.inner; ++in) {
      const T* line = x + o * s.size * s.inner + in;
      A best = to_arith(line[0]);
      int64_t idx = 0;
      for (int64_t j = 1; j < s.size; ++j) {
        A v = to_arith(line[j * s.inner]);
        if (better(v, best, is_max)) {
          best = v;
          idx = j;
        }
      }
      const int64_t k = o * s.inner + in;
      if (best_values) best_values[k] = convert<T>(best);
      if (best_index) best_index[k] = idx;
    }
  }
}

// max.dim_max / min.dim_min: (Tensor self, int dim, bool keepdim, *, Tensor(a!) values, Tensor(b!) indices)
Status extreme_dim(const char* op, bool is_max, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *vals{}, *idx{};
  int64_t dim = 0;
  bool keepdim = false;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 6, checked_arg(self, "self"), arg(dim, "dim"), arg(keepdim, "keepdim"),
                                 arg(vals, is_max ? "max" : "min"), arg(idx, is_max ? "max_values" : "min_indices")));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *self, "self", *vals, "values"));
  if (idx->dtype != ScalarType::kLong) return invalid_arg(op, "indices must be int64, got " + dtype_str(idx->dtype));
  WICK_ASSIGN_OR_RETURN(int64_t d, normalize_dim(op, dim, self->dim()));
  std::vector<bool> mask(static_cast<size_t>(self->dim()), false);
  if (self->dim() > 0) {
    mask[static_cast<size_t>(d)] = true;
    if (self->sizes[static_cast<size_t>(d)] == 0) return invalid_arg(op, "reducing over a zero-size dim");
  }
  std::vector<int64_t> shape = reduced_shape(self->sizes, mask, keepdim);
  WICK_RETURN_IF_ERROR(prepare_output(op, *vals, shape, "values"));
  WICK_RETURN_IF_ERROR(prepare_output(op, *idx, shape, "indices"));
  if (vals->numel() == 0) return {};
  DimSplit s = split_at(self->sizes, d);
  visit_dtype(self->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    arg_extreme(self->data_as<T>(), s, is_max, vals->data_as<T>(), idx->data_as<int64_t>());
  });
  return {};
}

// argmax/argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
Status arg_extreme_op(const char* op, bool is_max, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *out{};
  std::optional<int64_t> dim;
  bool keepdim = false;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, checked_arg(self, "self"), arg(dim, "dim"),
                                 arg(keepdim, "keepdim"), arg(out, "out")));
  if (out->dtype != ScalarType::kLong) return invalid_arg(op, "out must be int64, got " + dtype_str(out->dtype));
  if (self->dtype == ScalarType::kBool) return not_supported(op, "self has dtype bool");
  std::vector<bool> mask(static_cast<size_t>(self->dim()), !dim.has_value());
  DimSplit s;
  if (dim) {
    WICK_ASSIGN_OR_RETURN(int64_t d, normalize_dim(op, *dim, self->dim()));
    if (self->dim() > 0) mask[static_cast<size_t>(d)] = true;
    s = split_at(self->sizes, d);
  } else {
    s.size = self->numel();  // over the flattened tensor
  }
  if (s.size == 0) return invalid_arg(op, "reducing over a zero-size dim");
  std::vector<int64_t> shape = reduced_shape(self->sizes, mask, keepdim);
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  if (out->numel() == 0) return {};
  visit_dtype(self->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    arg_extreme<T>(self->data_as<T>(), s, is_max, nullptr, out->data_as<int64_t>());
  });
  return {};
}

}  // namespace

Status sum_intlist_out(ValueTable& v, std::span<const int32_t> a) { return sum_like_op("aten::sum.IntList_out", SumKind::kSum, v, a); }
Status mean_out(ValueTable& v, std::span<const int32_t> a) { return sum_like_op("aten::mean.out", SumKind::kMean, v, a); }

// prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out)
Status prod_int_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::prod.int_out";
  Tensor *self{}, *out{};
  int64_t dim = 0;
  bool keepdim = false;
  std::optional<ScalarType> dtype;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 6, arg(self, "self"), arg(dim, "dim"), arg(keepdim, "keepdim"),
                                 arg(dtype, "dtype"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_dtype_arg(op, dtype, *out));
  Reduction r;
  WICK_RETURN_IF_ERROR(setup(op, self, std::vector<int64_t>{dim}, keepdim, out, r));
  return sum_like(op, SumKind::kProd, r);
}

Status any_out(ValueTable& v, std::span<const int32_t> a) { return any_all_dim("aten::any.out", true, v, a); }
Status any_dims_out(ValueTable& v, std::span<const int32_t> a) { return any_all_dims("aten::any.dims_out", true, v, a); }
Status any_all_out(ValueTable& v, std::span<const int32_t> a) { return any_all_all("aten::any.all_out", true, v, a); }
Status all_out(ValueTable& v, std::span<const int32_t> a) { return any_all_dim("aten::all.out", false, v, a); }
Status all_dims_out(ValueTable& v, std::span<const int32_t> a) { return any_all_dims("aten::all.dims_out", false, v, a); }
Status all_all_out(ValueTable& v, std::span<const int32_t> a) { return any_all_all("aten::all.all_out", false, v, a); }
Status amax_out(ValueTable& v, std::span<const int32_t> a) { return extreme_values("aten::amax.out", true, v, a); }
Status amin_out(ValueTable& v, std::span<const int32_t> a) { return extreme_values("aten::amin.out", false, v, a); }
Status max_dim_max(ValueTable& v, std::span<const int32_t> a) { return extreme_dim("aten::max.dim_max", true, v, a); }
Status min_dim_min(ValueTable& v, std::span<const int32_t> a) { return extreme_dim("aten::min.dim_min", false, v, a); }
Status argmax_out(ValueTable& v, std::span<const int32_t> a) { return arg_extreme_op("aten::argmax.out", true, v, a); }
Status argmin_out(ValueTable& v, std::span<const int32_t> a) { return arg_extreme_op("aten::argmin.out", false, v, a); }

// var.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, Tensor(a!) out)
Status var_correction_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::var.correction_out";
  Tensor *self{}, *out{};
  std::optional<std::vector<int64_t>> dims;
  std::optional<Scalar> correction;
  bool keepdim = false;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 6, floating_arg(self, "self"), arg(dims, "dim"),
                                 arg(correction, "correction"), arg(keepdim, "keepdim"), arg(out, "out")));
  if (!is_floating(out->dtype)) return invalid_arg(op, "out must be floating, got " + dtype_str(out->dtype));
  Reduction r;
  WICK_RETURN_IF_ERROR(setup(op, self, dims, keepdim, out, r));
  const int64_t n_out = out->numel();
  const double count = static_cast<double>(reduced_count(self->sizes, r.mask));
  const double corr = correction ? correction->to_double() : 1.0;
  // Two passes (mean, then squared deviations) keep the result accurate for large means.
  std::vector<double> mean(static_cast<size_t>(n_out), 0.0), m2(static_cast<size_t>(n_out), 0.0);
  reduce_into<double>(*self, r.mask, mean, [](double& acc, double x) { acc += x; });
  for (double& m : mean) m /= count;
  std::array<std::vector<int64_t>, 1> st{reduce_strides(self->sizes, r.mask)};
  visit_dtype(self->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = self->data_as<T>();
    for_each_broadcast<1>(self->sizes, st, [&](int64_t i, const std::array<int64_t, 1>& o) {
      const double dev = convert<double>(x[i]) - mean[static_cast<size_t>(o[0])];
      m2[static_cast<size_t>(o[0])] += dev * dev;
    });
  });
  const double denom = std::max(0.0, count - corr);
  for (double& v : m2) v /= denom;
  convert_elements(m2.data(), ScalarType::kDouble, out->data, out->dtype, n_out);
  return {};
}

}  // namespace wick::cpu
