// Elementwise unary kernels: math functions, activations, rounding, clamps.
#include <algorithm>
#include <cmath>

#include "kernels/cpu/hot_loop.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu {
namespace {

// What dtype a unary op produces from its input's.
enum class Produces {
  kFloating,  // integers and bool become float32 (log, exp, sigmoid...)
  kSame,      // the input's dtype; bool is rejected (neg, relu, abs...)
  kSameOrBool,  // the input's dtype, bool included (floor, ceil...: identity on integers)
  kFloatOnly,   // floating inputs only (gelu, silu...)
};

constexpr int64_t kUnaryGrain = 32768;  // elements per chunk: enough to pay for a hand-off

// fp32 hardswish, PyTorch's x * min(max(x + 3, 0), 6) / 6, in the AVX2 clone (MobileNetV3
// applies it to most of its activations; the generic loop below runs 4-wide SSE).
WICK_HOT_LOOP void hardswish_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * std::min(std::max(x[i] + 3.0f, 0.0f), 6.0f) / 6.0f;
}
struct HardswishFn;

// kFloatingOnly: the caller has made `result` floating, so Fn is not compiled for int64.
template <bool kFloatingOnly = false, class Fn>
Status run_unary(const char* op, const Tensor& in, Tensor& out, ScalarType result, Fn fn) {
  if (!is_kernel_dtype(out.dtype)) return not_supported(op, "out has dtype " + dtype_str(out.dtype));
  if (!can_cast(result, out.dtype))
    return invalid_arg(op, "result type " + dtype_str(result) + " can't be cast to out dtype " + dtype_str(out.dtype));
  WICK_RETURN_IF_ERROR(prepare_output(op, out, in.sizes));
  const int64_t n = in.numel();
  if (n == 0) return {};
  return visit_compute(compute_type_for(result), [&](auto tag) -> Status {
    using CT = typename decltype(tag)::type;
    if constexpr (kFloatingOnly && std::is_integral_v<CT>) {
      return op_error(op, ErrorCode::kInternal, "a floating-only function dispatched on integers");
    } else {
      std::vector<CT> sin, sout;
      const CT* x = elements_as<CT>(in, sin);
      CT* y = result_output<CT>(out, result, sout);
      // One loop for a chunk [begin, end); large activations (MobileNet's hardswish on
      // 16 x 112 x 112) run it in chunks over the pool.
      auto chunk = [&](int64_t begin, int64_t end) {
        if constexpr (std::is_same_v<CT, float> && std::is_same_v<Fn, HardswishFn>) {
          hardswish_f32(x + begin, y + begin, end - begin);
        } else {
          for (int64_t i = begin; i < end; ++i) y[i] = fn(x[i]);
        }
      };
      if (n >= 2 * kUnaryGrain) {
        parallel_for(n, kUnaryGrain, chunk);
      } else {
        chunk(0, n);
      }
      finish_result(out, result, sout);
      return {};
    }
  });
}

template <Produces produces, class Fn>
Status unary_op(const char* op, ValueTable& values, std::span<const int32_t> args, Fn fn) {
  Tensor *self{}, *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 3, checked_arg(self, "self"), arg(out, "out")));
  ScalarType result = self->dtype;
  switch (produces) {  // a constant: each instantiation keeps one case
    case Produces::kFloating:
      if (!is_floating(result)) result = ScalarType::kFloat;
      break;
    case Produces::kSame:
      if (result == ScalarType::kBool) return not_supported(op, "self has dtype bool");
      break;
    case Produces::kSameOrBool:
      break;
    case Produces::kFloatOnly:
      if (!is_floating(result)) return not_supported(op, "self has dtype " + dtype_str(result) + ", expected floating");
      break;
  }
  constexpr bool kFloating = produces == Produces::kFloating || produces == Produces::kFloatOnly;
  return run_unary<kFloating>(op, *self, *out, result, fn);
}

template <class T>
T neg_wrap(T x) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(0ULL - static_cast<uint64_t>(x));
  else return -x;
}

#define WICK_FN(name, expr)                 \
  struct name {                             \
    template <class T>                      \
    T operator()(T x) const { return expr; } \
  };
WICK_FN(LogFn, std::log(x))
WICK_FN(Log2Fn, std::log2(x))
WICK_FN(Log10Fn, std::log10(x))
WICK_FN(Log1pFn, std::log1p(x))
WICK_FN(ExpFn, std::exp(x))
WICK_FN(Expm1Fn, std::expm1(x))
WICK_FN(SqrtFn, std::sqrt(x))
WICK_FN(RsqrtFn, T(1) / std::sqrt(x))
WICK_FN(ReciprocalFn, T(1) / x)
WICK_FN(SinFn, std::sin(x))
WICK_FN(CosFn, std::cos(x))
WICK_FN(TanFn, std::tan(x))
WICK_FN(AsinFn, std::asin(x))
WICK_FN(AcosFn, std::acos(x))
WICK_FN(AtanFn, std::atan(x))
WICK_FN(SinhFn, std::sinh(x))
WICK_FN(CoshFn, std::cosh(x))
WICK_FN(TanhFn, std::tanh(x))
WICK_FN(ErfFn, std::erf(x))
WICK_FN(SigmoidFn, T(1) / (T(1) + std::exp(-x)))
WICK_FN(SiluFn, x / (T(1) + std::exp(-x)))
WICK_FN(HardsigmoidFn, std::min(std::max(x + T(3), T(0)), T(6)) / T(6))
WICK_FN(HardswishFn, x * std::min(std::max(x + T(3), T(0)), T(6)) / T(6))
WICK_FN(NegFn, neg_wrap(x))
#undef WICK_FN

struct ReluFn {
  template <class T>
  T operator()(T x) const {
    if constexpr (!std::is_integral_v<T>) {
      if (std::isnan(x)) return x;  // relu propagates NaN
    }
    return x > T(0) ? x : T(0);
  }
};
struct AbsFn {
  template <class T>
  T operator()(T x) const { return x < T(0) ? neg_wrap(x) : x; }
};
struct SignFn {
  template <class T>
  T operator()(T x) const { return static_cast<T>((T(0) < x) - (x < T(0))); }
};
// Rounding is the identity on integers.
struct FloorFn {
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) return x; else return std::floor(x);
  }
};
struct CeilFn {
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) return x; else return std::ceil(x);
  }
};
struct TruncFn {
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) return x; else return std::trunc(x);
  }
};
struct RoundFn {  // half to even, like torch.round
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) return x; else return std::nearbyint(x);
  }
};
struct GeluFn {
  bool tanh_approx;
  template <class T>
  T operator()(T x) const {
    if (tanh_approx) {
      const T k = static_cast<T>(0.7978845608028654);  // sqrt(2/pi)
      return T(0.5) * x * (T(1) + std::tanh(k * (x + T(0.044715) * x * x * x)));
    }
    return T(0.5) * x * (T(1) + std::erf(x * static_cast<T>(0.7071067811865476)));
  }
};
struct LeakyReluFn {
  double slope;
  template <class T>
  T operator()(T x) const { return x > T(0) ? x : x * static_cast<T>(slope); }
};
struct EluFn {
  double alpha, scale, input_scale;
  template <class T>
  T operator()(T x) const {
    if (x <= T(0)) return (std::exp(x * static_cast<T>(input_scale)) - T(1)) * static_cast<T>(alpha * scale);
    return x * static_cast<T>(scale);
  }
};
// clamp: NaN inputs stay NaN; min > max gives max (max applied last), as PyTorch.
struct ClampFn {
  std::optional<Scalar> lo, hi;
  template <class T>
  T operator()(T x) const {
    if constexpr (!std::is_integral_v<T>) {
      if (std::isnan(x)) return x;
    }
    if (lo) {
      T l = lo->as<T>();
      if constexpr (!std::is_integral_v<T>) {
        if (std::isnan(l)) return l;
      }
      x = x < l ? l : x;
    }
    if (hi) {
      T h = hi->as<T>();
      if constexpr (!std::is_integral_v<T>) {
        if (std::isnan(h)) return h;
      }
      x = x > h ? h : x;
    }
    return x;
  }
};

}  // namespace

#define WICK_UNARY(fn_name, op_name, produces, functor) \
  Status fn_name(ValueTable& v, std::span<const int32_t> a) { return unary_op<produces>(op_name, v, a, functor{}); }
WICK_UNARY(relu_out, "aten::relu.out", Produces::kSame, ReluFn)
WICK_UNARY(log_out, "aten::log.out", Produces::kFloating, LogFn)
WICK_UNARY(log2_out, "aten::log2.out", Produces::kFloating, Log2Fn)
WICK_UNARY(log10_out, "aten::log10.out", Produces::kFloating, Log10Fn)
WICK_UNARY(log1p_out, "aten::log1p.out", Produces::kFloating, Log1pFn)
WICK_UNARY(exp_out, "aten::exp.out", Produces::kFloating, ExpFn)
WICK_UNARY(expm1_out, "aten::expm1.out", Produces::kFloating, Expm1Fn)
WICK_UNARY(sqrt_out, "aten::sqrt.out", Produces::kFloating, SqrtFn)
WICK_UNARY(rsqrt_out, "aten::rsqrt.out", Produces::kFloating, RsqrtFn)
WICK_UNARY(reciprocal_out, "aten::reciprocal.out", Produces::kFloating, ReciprocalFn)
WICK_UNARY(sin_out, "aten::sin.out", Produces::kFloating, SinFn)
WICK_UNARY(cos_out, "aten::cos.out", Produces::kFloating, CosFn)
WICK_UNARY(tan_out, "aten::tan.out", Produces::kFloating, TanFn)
WICK_UNARY(asin_out, "aten::asin.out", Produces::kFloating, AsinFn)
WICK_UNARY(acos_out, "aten::acos.out", Produces::kFloating, AcosFn)
WICK_UNARY(atan_out, "aten::atan.out", Produces::kFloating, AtanFn)
WICK_UNARY(sinh_out, "aten::sinh.out", Produces::kFloating, SinhFn)
WICK_UNARY(cosh_out, "aten::cosh.out", Produces::kFloating, CoshFn)
WICK_UNARY(tanh_out, "aten::tanh.out", Produces::kFloating, TanhFn)
WICK_UNARY(erf_out, "aten::erf.out", Produces::kFloating, ErfFn)
WICK_UNARY(sigmoid_out, "aten::sigmoid.out", Produces::kFloating, SigmoidFn)
WICK_UNARY(silu_out, "aten::silu.out", Produces::kFloatOnly, SiluFn)
WICK_UNARY(hardsigmoid_out, "aten::hardsigmoid.out", Produces::kFloatOnly, HardsigmoidFn)
WICK_UNARY(hardswish_out, "aten::hardswish.out", Produces::kFloatOnly, HardswishFn)
WICK_UNARY(neg_out, "aten::neg.out", Produces::kSame, NegFn)
WICK_UNARY(abs_out, "aten::abs.out", Produces::kSame, AbsFn)
WICK_UNARY(sign_out, "aten::sign.out", Produces::kSameOrBool, SignFn)
WICK_UNARY(floor_out, "aten::floor.out", Produces::kSameOrBool, FloorFn)
WICK_UNARY(ceil_out, "aten::ceil.out", Produces::kSameOrBool, CeilFn)
WICK_UNARY(trunc_out, "aten::trunc.out", Produces::kSameOrBool, TruncFn)
WICK_UNARY(round_out, "aten::round.out", Produces::kSameOrBool, RoundFn)
#undef WICK_UNARY

// gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out)
Status gelu_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::gelu.out";
  Tensor *self{}, *out{};
  std::optional<std::string> approximate;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, floating_arg(self, "self"), arg(approximate, "approximate"),
                                 arg(out, "out")));
  std::string mode = approximate ? *approximate : "none";
  if (mode != "none" && mode != "tanh") return invalid_arg(op, "approximate must be 'none' or 'tanh', got '" + mode + "'");
  return run_unary<true>(op, *self, *out, self->dtype, GeluFn{mode == "tanh"});
}

// leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out)
Status leaky_relu_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::leaky_relu.out";
  Tensor *self{}, *out{};
  double slope = 0;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, floating_arg(self, "self"), arg(slope, "negative_slope"),
                                 arg(out, "out")));
  return run_unary<true>(op, *self, *out, self->dtype, LeakyReluFn{slope});
}

// elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *, Tensor(a!) out)
Status elu_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::elu.out";
  Tensor *self{}, *out{};
  double alpha = 0, scale = 0, input_scale = 0;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 6, floating_arg(self, "self"), arg(alpha, "alpha"),
                                 arg(scale, "scale"), arg(input_scale, "input_scale"), arg(out, "out")));
  return run_unary<true>(op, *self, *out, self->dtype, EluFn{alpha, scale, input_scale});
}

// clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)
Status clamp_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::clamp.out";
  Tensor *self{}, *out{};
  std::optional<Scalar> lo, hi;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, checked_arg(self, "self"), arg(lo, "min"), arg(hi, "max"),
                                 arg(out, "out")));
  if (!lo && !hi) return invalid_arg(op, "at least one of 'min' or 'max' must not be None");
  if (self->dtype == ScalarType::kBool) return not_supported(op, "self has dtype bool");
  ResultType rt;
  rt.add_tensor(*self);
  if (lo) rt.add_scalar(*lo);
  if (hi) rt.add_scalar(*hi);
  return run_unary(op, *self, *out, rt.result(), ClampFn{lo, hi});
}

// hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out)
Status hardtanh_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::hardtanh.out";
  Tensor *self{}, *out{};
  Scalar lo, hi;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, checked_arg(self, "self"), arg(lo, "min_val"), arg(hi, "max_val"),
                                 arg(out, "out")));
  if (self->dtype == ScalarType::kBool) return not_supported(op, "self has dtype bool");
  return run_unary(op, *self, *out, self->dtype, ClampFn{lo, hi});
}

namespace {
// Ops whose result is a predicate of each element, written as 0/1 in out's dtype.
template <class Pred>
Status predicate_op(const char* op, ValueTable& values, std::span<const int32_t> args, Pred pred) {
  Tensor *self{}, *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 3, checked_arg(self, "self"), arg(out, "out")));
  if (!is_kernel_dtype(out->dtype)) return not_supported(op, "out has dtype " + dtype_str(out->dtype));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, self->sizes));
  const int64_t n = self->numel();
  std::vector<uint8_t> tmp(static_cast<size_t>(n));
  visit_dtype(self->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = self->data_as<T>();
    for (int64_t i = 0; i < n; ++i) tmp[static_cast<size_t>(i)] = pred(to_arith(x[i])) ? 1 : 0;
  });
  convert_elements(tmp.data(), ScalarType::kBool, out->data, out->dtype, n);
  return {};
}
}  // namespace

Status logical_not_out(ValueTable& v, std::span<const int32_t> a) {
  return predicate_op("aten::logical_not.out", v, a, [](auto x) { return x == decltype(x)(0); });
}
Status isnan_out(ValueTable& v, std::span<const int32_t> a) {
  return predicate_op("aten::isnan.out", v, a, [](auto x) { return x != x; });
}
Status isinf_out(ValueTable& v, std::span<const int32_t> a) {
  return predicate_op("aten::isinf.out", v, a, [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) return std::isinf(x);
    else return false;
  });
}

// bitwise_not.out(Tensor self, *, Tensor(a!) out): ~x on integers, logical not on bool.
Status bitwise_not_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::bitwise_not.out";
  Tensor *self{}, *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 3, checked_arg(self, "self"), arg(out, "out")));
  if (is_floating(self->dtype)) return invalid_arg(op, "self must be integral or bool, got " + dtype_str(self->dtype));
  if (self->dtype == ScalarType::kBool) return logical_not_out(values, args);
  return run_unary(op, *self, *out, self->dtype, [](auto x) {
    if constexpr (std::is_integral_v<decltype(x)>) return ~x;
    else return x;  // floating inputs were rejected above
  });
}

}  // namespace wick::cpu
