// Matrix products: mm, bmm, addmm, baddbmm, linear.
#include <algorithm>

#include "kernels/cpu/dot_rows.h"
#include "kernels/cpu/hot_loop.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/linear_gemm.h"
#include "kernels/cpu/ops.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu {
namespace {

// c[m, n] = sum_k a[m, k] * b[k, n], with c zeroed first. Row-times-row order keeps the
// inner loop contiguous in b and c so it vectorises.
// Rows [r0, r1) of c.
template <class T>
void gemm_rows(const T* a, const T* b, T* c, int64_t k, int64_t n, int64_t r0, int64_t r1) {
  std::fill(c + r0 * n, c + r1 * n, T(0));
  for (int64_t i = r0; i < r1; ++i) {
    T* crow = c + i * n;
    for (int64_t p = 0; p < k; ++p) {
      const T av = a[i * k + p];
      const T* brow = b + p * n;
      for (int64_t j = 0; j < n; ++j) crow[j] = wrap_add(crow[j], wrap_mul(av, brow[j]));
    }
  }
}

// `batch` products of [m, k] x [k, n], rows spread over the thread pool.
template <class T>
void batched_gemm(const T* a, const T* b, T* c, int64_t batch, int64_t m, int64_t k, int64_t n) {
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(k * n, 1));
  parallel_for(batch * m, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end;) {
      const int64_t bi = r / m, i0 = r % m, i1 = std::min(m, i0 + (end - r));
      gemm_rows(a + bi * m * k, b + bi * k * n, c + bi * m * n, k, n, i0, i1);
      r += i1 - i0;
    }
  });
}

// y[m, o] = x[m, :] . w[o, :] for fp32 over output features [begin, end): weight rows
// are read in place (no transpose) by 8 running sums per dot product.
WICK_HOT_LOOP void linear_f32_features(const float* x, const float* w, float* y, int64_t m, int64_t k, int64_t n,
                                       int64_t begin, int64_t end) {
  for (int64_t o = begin; o < end; ++o) {
    const float* wr = w + o * k;
    for (int64_t i = 0; i < m; ++i) y[i * n + o] = dot_f32(x + i * k, wr, k);
  }
}

constexpr int64_t kLinearGemmMinRows = 4;

// Output features spread over the thread pool.
void linear_f32(const float* x, const float* w, float* y, int64_t m, int64_t k, int64_t n) {
  parallel_for(n, std::max<int64_t>(1, 65536 / std::max<int64_t>(m * k, 1)),
               [&](int64_t begin, int64_t end) { linear_f32_features(x, w, y, m, k, n, begin, end); });
}

Status check_matrix_inputs(const char* op, std::initializer_list<std::pair<const Tensor*, const char*>> ts,
                           const Tensor& out) {
  const Tensor* first = ts.begin()->first;
  for (auto [t, name] : ts) {
    WICK_RETURN_IF_ERROR(check_tensor(op, *t, name));
    WICK_RETURN_IF_ERROR(check_same_dtype(op, *first, ts.begin()->second, *t, name));
  }
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *first, ts.begin()->second, out, "out"));
  if (first->dtype == ScalarType::kBool) return not_supported(op, "bool matrices");
  return {};
}

// out[b] = beta * self + alpha * (m1[b] @ m2[b]) for each batch; self broadcasts to
// [batch, m, n] (or [m, n] when batch_rank is 0). With beta == 0 self is ignored, so
// NaN/inf in it do not propagate (PyTorch's rule).
Status batched_addmm(const char* op, const Tensor* self, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                     const Scalar& alpha, Tensor& out, bool batched) {
  const int rank = batched ? 3 : 2;
  if (m1.dim() != rank)
    return invalid_arg(op, std::string(batched ? "batch1" : "mat1") + " must be rank " + std::to_string(rank) + ", got " +
                               m1.shape_string());
  if (m2.dim() != rank)
    return invalid_arg(op, std::string(batched ? "batch2" : "mat2") + " must be rank " + std::to_string(rank) + ", got " +
                               m2.shape_string());
  const int64_t batch = batched ? m1.size(0) : 1;
  if (batched && m2.size(0) != batch)
    return invalid_arg(op, "batch sizes differ: " + m1.shape_string() + " and " + m2.shape_string());
  const int64_t m = m1.size(rank - 2), k = m1.size(rank - 1), n = m2.size(rank - 1);
  if (m2.size(rank - 2) != k)
    return invalid_arg(op, "shapes " + m1.shape_string() + " and " + m2.shape_string() + " cannot be multiplied");
  std::vector<int64_t> shape = batched ? std::vector<int64_t>{batch, m, n} : std::vector<int64_t>{m, n};
  if (self) {
    WICK_ASSIGN_OR_RETURN(auto bshape, broadcast_shapes(op, self->sizes, shape));
    if (!shape_equal(bshape, shape))
      return invalid_arg(op, "self " + self->shape_string() + " does not broadcast to " + shape_to_string(shape));
  }
  const ScalarType dt = m1.dtype;
  if (is_integral(dt, false) && (beta.is_floating() || alpha.is_floating()))
    return invalid_arg(op, "for integer matrices, beta and alpha must not be floating point numbers");
  WICK_RETURN_IF_ERROR(prepare_output(op, out, shape));
  if (out.numel() == 0) return {};

  return visit_compute(compute_type_for(dt), [&](auto tag) -> Status {
    using CT = typename decltype(tag)::type;
    std::vector<CT> s1, s2, ss, so;
    const CT* a = elements_as<CT>(m1, s1);
    const CT* b = elements_as<CT>(m2, s2);
    CT* c = output_as<CT>(out, so);
    batched_gemm(a, b, c, batch, m, k, n);
    const CT al = alpha.as<CT>();
    const bool use_self = self != nullptr && beta.to_double() != 0.0;
    if (!use_self) {
      if (al != CT(1))
        for (int64_t i = 0; i < out.numel(); ++i) c[i] = wrap_mul(al, c[i]);
    } else {
      const CT be = beta.as<CT>();
      const CT* s = elements_as<CT>(*self, ss);
      std::array<std::vector<int64_t>, 1> st{broadcast_strides(self->sizes, shape)};
      for_each_broadcast<1>(shape, st, [&](int64_t i, const std::array<int64_t, 1>& o) {
        c[i] = wrap_add(wrap_mul(be, s[o[0]]), wrap_mul(al, c[i]));
      });
    }
    finish_output(out, so);
    return {};
  });
}

}  // namespace

namespace {
// addmm and baddbmm: (Tensor self, Tensor m1, Tensor m2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out).
Status addmm_family(const char* op, const char* m1_name, const char* m2_name, bool batched, ValueTable& values,
                    std::span<const int32_t> args) {
  Tensor *self{}, *m1{}, *m2{}, *out{};
  Scalar beta, alpha;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 7, arg(self, "self"), arg(m1, m1_name), arg(m2, m2_name),
                                 arg(beta, "beta"), arg(alpha, "alpha"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_matrix_inputs(op, {{m1, m1_name}, {m2, m2_name}, {self, "self"}}, *out));
  return batched_addmm(op, self, *m1, *m2, beta, alpha, *out, batched);
}

// mm and bmm: (Tensor self, Tensor mat2, *, Tensor(a!) out), addmm with no self.
Status mm_family(const char* op, bool batched, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *mat2{}, *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, arg(self, "self"), arg(mat2, "mat2"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_matrix_inputs(op, {{self, "self"}, {mat2, "mat2"}}, *out));
  Scalar one;
  one.i = 1;
  return batched_addmm(op, nullptr, *self, *mat2, one, one, *out, batched);
}
}  // namespace

Status addmm_out(ValueTable& values, std::span<const int32_t> args) {
  return addmm_family("aten::addmm.out", "mat1", "mat2", false, values, args);
}
Status baddbmm_out(ValueTable& values, std::span<const int32_t> args) {
  return addmm_family("aten::baddbmm.out", "batch1", "batch2", true, values, args);
}
Status mm_out(ValueTable& values, std::span<const int32_t> args) { return mm_family("aten::mm.out", false, values, args); }
Status bmm_out(ValueTable& values, std::span<const int32_t> args) { return mm_family("aten::bmm.out", true, values, args); }

// linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out):
// input [..., in] @ weight[out, in]^T + bias.
Status linear_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::linear.out";
  Tensor *input{}, *weight{}, *bias{}, *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, arg(input, "input"), arg(weight, "weight"),
                                 optional_arg(bias, "bias"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_matrix_inputs(op, {{input, "input"}, {weight, "weight"}}, *out));
  if (bias) {
    WICK_RETURN_IF_ERROR(check_tensor(op, *bias, "bias"));
    WICK_RETURN_IF_ERROR(check_same_dtype(op, *input, "input", *bias, "bias"));
  }
  if (weight->dim() != 2) return invalid_arg(op, "weight must be rank 2, got " + weight->shape_string());
  if (input->dim() < 1) return invalid_arg(op, "input must have at least one dim");
  const int64_t in_f = weight->size(1), out_f = weight->size(0);
  if (input->size(input->dim() - 1) != in_f)
    return invalid_arg(op, "input " + input->shape_string() + " does not match weight " + weight->shape_string());
  std::vector<int64_t> shape = input->sizes;
  shape.back() = out_f;
  if (bias) {
    WICK_ASSIGN_OR_RETURN(auto bshape, broadcast_shapes(op, bias->sizes, shape));
    if (!shape_equal(bshape, shape))
      return invalid_arg(op, "bias " + bias->shape_string() + " does not broadcast to " + shape_to_string(shape));
  }
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  if (out->numel() == 0) return {};
  const int64_t rows = input->numel() / std::max<int64_t>(in_f, 1);
  const int64_t m = in_f == 0 ? shape_numel(shape) / std::max<int64_t>(out_f, 1) : rows;
  return visit_compute(compute_type_for(input->dtype), [&](auto tag) -> Status {
    using CT = typename decltype(tag)::type;
    std::vector<CT> si, sw, sb, so;
    const CT* x = elements_as<CT>(*input, si);
    const CT* w = elements_as<CT>(*weight, sw);
    CT* y = output_as<CT>(*out, so);
    if constexpr (std::is_same_v<CT, float>) {
      // From a few rows on, the packed matrix product (linear_gemm.cpp) reuses each loaded
      // weight over 16 rows; below, the dot products read the weights once and stop.
      if (m >= kLinearGemmMinRows) linear_f32_gemm(x, w, y, m, in_f, out_f);
      else linear_f32(x, w, y, m, in_f, out_f);
    } else {
      // Transposing the weight once keeps the gemm inner loop contiguous.
      std::vector<CT> wt(static_cast<size_t>(in_f * out_f));
      for (int64_t o = 0; o < out_f; ++o)
        for (int64_t i = 0; i < in_f; ++i) wt[static_cast<size_t>(i * out_f + o)] = w[o * in_f + i];
      batched_gemm(x, wt.data(), y, 1, m, in_f, out_f);
    }
    if (bias) {
      const CT* b = elements_as<CT>(*bias, sb);
      std::array<std::vector<int64_t>, 1> st{broadcast_strides(bias->sizes, shape)};
      for_each_broadcast<1>(shape, st, [&](int64_t i, const std::array<int64_t, 1>& o) { y[i] = wrap_add(y[i], b[o[0]]); });
    }
    finish_output(*out, so);
    return {};
  });
}

}  // namespace wick::cpu
