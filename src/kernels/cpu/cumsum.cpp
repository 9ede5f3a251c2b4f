// Cumulative sum and product along a dim.
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"

namespace wick::cpu {
namespace {

// (Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out). The input is cast
// to the result dtype (dtype, else out's) and accumulated in double or int64, as
// PyTorch's CPU kernel accumulates in acc_type.
Status cumulative(const char* op, bool product, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *out{};
  int64_t dim = 0;
  std::optional<ScalarType> dtype;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, checked_arg(self, "self"), arg(dim, "dim"), arg(dtype, "dtype"),
                                 arg(out, "out")));
  if (!is_kernel_dtype(out->dtype)) return not_supported(op, "out has dtype " + dtype_str(out->dtype));
  if (dtype && *dtype != out->dtype)
    return invalid_arg(op, "dtype " + dtype_str(*dtype) + " does not match out dtype " + dtype_str(out->dtype));
  WICK_ASSIGN_OR_RETURN(int64_t d, normalize_dim(op, dim, self->dim()));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, self->sizes));
  const int64_t n = self->numel();
  if (n == 0) return {};
  DimSplit s = split_at(self->sizes, d);
  auto run = [&](auto tag) {
    using A = typename decltype(tag)::type;
    // Convert into the result dtype first so that e.g. a float input summed as int64
    // truncates each element, then accumulate in A.
    std::vector<uint8_t> cast(static_cast<size_t>(n) * element_size(out->dtype));
    convert_elements(self->data, self->dtype, cast.data(), out->dtype, n);
    std::vector<A> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
    convert_elements(cast.data(), out->dtype, x.data(), scalar_type_of<A>(), n);
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t in = 0; in < s.inner; ++in) {
        A acc = product ? A(1) : A(0);
        for (int64_t j = 0; j < s.size; ++j) {
          const size_t k = static_cast<size_t>((o * s.size + j) * s.inner + in);
          acc = product ? wrap_mul(acc, x[k]) : wrap_add(acc, x[k]);
          y[k] = acc;
        }
      }
    }
    convert_elements(y.data(), scalar_type_of<A>(), out->data, out->dtype, n);
  };
  if (is_floating(out->dtype)) run(TypeTag<double>{});
  else run(TypeTag<int64_t>{});
  return {};
}

}  // namespace

Status cumsum_out(ValueTable& v, std::span<const int32_t> a) { return cumulative("aten::cumsum.out", false, v, a); }
Status cumprod_out(ValueTable& v, std::span<const int32_t> a) { return cumulative("aten::cumprod.out", true, v, a); }

}  // namespace wick::cpu
