// Shared pieces of the portable CPU kernels: argument reading with errors that name the
// operator, dtype dispatch and conversion, PyTorch type promotion, broadcasting, and
// dimension arithmetic.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"
#include "core/tensor.h"
#include "runtime/value.h"

namespace wick::cpu {

// ---------------------------------------------------------------------------------------
// Errors

Status op_error(const char* op, ErrorCode code, const std::string& message);
inline Status invalid_arg(const char* op, const std::string& message) {
  return op_error(op, ErrorCode::kInvalidArgument, message);
}
inline Status not_supported(const char* op, const std::string& message) {
  return op_error(op, ErrorCode::kNotSupported, message);
}
// Prefixes an error from a lower layer (value table, Tensor::resize) with the operator.
inline Status with_op(const char* op, const Status& s) { return s.with_context(op); }

// ---------------------------------------------------------------------------------------
// Element types. Half and bfloat16 are stored as their bits and computed in float.

struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

template <class T>
struct TypeTag {
  using type = T;
};

template <class T>
constexpr ScalarType scalar_type_of() {
  if constexpr (std::is_same_v<T, uint8_t>) return ScalarType::kByte;
  else if constexpr (std::is_same_v<T, int8_t>) return ScalarType::kChar;
  else if constexpr (std::is_same_v<T, int16_t>) return ScalarType::kShort;
  else if constexpr (std::is_same_v<T, int32_t>) return ScalarType::kInt;
  else if constexpr (std::is_same_v<T, int64_t>) return ScalarType::kLong;
  else if constexpr (std::is_same_v<T, Half>) return ScalarType::kHalf;
  else if constexpr (std::is_same_v<T, float>) return ScalarType::kFloat;
  else if constexpr (std::is_same_v<T, double>) return ScalarType::kDouble;
  else if constexpr (std::is_same_v<T, bool>) return ScalarType::kBool;
  else if constexpr (std::is_same_v<T, BFloat16>) return ScalarType::kBFloat16;
  else static_assert(!sizeof(T), "unsupported element type");
}

// True for the element types the kernels dispatch over.
bool is_kernel_dtype(ScalarType t);

// Calls f(TypeTag<T>{}) for the storage type of `t`. The caller must have checked
// is_kernel_dtype(t); anything else calls f with float so that no path is left
// without a return value.
template <class F>
decltype(auto) visit_dtype(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::kByte: return f(TypeTag<uint8_t>{});
    case ScalarType::kChar: return f(TypeTag<int8_t>{});
    case ScalarType::kShort: return f(TypeTag<int16_t>{});
    case ScalarType::kInt: return f(TypeTag<int32_t>{});
    case ScalarType::kLong: return f(TypeTag<int64_t>{});
    case ScalarType::kHalf: return f(TypeTag<Half>{});
    case ScalarType::kDouble: return f(TypeTag<double>{});
    case ScalarType::kBool: return f(TypeTag<bool>{});
    case ScalarType::kBFloat16: return f(TypeTag<BFloat16>{});
    default: return f(TypeTag<float>{});
  }
}

// Calls f(TypeTag<U>{}) with the unsigned integer U of `size` bytes (1, 2, 4 or 8): for
// kernels that move elements without computing on them, one loop per element size.
template <class F>
void visit_element_bytes(size_t size, F&& f) {
  switch (size) {
    case 1: f(TypeTag<uint8_t>{}); break;
    case 2: f(TypeTag<uint16_t>{}); break;
    case 4: f(TypeTag<uint32_t>{}); break;
    default: f(TypeTag<uint64_t>{}); break;
  }
}

// The three types arithmetic runs in: float (for half/bfloat16/float), double, int64
// (for every integer type and bool; results wrap when stored back, as PyTorch's do).
template <class F>
decltype(auto) visit_compute(ScalarType compute, F&& f) {
  switch (compute) {
    case ScalarType::kDouble: return f(TypeTag<double>{});
    case ScalarType::kLong: return f(TypeTag<int64_t>{});
    default: return f(TypeTag<float>{});
  }
}
ScalarType compute_type_for(ScalarType t);

// Value conversion between element types, defined for every input (float -> integer out
// of range or NaN gives what x86 gives, instead of undefined behaviour).
template <class T>
struct IsFloatLike : std::bool_constant<std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                                        std::is_same_v<T, BFloat16>> {};

template <class T>
inline auto to_arith(T v) {
  if constexpr (std::is_same_v<T, Half>) return half_to_float(v.bits);
  else if constexpr (std::is_same_v<T, BFloat16>) return bf16_to_float(v.bits);
  else return v;
}

inline int64_t float_to_int64(double v) {
  // 2^63 is exactly representable; anything at or beyond it (and NaN) is out of range.
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}
// x86's truncating conversion, which PyTorch's CPU casts compile to: out of range or NaN
// gives INT32_MIN; narrower types truncate the int32.
inline int32_t float_to_int32(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

template <class To, class From>
inline To convert(From from) {
  auto v = to_arith(from);
  using V = decltype(v);
  if constexpr (std::is_same_v<To, bool>) {
    return v != V(0);
  } else if constexpr (std::is_same_v<To, Half>) {
    return Half{float_to_half(static_cast<float>(v))};
  } else if constexpr (std::is_same_v<To, BFloat16>) {
    return BFloat16{float_to_bf16(static_cast<float>(v))};
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(v);
  } else if constexpr (std::is_floating_point_v<V>) {  // float -> integer
    if constexpr (sizeof(To) == 8) return static_cast<To>(float_to_int64(static_cast<double>(v)));
    else return static_cast<To>(float_to_int32(static_cast<double>(v)));
  } else {
    return static_cast<To>(v);  // integer -> integer: modular, like PyTorch
  }
}

// Integer arithmetic that wraps like PyTorch's instead of overflowing (undefined in C++).
template <class T>
inline T wrap_add(T x, T y) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
  else return x + y;
}
template <class T>
inline T wrap_sub(T x, T y) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
  else return x - y;
}
template <class T>
inline T wrap_mul(T x, T y) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
  else return x * y;
}

// Converts n elements between any two kernel dtypes (same dtype: memmove).
void convert_elements(const void* src, ScalarType src_type, void* dst, ScalarType dst_type, int64_t n);

// Scratch storage for converted elements; bool gets bytes because std::vector<bool> packs bits.
template <class T>
struct ScratchElement {
  using type = T;
};
template <>
struct ScratchElement<bool> {
  using type = uint8_t;
};
template <class T>
using Scratch = std::vector<typename ScratchElement<T>::type>;

// The elements of `t` as CT: the tensor's own storage when it already holds CT, else a
// converted copy kept in `scratch`.
template <class CT>
const CT* elements_as(const Tensor& t, Scratch<CT>& scratch) {
  if (t.dtype == scalar_type_of<CT>()) return t.data_as<CT>();
  scratch.resize(static_cast<size_t>(t.numel()));
  convert_elements(t.data, t.dtype, scratch.data(), scalar_type_of<CT>(), t.numel());
  return reinterpret_cast<const CT*>(scratch.data());
}

// Where a kernel writes CT results for `out`: out's storage when it holds CT, else
// `scratch`; finish_output() then converts scratch into out.
template <class CT>
CT* output_as(Tensor& out, Scratch<CT>& scratch) {
  if (out.dtype == scalar_type_of<CT>()) return out.data_as<CT>();
  scratch.assign(static_cast<size_t>(out.numel()), {});
  return reinterpret_cast<CT*>(scratch.data());
}
// `ct` is the CT given to output_as; it defaults to the scratch's element type, which
// differs only for bool (pass ScalarType::kBool then).
template <class E>
void finish_output(Tensor& out, std::vector<E>& scratch, ScalarType ct = scalar_type_of<E>()) {
  if (out.dtype != ct) convert_elements(scratch.data(), ct, out.data, out.dtype, out.numel());
}

// Like output_as/finish_output for a result whose PyTorch dtype is `result` (computed in
// CT): values are rounded to `result` before they are cast to out's dtype, as PyTorch
// does when `out` has a different dtype (e.g. int32 results wrap before widening).
void convert_via(const void* src, ScalarType src_type, ScalarType via, void* dst, ScalarType dst_type, int64_t n);
template <class CT>
CT* result_output(Tensor& out, ScalarType result, Scratch<CT>& scratch) {
  if (out.dtype == scalar_type_of<CT>() && result == out.dtype) return out.data_as<CT>();
  scratch.assign(static_cast<size_t>(out.numel()), {});
  return reinterpret_cast<CT*>(scratch.data());
}
template <class CT>  // a compute type: float, double or int64
void finish_result(Tensor& out, ScalarType result, std::vector<CT>& scratch) {
  if (out.dtype == scalar_type_of<CT>() && result == out.dtype) return;
  convert_via(scratch.data(), scalar_type_of<CT>(), result, out.data, out.dtype, out.numel());
}

// The frame of kernels that compute `out` from `in` in in's compute type: body(x, y) gets
// in's elements and out's storage as CT (float, double or int64), and y is converted into
// out afterwards where out holds another dtype. The body reads CT as
// std::remove_pointer_t<decltype(y)>.
template <class Body>
Status compute_in_out(const Tensor& in, Tensor& out, Body&& body) {
  return visit_compute(compute_type_for(in.dtype), [&](auto tag) -> Status {
    using CT = typename decltype(tag)::type;
    std::vector<CT> si, so;
    const CT* x = elements_as<CT>(in, si);
    CT* y = output_as<CT>(out, so);
    body(x, y);
    finish_output(out, so);
    return {};
  });
}

// ---------------------------------------------------------------------------------------
// Scalars (PyTorch's Scalar: an Int, Double or Bool value)

struct Scalar {
  ValueTag tag = ValueTag::kInt;
  int64_t i = 0;
  double d = 0;
  bool b = false;

  bool is_floating() const { return tag == ValueTag::kDouble; }
  bool is_integral() const { return tag == ValueTag::kInt; }
  bool is_bool() const { return tag == ValueTag::kBool; }
  // The dtype of the 0-dim tensor PyTorch wraps the number in for type promotion.
  ScalarType wrapped_dtype() const {
    return tag == ValueTag::kDouble ? ScalarType::kDouble : tag == ValueTag::kBool ? ScalarType::kBool : ScalarType::kLong;
  }
  template <class T>
  T as() const {
    if (tag == ValueTag::kDouble) return convert<T>(d);
    if (tag == ValueTag::kBool) return convert<T>(b);
    return convert<T>(i);
  }
  double to_double() const { return as<double>(); }
};

// ---------------------------------------------------------------------------------------
// Type promotion (torch.result_type)

ScalarType promote_types(ScalarType a, ScalarType b);
// PyTorch's canCast: no floating -> integral, no non-bool -> bool.
bool can_cast(ScalarType from, ScalarType to);

// Accumulates operands the way at::native::ResultTypeState does: tensors with dims
// outrank zero-dim tensors, which outrank Python numbers, unless a lower rank brings a
// higher category (bool < integral < floating).
class ResultType {
 public:
  void add_tensor(const Tensor& t);
  void add_scalar(const Scalar& s);
  ScalarType result() const;

 private:
  std::optional<ScalarType> dim_, zero_dim_, wrapped_;
};

// ---------------------------------------------------------------------------------------
// Arguments

// One schema argument for KernelArgs::read: where it goes and its name for errors. The
// destination's type picks how it is read (Tensor*, int64_t, bool, double, Scalar, int[]
// and their optionals). Tensor? and Tensor?[] have the C++ types of Tensor and Tensor[], so
// optional_arg marks them; checked_arg/floating_arg run check_tensor/check_floating on a
// tensor as it is read; skip() passes over an argument the kernel does not use.
enum class ArgCheck : uint8_t { kNone, kTensor, kFloating };
template <class T>
struct ArgSlot {
  T* dst;
  const char* name;
  bool optional = false;
  ArgCheck check = ArgCheck::kNone;
};
template <class T>
ArgSlot<T> arg(T& dst, const char* name) {
  return {&dst, name};
}
inline ArgSlot<Tensor*> optional_arg(Tensor*& dst, const char* name) { return {&dst, name, true}; }
inline ArgSlot<std::vector<Tensor*>> optional_arg(std::vector<Tensor*>& dst, const char* name) {
  return {&dst, name, true};
}
inline ArgSlot<Tensor*> checked_arg(Tensor*& dst, const char* name) { return {&dst, name, false, ArgCheck::kTensor}; }
inline ArgSlot<Tensor*> floating_arg(Tensor*& dst, const char* name) {
  return {&dst, name, false, ArgCheck::kFloating};
}
struct SkipArg {};
inline ArgSlot<SkipArg> skip() { return {nullptr, nullptr}; }

// Reads a kernel's arguments by schema position; every error names the operator and,
// where useful, the argument.
class KernelArgs {
 public:
  KernelArgs(const char* op, ValueTable& values, std::span<const int32_t> args)
      : op_(op), values_(values), args_(args) {}

  const char* op() const { return op_; }
  ValueTable& values() { return values_; }
  int32_t index(size_t i) const { return args_[i]; }
  // The value count is fixed by the schema (arguments + the returned value).
  Status expect_count(size_t n) const;

  Result<Tensor*> tensor(size_t i, const char* name);
  // None, or the empty BYTE tensor sizes=[0] that exporters emit for None, give nullptr.
  Result<Tensor*> optional_tensor(size_t i, const char* name);
  Result<int64_t> int_arg(size_t i, const char* name);
  Result<std::optional<int64_t>> optional_int(size_t i, const char* name);
  Result<bool> bool_arg(size_t i, const char* name);
  Result<Scalar> scalar(size_t i, const char* name);
  Result<std::optional<Scalar>> optional_scalar(size_t i, const char* name);
  Result<double> double_arg(size_t i, const char* name);
  Result<std::vector<int64_t>> int_list(size_t i, const char* name);
  // None gives nullopt.
  Result<std::optional<std::vector<int64_t>>> optional_int_list(size_t i, const char* name);
  // float[]?: a DoubleList (or an IntList, read as doubles), or None.
  Result<std::optional<std::vector<double>>> optional_double_list(size_t i, const char* name);
  Result<std::optional<ScalarType>> optional_dtype(size_t i, const char* name);
  Result<std::optional<std::string>> optional_string(size_t i, const char* name);
  Result<std::vector<Tensor*>> tensor_list(size_t i, const char* name);
  // Entries are nullptr for None: a None value, item index -1 (how ExecuTorch's
  // serializer writes None inside the list) or an empty BYTE tensor sizes=[0].
  Result<std::vector<Tensor*>> optional_tensor_list(size_t i, const char* name);

  // The whole schema at once: checks the value count, then reads slots[k] from position k,
  // stopping at the first error. E.g. for gelu.out(self, approximate, out) + its return:
  //   a.read(4, arg(self, "self"), arg(approximate, "approximate"), arg(out, "out"))
  template <class... T>
  Status read(size_t count, ArgSlot<T>... slots) {
    WICK_RETURN_IF_ERROR(expect_count(count));
    Status s;
    size_t i = 0;
    (void)((s = read_slot(i++, slots), s.ok()) && ...);
    return s;
  }

 private:
  template <class T>
  Result<T> get(size_t i, const char* name, bool optional) {
    if constexpr (std::is_same_v<T, Tensor*>) return optional ? optional_tensor(i, name) : tensor(i, name);
    else if constexpr (std::is_same_v<T, std::vector<Tensor*>>)
      return optional ? optional_tensor_list(i, name) : tensor_list(i, name);
    else if constexpr (std::is_same_v<T, int64_t>) return int_arg(i, name);
    else if constexpr (std::is_same_v<T, std::optional<int64_t>>) return optional_int(i, name);
    else if constexpr (std::is_same_v<T, bool>) return bool_arg(i, name);
    else if constexpr (std::is_same_v<T, double>) return double_arg(i, name);
    else if constexpr (std::is_same_v<T, Scalar>) return scalar(i, name);
    else if constexpr (std::is_same_v<T, std::optional<Scalar>>) return optional_scalar(i, name);
    else if constexpr (std::is_same_v<T, std::vector<int64_t>>) return int_list(i, name);
    else if constexpr (std::is_same_v<T, std::optional<std::vector<int64_t>>>) return optional_int_list(i, name);
    else if constexpr (std::is_same_v<T, std::optional<std::vector<double>>>) return optional_double_list(i, name);
    else if constexpr (std::is_same_v<T, std::optional<ScalarType>>) return optional_dtype(i, name);
    else if constexpr (std::is_same_v<T, std::optional<std::string>>) return optional_string(i, name);
    else static_assert(!sizeof(T), "no reader for this argument type");
  }
  template <class T>
  Status read_slot(size_t i, ArgSlot<T> slot) {
    if constexpr (std::is_same_v<T, SkipArg>) {
      return {};
    } else {
      Result<T> r = get<T>(i, slot.name, slot.optional);
      if (!r.ok()) return r.status();
      *slot.dst = std::move(r).value();
      if constexpr (std::is_same_v<T, Tensor*>) return check_slot(*slot.dst, slot.name, slot.check);
      return {};
    }
  }

  Status check_slot(const Tensor* t, const char* name, ArgCheck check) const;
  Result<Value*> value(size_t i, const char* name);
  Status arg_error(size_t i, const char* name, const std::string& what) const;

  const char* op_;
  ValueTable& values_;
  std::span<const int32_t> args_;
};

// KernelArgs(op, values, args).read(count, slots...), for kernels that need nothing else
// from the argument list.
template <class... T>
Status read_args(const char* op, ValueTable& values, std::span<const int32_t> args, size_t count,
                 ArgSlot<T>... slots) {
  return KernelArgs(op, values, args).read(count, slots...);
}

// Checks what every kernel needs from a tensor before touching its data: a dtype the
// kernels handle, contiguous layout, storage for its current shape.
Status check_tensor(const char* op, const Tensor& t, const char* name);
// check_tensor plus dtype membership, e.g. floating only.
Status check_floating(const char* op, const Tensor& t, const char* name);
// check_tensor plus one exact dtype, e.g. float32 for kernels with only an fp32 path.
Status check_dtype(const char* op, const Tensor& t, const char* name, ScalarType dtype);
Status check_same_dtype(const char* op, const Tensor& a, const char* a_name, const Tensor& b, const char* b_name);
// Resizes an output, prefixing errors with the operator.
Status resize_output(const char* op, Tensor& out, std::span<const int64_t> sizes, const char* name = "out");
// check_tensor on an output after resizing (storage must hold the new shape).
Status prepare_output(const char* op, Tensor& out, std::span<const int64_t> sizes, const char* name = "out");

// Bound for the geometry ints of convolution, pooling and the like (kernel size, stride,
// padding, dilation, groups): far beyond any real model, and small enough that the
// product with a tensor dimension (at most 2^40: runtime/program.cpp) and sums of a few
// such products stay inside int64. Hostile files carry any int64 there.
constexpr int64_t kMaxGeometryValue = int64_t{1} << 20;
// Each of `values` lies in [min, kMaxGeometryValue], or an error naming `name`.
Status check_geometry(const char* op, const char* name, std::span<const int64_t> values, int64_t min);

// ---------------------------------------------------------------------------------------
// Shapes and dims

// Wraps a possibly negative dim into [0, rank); rank 0 accepts -1 and 0 (like PyTorch).
Result<int64_t> normalize_dim(const char* op, int64_t dim, int64_t rank);
// Dims of a reduction: nullopt or empty means all dims; duplicates are an error.
Result<std::vector<bool>> reduction_mask(const char* op, const std::optional<std::vector<int64_t>>& dims,
                                         int64_t rank);
std::vector<int64_t> reduced_shape(std::span<const int64_t> sizes, const std::vector<bool>& mask, bool keepdim);

Result<std::vector<int64_t>> broadcast_shapes(const char* op, std::span<const int64_t> a, std::span<const int64_t> b);
// Element strides of a contiguous tensor of shape `in`, seen through an output of shape
// `out` it broadcasts to (0 along broadcast dims), aligned to out's rank.
std::vector<int64_t> broadcast_strides(std::span<const int64_t> in, std::span<const int64_t> out);
bool shape_equal(std::span<const int64_t> a, std::span<const int64_t> b);
std::vector<int64_t> contiguous_strides(std::span<const int64_t> sizes);

// Visits every element of an output of shape `sizes`, handing fn the output's linear
// index and each input's element offset (per `strides`, from broadcast_strides).
template <size_t N, class Fn>
void for_each_broadcast(std::span<const int64_t> sizes, const std::array<std::vector<int64_t>, N>& strides, Fn&& fn) {
  const int64_t total = shape_numel(sizes);
  if (total == 0) return;
  const size_t rank = sizes.size();
  if (rank == 0) {
    std::array<int64_t, N> offs{};
    fn(int64_t{0}, offs);
    return;
  }
  const int64_t inner = sizes[rank - 1];
  std::array<int64_t, N> inner_stride{};
  for (size_t k = 0; k < N; ++k) inner_stride[k] = strides[k][rank - 1];
  std::vector<int64_t> counter(rank, 0);
  std::array<int64_t, N> base{};
  for (int64_t out_i = 0; out_i < total; out_i += inner) {
    std::array<int64_t, N> offs = base;
    for (int64_t j = 0; j < inner; ++j) {
      fn(out_i + j, offs);
      for (size_t k = 0; k < N; ++k) offs[k] += inner_stride[k];
    }
    // Advance the odometer over the outer dims.
    for (size_t d = rank - 1; d-- > 0;) {
      ++counter[d];
      for (size_t k = 0; k < N; ++k) base[k] += strides[k][d];
      if (counter[d] < sizes[d]) break;
      for (size_t k = 0; k < N; ++k) base[k] -= strides[k][d] * counter[d];
      counter[d] = 0;
    }
  }
}

// dst[i] = src[offset + the element offset of index i per `strides`] over the shape `sizes`,
// dst contiguous, `elem` bytes an element: a strided view (or a broadcast, with
// broadcast_strides) copied out.
void gather_strided_bytes(const void* src, size_t elem, std::span<const int64_t> sizes,
                          std::span<const int64_t> strides, int64_t offset, void* dst);

// Splits `sizes` around `dim` into (outer, size at dim, inner) for dim-wise loops.
struct DimSplit {
  int64_t outer = 1, size = 1, inner = 1;
};
DimSplit split_at(std::span<const int64_t> sizes, int64_t dim);

std::string dtype_str(ScalarType t);

}  // namespace wick::cpu
