// Softmax and log-softmax along a dim.
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"

namespace wick::cpu {
namespace {

// (Tensor self, int dim, bool half_to_float, *, Tensor(a!) out). Subtracting the line's
// max keeps exp() in range; sums accumulate in double.
Status softmax_like(const char* op, bool log, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *out{};
  int64_t dim = 0;
  bool half_to_float = false;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, floating_arg(self, "self"), arg(dim, "dim"),
                                 arg(half_to_float, "half_to_float"), arg(out, "out")));
  if (half_to_float) {
    if (self->dtype != ScalarType::kHalf || out->dtype != ScalarType::kFloat)
      return invalid_arg(op, "half_to_float needs a float16 input and a float32 out");
  } else {
    WICK_RETURN_IF_ERROR(check_same_dtype(op, *self, "self", *out, "out"));
  }
  WICK_ASSIGN_OR_RETURN(int64_t d, normalize_dim(op, dim, self->dim()));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, self->sizes));
  if (out->numel() == 0) return {};
  DimSplit s = split_at(self->sizes, d);
  return compute_in_out(*self, *out, [&](const auto* x, auto* y) {
    using CT = std::remove_pointer_t<decltype(y)>;
    std::vector<double> line(static_cast<size_t>(s.size));
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t in = 0; in < s.inner; ++in) {
        const int64_t base = o * s.size * s.inner + in;
        CT mx = x[base];
        for (int64_t j = 1; j < s.size; ++j) {
          const CT v = x[base + j * s.inner];
          if (v > mx || v != v) mx = v;
          if (mx != mx) break;
        }
        // An all -inf line gives inf - inf = NaN, as PyTorch's does.
        double sum = 0;
        for (int64_t j = 0; j < s.size; ++j) {
          const double e = std::exp(static_cast<double>(x[base + j * s.inner]) - static_cast<double>(mx));
          line[static_cast<size_t>(j)] = e;
          sum += e;
        }
        const double lse = std::log(sum);
        for (int64_t j = 0; j < s.size; ++j) {
          const int64_t k = base + j * s.inner;
          y[k] = log ? static_cast<CT>(static_cast<double>(x[k]) - static_cast<double>(mx) - lse)
                     : static_cast<CT>(line[static_cast<size_t>(j)] / sum);
        }
      }
    }
  });
}

}  // namespace

Status softmax_out(ValueTable& v, std::span<const int32_t> a) { return softmax_like("aten::_softmax.out", false, v, a); }
Status log_softmax_out(ValueTable& v, std::span<const int32_t> a) { return softmax_like("aten::_log_softmax.out", true, v, a); }

}  // namespace wick::cpu
