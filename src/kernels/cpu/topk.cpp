// Ordering along a dim: topk and sort. NaN orders above +inf, as in PyTorch; ties keep
// the lower index first, which makes results deterministic.
#include <algorithm>
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"

namespace wick::cpu {
namespace {

template <class A>
bool nan_aware_greater(A x, A y) {
  if constexpr (!std::is_integral_v<A>) {
    if (std::isnan(x)) return !std::isnan(y);
    if (std::isnan(y)) return false;
  }
  return x > y;
}

// Writes the first k entries of every (outer, inner) line along `dim`, ordered
// descending (largest) or ascending, into values/indices shaped like the input with
// dim replaced by k.
Status ordered_select(const char* op, const Tensor& self, int64_t dim, int64_t k, bool largest, Tensor& values,
                      Tensor& indices) {
  DimSplit s = split_at(self.sizes, dim);
  std::vector<int64_t> shape = self.sizes;
  if (!shape.empty()) shape[static_cast<size_t>(dim)] = k;
  WICK_RETURN_IF_ERROR(prepare_output(op, values, shape, "values"));
  WICK_RETURN_IF_ERROR(prepare_output(op, indices, shape, "indices"));
  if (values.numel() == 0) return {};
  visit_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = decltype(to_arith(T{}));
    const T* x = self.data_as<T>();
    T* vo = values.data_as<T>();
    int64_t* io = indices.data_as<int64_t>();
    std::vector<std::pair<A, int64_t>> line(static_cast<size_t>(s.size));
    auto before = [largest](const std::pair<A, int64_t>& p, const std::pair<A, int64_t>& q) {
      const bool pq = largest ? nan_aware_greater(p.first, q.first) : nan_aware_greater(q.first, p.first);
      const bool qp = largest ? nan_aware_greater(q.first, p.first) : nan_aware_greater(p.first, q.first);
      if (pq != qp) return pq;
      return p.second < q.second;
    };
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t in = 0; in < s.inner; ++in) {
        const int64_t base = o * s.size * s.inner + in;
        for (int64_t j = 0; j < s.size; ++j) line[static_cast<size_t>(j)] = {to_arith(x[base + j * s.inner]), j};
        if (k < s.size) std::partial_sort(line.begin(), line.begin() + k, line.end(), before);
        else std::sort(line.begin(), line.end(), before);
        const int64_t obase = o * k * s.inner + in;
        for (int64_t j = 0; j < k; ++j) {
          vo[obase + j * s.inner] = convert<T>(line[static_cast<size_t>(j)].first);
          io[obase + j * s.inner] = line[static_cast<size_t>(j)].second;
        }
      }
    }
  });
  return {};
}

// The dim topk and sort order along and its size (1 for a 0-dim self), after checking the
// inputs and outputs.
struct OrderDim {
  int64_t dim, size;
};
Result<OrderDim> order_dim(const char* op, const Tensor& self, int64_t dim, const Tensor& values,
                           const Tensor& indices) {
  WICK_RETURN_IF_ERROR(check_tensor(op, self, "self"));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, self, "self", values, "values"));
  if (indices.dtype != ScalarType::kLong) return invalid_arg(op, "indices must be int64, got " + dtype_str(indices.dtype));
  WICK_ASSIGN_OR_RETURN(int64_t d, normalize_dim(op, dim, self.dim()));
  return OrderDim{d, self.dim() == 0 ? 1 : self.size(static_cast<int>(d))};
}

// sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, Tensor(b!) indices)
Status sort_into(const char* op, ValueTable& vt, std::span<const int32_t> args) {
  Tensor *self{}, *values{}, *indices{};
  int64_t dim = 0;
  bool descending = false;
  WICK_RETURN_IF_ERROR(read_args(op, vt, args, 6, arg(self, "self"), arg(dim, "dim"), arg(descending, "descending"),
                                 arg(values, "values"), arg(indices, "indices")));
  WICK_ASSIGN_OR_RETURN(OrderDim od, order_dim(op, *self, dim, *values, *indices));
  return ordered_select(op, *self, od.dim, od.size, descending, *values, *indices);
}

}  // namespace

// topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *,
//   Tensor(a!) values, Tensor(b!) indices)
Status topk_values(ValueTable& vt, std::span<const int32_t> args) {
  const char* op = "aten::topk.values";
  Tensor *self{}, *values{}, *indices{};
  int64_t k = 0, dim = 0;
  bool largest = false, sorted = false;  // unsorted order is unspecified; sorted order is a valid one
  WICK_RETURN_IF_ERROR(read_args(op, vt, args, 8, arg(self, "self"), arg(k, "k"), arg(dim, "dim"),
                                 arg(largest, "largest"), arg(sorted, "sorted"), arg(values, "values"),
                                 arg(indices, "indices")));
  WICK_ASSIGN_OR_RETURN(OrderDim od, order_dim(op, *self, dim, *values, *indices));
  if (k < 0 || k > od.size)
    return invalid_arg(op, "k " + std::to_string(k) + " out of range for a dim of size " + std::to_string(od.size));
  return ordered_select(op, *self, od.dim, k, largest, *values, *indices);
}

Status sort_values(ValueTable& vt, std::span<const int32_t> args) { return sort_into("aten::sort.values", vt, args); }

// sort.values_stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False,
//   Tensor(a!) values, Tensor(b!) indices): sort.values without `stable` (ties already keep
// their input order).
Status sort_values_stable(ValueTable& vt, std::span<const int32_t> args) {
  const char* op = "aten::sort.values_stable";
  WICK_RETURN_IF_ERROR(KernelArgs(op, vt, args).expect_count(7));
  const int32_t without_stable[] = {args[0], args[2], args[3], args[4], args[5], args[6]};
  return sort_into(op, vt, without_stable);
}

}  // namespace wick::cpu
