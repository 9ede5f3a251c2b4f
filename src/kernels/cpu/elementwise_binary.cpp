// Broadcasting binary (and ternary `where`) elementwise kernels: arithmetic, division
// with rounding modes, min/max, pow, remainders, comparisons, logical and bitwise ops.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"

namespace wick::cpu {
namespace {

enum class Kind {
  kAdd, kSub, kMul, kDiv, kDivTrunc, kDivFloor, kMaximum, kMinimum, kPow, kRemainder, kFmod,
  kAtan2, kBitAnd, kBitOr, kBitXor,
  kEq, kNe, kLt, kLe, kGt, kGe,
  kLogicalAnd, kLogicalOr, kLogicalXor,
};

constexpr bool is_comparison(Kind k) { return k >= Kind::kEq && k <= Kind::kGe; }
constexpr bool is_logical(Kind k) { return k >= Kind::kLogicalAnd; }
constexpr bool makes_floating(Kind k) { return k == Kind::kDiv || k == Kind::kAtan2; }
constexpr bool is_bitwise(Kind k) { return k == Kind::kBitAnd || k == Kind::kBitOr || k == Kind::kBitXor; }
constexpr bool divides(Kind k) {
  return k == Kind::kDiv || k == Kind::kDivTrunc || k == Kind::kDivFloor || k == Kind::kRemainder || k == Kind::kFmod;
}

// Integer quotient and remainder; the caller has ruled out y == 0.
inline int64_t int_div_trunc(int64_t x, int64_t y) { return y == -1 ? wrap_sub<int64_t>(0, x) : x / y; }
inline int64_t int_mod_trunc(int64_t x, int64_t y) { return y == -1 ? 0 : x % y; }
inline int64_t int_div_floor(int64_t x, int64_t y) {
  int64_t q = int_div_trunc(x, y);
  if (int_mod_trunc(x, y) != 0 && ((x < 0) != (y < 0))) --q;
  return q;
}

// Python-style floor division of floats, as PyTorch's div_floor_floating.
template <class T>
T float_div_floor(T a, T b) {
  if (b == T(0)) return a / b;
  T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
  if (div == T(0)) return std::copysign(T(0), a / b);
  T floordiv = std::floor(div);
  if (div - floordiv > T(0.5)) floordiv += T(1);
  return floordiv;
}

inline int64_t int_pow(int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? -1 : 1;
    return 0;
  }
  int64_t result = 1;
  while (exp) {
    if (exp & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    exp >>= 1;
  }
  return result;
}

// One functor per kind, so that the inner loops are specialised per operation.
template <Kind K, class T>
struct Op;
template <class T> struct Op<Kind::kAdd, T> { T alpha; T operator()(T x, T y) const { return wrap_add(x, wrap_mul(alpha, y)); } };
template <class T> struct Op<Kind::kSub, T> { T alpha; T operator()(T x, T y) const { return wrap_sub(x, wrap_mul(alpha, y)); } };
template <class T> struct Op<Kind::kMul, T> { T operator()(T x, T y) const { return wrap_mul(x, y); } };
template <class T> struct Op<Kind::kDiv, T> { T operator()(T x, T y) const { return x / y; } };
template <class T> struct Op<Kind::kDivTrunc, T> {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) return int_div_trunc(x, y);
    else return std::trunc(x / y);
  }
};
template <class T> struct Op<Kind::kDivFloor, T> {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) return int_div_floor(x, y);
    else return float_div_floor(x, y);
  }
};
template <class T> struct Op<Kind::kMaximum, T> {
  T operator()(T x, T y) const {
    if constexpr (!std::is_integral_v<T>) {
      if (std::isnan(x)) return x;
      if (std::isnan(y)) return y;
    }
    return x > y ? x : y;
  }
};
template <class T> struct Op<Kind::kMinimum, T> {
  T operator()(T x, T y) const {
    if constexpr (!std::is_integral_v<T>) {
      if (std::isnan(x)) return x;
      if (std::isnan(y)) return y;
    }
    return x < y ? x : y;
  }
};
template <class T> struct Op<Kind::kPow, T> {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) return int_pow(x, y);
    else return std::pow(x, y);
  }
};
template <class T> struct Op<Kind::kRemainder, T> {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      T r = int_mod_trunc(x, y);
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      return r;
    } else {
      T m = std::fmod(x, y);
      if (m != T(0) && ((y < T(0)) != (m < T(0)))) m += y;
      return m;
    }
  }
};
template <class T> struct Op<Kind::kFmod, T> {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) return int_mod_trunc(x, y);
    else return std::fmod(x, y);
  }
};
template <class T> struct Op<Kind::kAtan2, T> { T operator()(T x, T y) const { return std::atan2(x, y); } };
template <class T> struct Op<Kind::kBitAnd, T> {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) return x & y;
    else return T(0);  // rejected before dispatch
  }
};
template <class T> struct Op<Kind::kBitOr, T> {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) return x | y;
    else return T(0);
  }
};
template <class T> struct Op<Kind::kBitXor, T> {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) return x ^ y;
    else return T(0);
  }
};
template <class T> struct Op<Kind::kEq, T> { bool operator()(T x, T y) const { return x == y; } };
template <class T> struct Op<Kind::kNe, T> { bool operator()(T x, T y) const { return x != y; } };
template <class T> struct Op<Kind::kLt, T> { bool operator()(T x, T y) const { return x < y; } };
template <class T> struct Op<Kind::kLe, T> { bool operator()(T x, T y) const { return x <= y; } };
template <class T> struct Op<Kind::kGt, T> { bool operator()(T x, T y) const { return x > y; } };
template <class T> struct Op<Kind::kGe, T> { bool operator()(T x, T y) const { return x >= y; } };
template <class T> struct Op<Kind::kLogicalAnd, T> { bool operator()(T x, T y) const { return (x != T(0)) && (y != T(0)); } };
template <class T> struct Op<Kind::kLogicalOr, T> { bool operator()(T x, T y) const { return (x != T(0)) || (y != T(0)); } };
template <class T> struct Op<Kind::kLogicalXor, T> { bool operator()(T x, T y) const { return (x != T(0)) != (y != T(0)); } };

// When t (broadcast to out) is out's shape with its trailing dims at 1, and nothing else
// broadcast: how many consecutive output elements share one element of t (a
// squeeze-excite scale [N, C, 1, 1] against [N, C, H, W]: H * W). Else 0.
inline int64_t trailing_run(std::span<const int64_t> t_sizes, std::span<const int64_t> out_sizes) {
  const size_t ro = out_sizes.size(), rt = t_sizes.size();
  if (rt > ro) return 0;
  int64_t run = 1;
  size_t d = ro;
  // trailing dims where t has 1 (or is missing: rank below out's)
  while (d > 0 && (d + rt <= ro || t_sizes[d + rt - ro - 1] == 1)) run *= out_sizes[--d];
  for (size_t e = 0; e < d; ++e)  // the leading dims: t's own (missing ones count as 1)
    if (e + rt < ro ? out_sizes[e] != 1 : t_sizes[e + rt - ro] != out_sizes[e]) return 0;
  return run;
}

// out[i] = fn(a[ia], b[ib]) over the broadcast shape. The loops: the same shape, and one
// operand constant over runs of trailing elements (a tensor with one element: one run of
// all of them; per-channel scales and shifts: runs of H * W). Any other broadcast is
// expanded into contiguous copies first (gather_strided_bytes with broadcast strides: one
// function for every dtype, not one strided loop per operation and type).
template <class T, class R, class Fn>
void apply_broadcast(const T* a, std::span<const int64_t> a_sizes, const T* b, std::span<const int64_t> b_sizes,
                     R* out, std::span<const int64_t> out_sizes, Fn fn) {
  const int64_t n = shape_numel(out_sizes);
  const int64_t na = shape_numel(a_sizes), nb = shape_numel(b_sizes);
  int64_t run = 0;
  if (n > 0 && na == n && nb < n && (run = trailing_run(b_sizes, out_sizes)) > 1) {
    for (int64_t o = 0; o < nb; ++o) {
      const T y = b[o];
      const T* x = a + o * run;
      R* r = out + o * run;
      for (int64_t j = 0; j < run; ++j) r[j] = fn(x[j], y);
    }
  } else if (n > 0 && nb == n && na < n && (run = trailing_run(a_sizes, out_sizes)) > 1) {
    for (int64_t o = 0; o < na; ++o) {
      const T x = a[o];
      const T* y = b + o * run;
      R* r = out + o * run;
      for (int64_t j = 0; j < run; ++j) r[j] = fn(x, y[j]);
    }
  } else if (na == n && nb == n) {
    for (int64_t i = 0; i < n; ++i) out[i] = fn(a[i], b[i]);
  } else {
    Scratch<T> ea, eb;
    if (na != n) {
      ea.resize(static_cast<size_t>(n));
      gather_strided_bytes(a, sizeof(T), out_sizes, broadcast_strides(a_sizes, out_sizes), 0, ea.data());
      a = reinterpret_cast<const T*>(ea.data());
    }
    if (nb != n) {
      eb.resize(static_cast<size_t>(n));
      gather_strided_bytes(b, sizeof(T), out_sizes, broadcast_strides(b_sizes, out_sizes), 0, eb.data());
      b = reinterpret_cast<const T*>(eb.data());
    }
    for (int64_t i = 0; i < n; ++i) out[i] = fn(a[i], b[i]);
  }
}

// One operand: a tensor, or a number wrapped into a 0-dim tensor for the shared path.
struct Operand {
  const Tensor* tensor = nullptr;
  Scalar scalar;
  Tensor wrapped;

  static Operand of(const Tensor& t) {
    Operand o;
    o.tensor = &t;
    return o;
  }
  static Operand of(const Scalar& s) {
    Operand o;
    o.scalar = s;
    o.wrapped = Tensor::make_owned(s.wrapped_dtype(), {});
    visit_dtype(s.wrapped_dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      *o.wrapped.data_as<T>() = s.as<T>();
    });
    return o;
  }
  const Tensor& t() const { return tensor ? *tensor : wrapped; }
  bool is_scalar() const { return tensor == nullptr; }
};

template <class CT>
bool has_zero(const CT* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (p[i] == CT(0)) return true;
  return false;
}

template <Kind K, class CT>
Status run_kind(const char* op, const Tensor& a, const Tensor& b, ScalarType result, const std::optional<Scalar>& alpha,
                Tensor& out) {
  std::vector<CT> sa, sb;
  const CT* pa = elements_as<CT>(a, sa);
  const CT* pb = elements_as<CT>(b, sb);
  if constexpr (std::is_integral_v<CT>) {
    if (divides(K) && has_zero(pb, b.numel())) return invalid_arg(op, "integer division by zero");
  }
  if constexpr (is_comparison(K) || is_logical(K)) {
    // Into bools: out's storage when it holds bool, else a buffer converted after.
    std::unique_ptr<bool[]> tmp;
    bool* o = out.dtype == ScalarType::kBool ? out.data_as<bool>()
                                              : (tmp = std::make_unique<bool[]>(static_cast<size_t>(out.numel()))).get();
    apply_broadcast(pa, a.sizes, pb, b.sizes, o, out.sizes, Op<K, CT>{});
    if (tmp) convert_elements(tmp.get(), ScalarType::kBool, out.data, out.dtype, out.numel());
  } else {
    Op<K, CT> fn{};
    if constexpr (K == Kind::kAdd || K == Kind::kSub) fn.alpha = alpha ? alpha->as<CT>() : CT(1);
    std::vector<CT> tmp;
    CT* o = result_output<CT>(out, result, tmp);
    apply_broadcast(pa, a.sizes, pb, b.sizes, o, out.sizes, fn);
    finish_result(out, result, tmp);
  }
  return {};
}

template <Kind K>
Status dispatch_kind(const char* op, const Tensor& a, const Tensor& b, ScalarType compute, ScalarType result,
                     const std::optional<Scalar>& alpha, Tensor& out) {
  return visit_compute(compute, [&](auto tag) -> Status {
    using CT = typename decltype(tag)::type;
    // Pairs that binary() never dispatches are not compiled: division and atan2 compute in
    // a floating type, bitwise ops in an integer one.
    if constexpr ((makes_floating(K) && std::is_integral_v<CT>) || (is_bitwise(K) && !std::is_integral_v<CT>))
      return op_error(op, ErrorCode::kInternal, "elementwise kind dispatched with the wrong compute type");
    else
      return run_kind<K, CT>(op, a, b, result, alpha, out);
  });
}

Status run_dispatch(Kind k, const char* op, const Tensor& a, const Tensor& b, ScalarType compute, ScalarType result,
                    const std::optional<Scalar>& alpha, Tensor& out) {
  switch (k) {
#define WICK_KIND(K) \
  case Kind::K: return dispatch_kind<Kind::K>(op, a, b, compute, result, alpha, out);
    WICK_KIND(kAdd) WICK_KIND(kSub) WICK_KIND(kMul) WICK_KIND(kDiv) WICK_KIND(kDivTrunc) WICK_KIND(kDivFloor)
    WICK_KIND(kMaximum) WICK_KIND(kMinimum) WICK_KIND(kPow) WICK_KIND(kRemainder) WICK_KIND(kFmod)
    WICK_KIND(kAtan2) WICK_KIND(kBitAnd) WICK_KIND(kBitOr) WICK_KIND(kBitXor)
    WICK_KIND(kEq) WICK_KIND(kNe) WICK_KIND(kLt) WICK_KIND(kLe) WICK_KIND(kGt) WICK_KIND(kGe)
    WICK_KIND(kLogicalAnd) WICK_KIND(kLogicalOr) WICK_KIND(kLogicalXor)
#undef WICK_KIND
  }
  return op_error(op, ErrorCode::kInternal, "unknown elementwise kind");
}

Status binary(const char* op, Kind kind, const Operand& a, const Operand& b, const std::optional<Scalar>& alpha,
              Tensor& out) {
  if (!a.is_scalar()) WICK_RETURN_IF_ERROR(check_tensor(op, a.t(), "self"));
  if (!b.is_scalar()) WICK_RETURN_IF_ERROR(check_tensor(op, b.t(), "other"));
  if (!is_kernel_dtype(out.dtype)) return not_supported(op, "out has dtype " + dtype_str(out.dtype));

  ResultType rt;
  if (a.is_scalar()) rt.add_scalar(a.scalar); else rt.add_tensor(a.t());
  if (b.is_scalar()) rt.add_scalar(b.scalar); else rt.add_tensor(b.t());
  const ScalarType common = rt.result();

  ScalarType result = common, compute = compute_type_for(common);
  if (makes_floating(kind) && !is_floating(common)) {
    result = ScalarType::kFloat;
    compute = ScalarType::kFloat;
  }
  if (is_comparison(kind) || is_logical(kind)) result = ScalarType::kBool;

  if (kind == Kind::kSub && (a.t().dtype == ScalarType::kBool || b.t().dtype == ScalarType::kBool))
    return invalid_arg(op, "subtraction with a bool tensor is not supported; use logical_xor or logical_not");
  if (is_bitwise(kind) && is_floating(common))
    return invalid_arg(op, std::string("bitwise ops need integer or bool inputs, got ") + dtype_str(common));
  if (alpha) {
    if (is_integral(common, false) && alpha->is_floating())
      return invalid_arg(op, "for integral inputs, alpha must not be a floating point number");
    if (alpha->is_bool() && common != ScalarType::kBool)
      return invalid_arg(op, "a bool alpha needs bool inputs");
  }
  if (kind == Kind::kPow && b.is_scalar() && is_integral(common, true) && b.scalar.is_integral() && b.scalar.i < 0)
    return invalid_arg(op, "integers to negative integer powers are not allowed");
  if (!can_cast(result, out.dtype))
    return invalid_arg(op, std::string("result type ") + dtype_str(result) + " can't be cast to out dtype " +
                               dtype_str(out.dtype));

  WICK_ASSIGN_OR_RETURN(std::vector<int64_t> shape, broadcast_shapes(op, a.t().sizes, b.t().sizes));
  WICK_RETURN_IF_ERROR(prepare_output(op, out, shape));
  if (out.numel() == 0) return {};
  return run_dispatch(kind, op, a.t(), b.t(), compute, result, alpha, out);
}

// ---- argument plumbing -------------------------------------------------------------

// (Tensor self, Tensor other, *, Tensor(a!) out)
Status tensor_tensor(const char* op, Kind kind, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *other{}, *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, arg(self, "self"), arg(other, "other"), arg(out, "out")));
  return binary(op, kind, Operand::of(*self), Operand::of(*other), std::nullopt, *out);
}

// (Tensor self, Scalar other, *, Tensor(a!) out)
Status tensor_scalar(const char* op, Kind kind, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *out{};
  Scalar other;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, arg(self, "self"), arg(other, "other"), arg(out, "out")));
  return binary(op, kind, Operand::of(*self), Operand::of(other), std::nullopt, *out);
}

// (Tensor self, Tensor|Scalar other, Scalar alpha, *, Tensor(a!) out)
Status with_alpha(const char* op, Kind kind, bool scalar_other, bool reversed, ValueTable& values,
                  std::span<const int32_t> args) {
  KernelArgs a(op, values, args);
  WICK_RETURN_IF_ERROR(a.expect_count(5));
  WICK_ASSIGN_OR_RETURN(Tensor * self, a.tensor(0, "self"));
  Operand other;
  if (scalar_other) {
    WICK_ASSIGN_OR_RETURN(Scalar s, a.scalar(1, "other"));
    other = Operand::of(s);
  } else {
    WICK_ASSIGN_OR_RETURN(Tensor * t, a.tensor(1, "other"));
    other = Operand::of(*t);
  }
  WICK_ASSIGN_OR_RETURN(Scalar alpha, a.scalar(2, "alpha"));
  WICK_ASSIGN_OR_RETURN(Tensor * out, a.tensor(3, "out"));
  // rsub(self, other, alpha) = other - alpha * self
  if (reversed) return binary(op, kind, other, Operand::of(*self), alpha, *out);
  return binary(op, kind, Operand::of(*self), other, alpha, *out);
}

Result<Kind> div_mode(const char* op, const std::optional<std::string>& mode) {
  if (!mode) return Kind::kDiv;
  if (*mode == "trunc") return Kind::kDivTrunc;
  if (*mode == "floor") return Kind::kDivFloor;
  return invalid_arg(op, "rounding_mode must be None, 'trunc' or 'floor', got '" + *mode + "'");
}

}  // namespace

Status add_out(ValueTable& v, std::span<const int32_t> a) { return with_alpha("aten::add.out", Kind::kAdd, false, false, v, a); }
Status add_scalar_out(ValueTable& v, std::span<const int32_t> a) { return with_alpha("aten::add.Scalar_out", Kind::kAdd, true, false, v, a); }
Status sub_out(ValueTable& v, std::span<const int32_t> a) { return with_alpha("aten::sub.out", Kind::kSub, false, false, v, a); }
Status sub_scalar_out(ValueTable& v, std::span<const int32_t> a) { return with_alpha("aten::sub.Scalar_out", Kind::kSub, true, false, v, a); }
Status rsub_scalar_out(ValueTable& v, std::span<const int32_t> a) { return with_alpha("aten::rsub.Scalar_out", Kind::kSub, true, true, v, a); }
Status mul_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::mul.out", Kind::kMul, v, a); }
Status mul_scalar_out(ValueTable& v, std::span<const int32_t> a) { return tensor_scalar("aten::mul.Scalar_out", Kind::kMul, v, a); }
Status div_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::div.out", Kind::kDiv, v, a); }
Status div_scalar_out(ValueTable& v, std::span<const int32_t> a) { return tensor_scalar("aten::div.Scalar_out", Kind::kDiv, v, a); }

namespace {
// div.out_mode / div.Scalar_mode_out(Tensor self, Tensor|Scalar other, *, str? rounding_mode, Tensor(a!) out)
template <class Other>  // Tensor* or Scalar
Status div_with_mode(const char* op, ValueTable& values, std::span<const int32_t> args) {
  Tensor *self{}, *out{};
  Other other{};
  std::optional<std::string> mode;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, arg(self, "self"), arg(other, "other"),
                                 arg(mode, "rounding_mode"), arg(out, "out")));
  WICK_ASSIGN_OR_RETURN(Kind kind, div_mode(op, mode));
  if constexpr (std::is_same_v<Other, Tensor*>)
    return binary(op, kind, Operand::of(*self), Operand::of(*other), std::nullopt, *out);
  else
    return binary(op, kind, Operand::of(*self), Operand::of(other), std::nullopt, *out);
}
}  // namespace

Status div_out_mode(ValueTable& v, std::span<const int32_t> a) { return div_with_mode<Tensor*>("aten::div.out_mode", v, a); }
Status div_scalar_mode_out(ValueTable& v, std::span<const int32_t> a) {
  return div_with_mode<Scalar>("aten::div.Scalar_mode_out", v, a);
}

Status floor_divide_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::floor_divide.out", Kind::kDivFloor, v, a); }
Status maximum_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::maximum.out", Kind::kMaximum, v, a); }
Status minimum_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::minimum.out", Kind::kMinimum, v, a); }
Status pow_tensor_tensor_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::pow.Tensor_Tensor_out", Kind::kPow, v, a); }
Status pow_tensor_scalar_out(ValueTable& v, std::span<const int32_t> a) { return tensor_scalar("aten::pow.Tensor_Scalar_out", Kind::kPow, v, a); }

Status pow_scalar_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::pow.Scalar_out";
  Scalar self;
  Tensor *exponent{}, *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, arg(self, "self"), arg(exponent, "exponent"), arg(out, "out")));
  return binary(op, Kind::kPow, Operand::of(self), Operand::of(*exponent), std::nullopt, *out);
}

Status remainder_tensor_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::remainder.Tensor_out", Kind::kRemainder, v, a); }
Status remainder_scalar_out(ValueTable& v, std::span<const int32_t> a) { return tensor_scalar("aten::remainder.Scalar_out", Kind::kRemainder, v, a); }
Status fmod_tensor_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::fmod.Tensor_out", Kind::kFmod, v, a); }
Status fmod_scalar_out(ValueTable& v, std::span<const int32_t> a) { return tensor_scalar("aten::fmod.Scalar_out", Kind::kFmod, v, a); }
Status atan2_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::atan2.out", Kind::kAtan2, v, a); }
Status bitwise_and_tensor_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::bitwise_and.Tensor_out", Kind::kBitAnd, v, a); }
Status bitwise_or_tensor_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::bitwise_or.Tensor_out", Kind::kBitOr, v, a); }
Status bitwise_xor_tensor_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::bitwise_xor.Tensor_out", Kind::kBitXor, v, a); }
Status bitwise_and_scalar_out(ValueTable& v, std::span<const int32_t> a) { return tensor_scalar("aten::bitwise_and.Scalar_out", Kind::kBitAnd, v, a); }
Status bitwise_or_scalar_out(ValueTable& v, std::span<const int32_t> a) { return tensor_scalar("aten::bitwise_or.Scalar_out", Kind::kBitOr, v, a); }
Status bitwise_xor_scalar_out(ValueTable& v, std::span<const int32_t> a) { return tensor_scalar("aten::bitwise_xor.Scalar_out", Kind::kBitXor, v, a); }
Status eq_tensor_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::eq.Tensor_out", Kind::kEq, v, a); }
Status ne_tensor_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::ne.Tensor_out", Kind::kNe, v, a); }
Status lt_tensor_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::lt.Tensor_out", Kind::kLt, v, a); }
Status le_tensor_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::le.Tensor_out", Kind::kLe, v, a); }
Status gt_tensor_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::gt.Tensor_out", Kind::kGt, v, a); }
Status ge_tensor_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::ge.Tensor_out", Kind::kGe, v, a); }
Status eq_scalar_out(ValueTable& v, std::span<const int32_t> a) { return tensor_scalar("aten::eq.Scalar_out", Kind::kEq, v, a); }
Status ne_scalar_out(ValueTable& v, std::span<const int32_t> a) { return tensor_scalar("aten::ne.Scalar_out", Kind::kNe, v, a); }
Status lt_scalar_out(ValueTable& v, std::span<const int32_t> a) { return tensor_scalar("aten::lt.Scalar_out", Kind::kLt, v, a); }
Status le_scalar_out(ValueTable& v, std::span<const int32_t> a) { return tensor_scalar("aten::le.Scalar_out", Kind::kLe, v, a); }
Status gt_scalar_out(ValueTable& v, std::span<const int32_t> a) { return tensor_scalar("aten::gt.Scalar_out", Kind::kGt, v, a); }
Status ge_scalar_out(ValueTable& v, std::span<const int32_t> a) { return tensor_scalar("aten::ge.Scalar_out", Kind::kGe, v, a); }
Status logical_and_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::logical_and.out", Kind::kLogicalAnd, v, a); }
Status logical_or_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::logical_or.out", Kind::kLogicalOr, v, a); }
Status logical_xor_out(ValueTable& v, std::span<const int32_t> a) { return tensor_tensor("aten::logical_xor.out", Kind::kLogicalXor, v, a); }

namespace {
// t's elements in dtype `to`: its own storage when it holds `to`, else converted into scratch.
const void* as_dtype(const Tensor& t, ScalarType to, std::vector<uint8_t>& scratch) {
  if (t.dtype == to) return t.data;
  scratch.resize(static_cast<size_t>(t.numel()) * element_size(to));
  convert_elements(t.data, t.dtype, scratch.data(), to, t.numel());
  return scratch.data();
}
}  // namespace

// where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
Status where_self_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::where.self_out";
  Tensor *cond{}, *self{}, *other{}, *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, checked_arg(cond, "condition"), checked_arg(self, "self"),
                                 checked_arg(other, "other"), arg(out, "out")));
  if (cond->dtype != ScalarType::kBool && cond->dtype != ScalarType::kByte)
    return invalid_arg(op, "condition must be bool, got " + dtype_str(cond->dtype));
  ResultType rt;
  rt.add_tensor(*self);
  rt.add_tensor(*other);
  const ScalarType common = rt.result();
  if (!is_kernel_dtype(out->dtype) || !can_cast(common, out->dtype))
    return invalid_arg(op, "result type " + dtype_str(common) + " can't be cast to out dtype " + dtype_str(out->dtype));
  WICK_ASSIGN_OR_RETURN(auto s1, broadcast_shapes(op, cond->sizes, self->sizes));
  WICK_ASSIGN_OR_RETURN(auto shape, broadcast_shapes(op, s1, other->sizes));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  if (out->numel() == 0) return {};
  Scratch<uint8_t> cbuf;
  const uint8_t* c = elements_as<uint8_t>(*cond, cbuf);
  // Select in the common dtype itself, as bytes: nothing is computed, so one loop per
  // element size serves every dtype.
  std::vector<uint8_t> sx, sy, tmp;
  const void* x = as_dtype(*self, common, sx);
  const void* y = as_dtype(*other, common, sy);
  if (out->dtype != common) tmp.resize(static_cast<size_t>(out->numel()) * element_size(common));
  void* o = out->dtype == common ? out->data : tmp.data();
  visit_element_bytes(element_size(common), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* xu = static_cast<const U*>(x);
    const U* yu = static_cast<const U*>(y);
    U* ou = static_cast<U*>(o);
    std::array<std::vector<int64_t>, 3> st{broadcast_strides(cond->sizes, shape), broadcast_strides(self->sizes, shape),
                                           broadcast_strides(other->sizes, shape)};
    for_each_broadcast<3>(shape, st, [&](int64_t i, const std::array<int64_t, 3>& off) {
      ou[i] = c[off[0]] ? xu[off[1]] : yu[off[2]];
    });
  });
  if (out->dtype != common) convert_elements(tmp.data(), common, out->data, out->dtype, out->numel());
  return {};
}

// masked_fill.Scalar_out(Tensor self, Tensor mask, Scalar value, *, Tensor(a!) out)
Status masked_fill_scalar_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::masked_fill.Scalar_out";
  Tensor *self{}, *mask{}, *out{};
  Scalar value;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, checked_arg(self, "self"), checked_arg(mask, "mask"),
                                 arg(value, "value"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *self, "self", *out, "out"));
  if (mask->dtype != ScalarType::kBool) return invalid_arg(op, "mask must be bool, got " + dtype_str(mask->dtype));
  WICK_ASSIGN_OR_RETURN(auto shape, broadcast_shapes(op, self->sizes, mask->sizes));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  const bool* m = mask->data_as<bool>();
  uint64_t fill_bits = 0;  // value in self's dtype, as the bytes the loop copies
  visit_dtype(self->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T fill = value.as<T>();
    std::memcpy(&fill_bits, &fill, sizeof(T));
  });
  // out may alias self; elementwise access keeps that safe.
  visit_element_bytes(element_size(self->dtype), [&](auto tag) {
    using U = typename decltype(tag)::type;
    U fill;
    std::memcpy(&fill, &fill_bits, sizeof(U));
    const U* x = static_cast<const U*>(self->data);
    U* o = static_cast<U*>(out->data);
    std::array<std::vector<int64_t>, 2> st{broadcast_strides(self->sizes, shape), broadcast_strides(mask->sizes, shape)};
    for_each_broadcast<2>(shape, st, [&](int64_t i, const std::array<int64_t, 2>& off) { o[i] = m[off[1]] ? fill : x[off[0]]; });
  });
  return {};
}

}  // namespace wick::cpu
