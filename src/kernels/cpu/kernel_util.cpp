#include "kernels/cpu/kernel_util.h"

#include <algorithm>
#include <type_traits>

namespace wick::cpu {

Status op_error(const char* op, ErrorCode code, const std::string& message) {
  return Status(code, std::string(op) + ": " + message);
}

std::string dtype_str(ScalarType t) { return dtype_name(t); }

bool is_kernel_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::kByte: case ScalarType::kChar: case ScalarType::kShort:
    case ScalarType::kInt: case ScalarType::kLong: case ScalarType::kHalf:
    case ScalarType::kFloat: case ScalarType::kDouble: case ScalarType::kBool:
    case ScalarType::kBFloat16:
      return true;
    default:
      return false;
  }
}

ScalarType compute_type_for(ScalarType t) {
  if (t == ScalarType::kDouble) return ScalarType::kDouble;
  if (is_floating(t)) return ScalarType::kFloat;
  return ScalarType::kLong;
}

void convert_elements(const void* src, ScalarType src_type, void* dst, ScalarType dst_type, int64_t n) {
  if (n <= 0) return;
  if (src_type == dst_type) {
    std::memmove(dst, src, static_cast<size_t>(n) * element_size(src_type));
    return;
  }
  visit_dtype(src_type, [&](auto src_tag) {
    using S = typename decltype(src_tag)::type;
    visit_dtype(dst_type, [&](auto dst_tag) {
      using D = typename decltype(dst_tag)::type;
      D* d = static_cast<D*>(dst);
      if constexpr (std::is_same_v<S, bool>) {
        // A bool tensor's bytes may come from a file (a constant) and hold 2..255: loading
        // such a byte as a bool is undefined behaviour (UBSan, c_api_fuzzer). Any nonzero
        // byte is true.
        const uint8_t* s = static_cast<const uint8_t*>(src);
        for (int64_t i = 0; i < n; ++i) d[i] = convert<D>(s[i] != 0);
      } else {
        const S* s = static_cast<const S*>(src);
        for (int64_t i = 0; i < n; ++i) d[i] = convert<D>(s[i]);
      }
    });
  });
}

void convert_via(const void* src, ScalarType src_type, ScalarType via, void* dst, ScalarType dst_type, int64_t n) {
  if (via == src_type || via == dst_type) {
    convert_elements(src, src_type, dst, dst_type, n);
    return;
  }
  std::vector<uint8_t> mid(static_cast<size_t>(n) * element_size(via));
  convert_elements(src, src_type, mid.data(), via, n);
  convert_elements(mid.data(), via, dst, dst_type, n);
}

// ---------------------------------------------------------------------------------------
// Type promotion

namespace {
int int_rank(ScalarType t) {
  switch (t) {
    case ScalarType::kChar: return 1;
    case ScalarType::kShort: return 2;
    case ScalarType::kInt: return 3;
    case ScalarType::kLong: return 4;
    default: return 0;  // uint8
  }
}
}  // namespace

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::kBool) return b;
  if (b == ScalarType::kBool) return a;
  const bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    if (a == ScalarType::kDouble || b == ScalarType::kDouble) return ScalarType::kDouble;
    return ScalarType::kFloat;  // float with anything, or half with bfloat16
  }
  if (fa) return a;
  if (fb) return b;
  // Both integers. uint8 with a signed type needs a signed type that holds 0..255.
  if (a == ScalarType::kByte || b == ScalarType::kByte) {
    ScalarType other = a == ScalarType::kByte ? b : a;
    return int_rank(other) <= 2 ? ScalarType::kShort : other;
  }
  return int_rank(a) >= int_rank(b) ? a : b;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating(from) && is_integral(to, /*include_bool=*/true)) return false;
  if (from != ScalarType::kBool && to == ScalarType::kBool) return false;
  return true;
}

namespace {
std::optional<ScalarType> promote_opt(std::optional<ScalarType> a, ScalarType b) {
  return a ? promote_types(*a, b) : b;
}
std::optional<ScalarType> combine_categories(std::optional<ScalarType> higher, std::optional<ScalarType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_floating(*higher)) return higher;
  if (*higher == ScalarType::kBool || is_floating(*lower)) return promote_types(*higher, *lower);
  return higher;
}
}  // namespace

void ResultType::add_tensor(const Tensor& t) {
  if (t.dim() == 0) zero_dim_ = promote_opt(zero_dim_, t.dtype);
  else dim_ = promote_opt(dim_, t.dtype);
}

void ResultType::add_scalar(const Scalar& s) {
  // Python floats take the default dtype (float32), ints int64.
  ScalarType t = s.is_floating() ? ScalarType::kFloat : s.wrapped_dtype();
  wrapped_ = promote_opt(wrapped_, t);
}

ScalarType ResultType::result() const {
  auto r = combine_categories(dim_, combine_categories(zero_dim_, wrapped_));
  return r ? *r : ScalarType::kFloat;
}

// ---------------------------------------------------------------------------------------
// Arguments

Status KernelArgs::expect_count(size_t n) const {
  if (args_.size() != n)
    return op_error(op_, ErrorCode::kInvalidProgram,
                    "expected " + std::to_string(n) + " argument values, got " + std::to_string(args_.size()));
  return {};
}

Status KernelArgs::arg_error(size_t i, const char* name, const std::string& what) const {
  return op_error(op_, ErrorCode::kInvalidProgram, std::string("argument '") + name + "': " + what);
}

Result<Value*> KernelArgs::value(size_t i, const char* name) {
  if (i >= args_.size()) return arg_error(i, name, "missing (only " + std::to_string(args_.size()) + " values)");
  auto v = values_.at(args_[i]);
  if (!v.ok()) return with_op(op_, v.status().with_context(std::string("argument '") + name + "'"));
  return v.value();
}

namespace {
std::string describe(int32_t index, const Value& v) {
  return "value " + std::to_string(index) + " is " + value_tag_name(v.tag);
}
bool is_none_placeholder(const Tensor& t) {
  return t.dtype == ScalarType::kByte && t.sizes.size() == 1 && t.sizes[0] == 0;
}
}  // namespace

Result<Tensor*> KernelArgs::tensor(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Value * v, value(i, name));
  if (!v->is_tensor()) return arg_error(i, name, describe(args_[i], *v) + ", expected Tensor");
  return &v->tensor;
}

Result<Tensor*> KernelArgs::optional_tensor(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Value * v, value(i, name));
  if (v->is_none()) return static_cast<Tensor*>(nullptr);
  if (!v->is_tensor()) return arg_error(i, name, describe(args_[i], *v) + ", expected Tensor or None");
  if (is_none_placeholder(v->tensor)) return static_cast<Tensor*>(nullptr);
  return &v->tensor;
}

Result<int64_t> KernelArgs::int_arg(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Value * v, value(i, name));
  if (v->tag == ValueTag::kInt) return v->i;
  if (v->tag == ValueTag::kBool) return static_cast<int64_t>(v->b);
  return arg_error(i, name, describe(args_[i], *v) + ", expected Int");
}

Result<std::optional<int64_t>> KernelArgs::optional_int(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Value * v, value(i, name));
  if (v->is_none()) return std::optional<int64_t>();
  WICK_ASSIGN_OR_RETURN(int64_t x, int_arg(i, name));
  return std::optional<int64_t>(x);
}

Result<bool> KernelArgs::bool_arg(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Value * v, value(i, name));
  if (v->tag == ValueTag::kBool) return v->b;
  if (v->tag == ValueTag::kInt) return v->i != 0;
  return arg_error(i, name, describe(args_[i], *v) + ", expected Bool");
}

Result<Scalar> KernelArgs::scalar(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Value * v, value(i, name));
  if (!v->is_scalar()) return arg_error(i, name, describe(args_[i], *v) + ", expected a scalar");
  Scalar s;
  s.tag = v->tag;
  s.i = v->i;
  s.d = v->d;
  s.b = v->b;
  return s;
}

Result<std::optional<Scalar>> KernelArgs::optional_scalar(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Value * v, value(i, name));
  if (v->is_none()) return std::optional<Scalar>();
  WICK_ASSIGN_OR_RETURN(Scalar s, scalar(i, name));
  return std::optional<Scalar>(s);
}

Result<double> KernelArgs::double_arg(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Scalar s, scalar(i, name));
  return s.to_double();
}

Result<std::vector<int64_t>> KernelArgs::int_list(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Value * v, value(i, name));
  if (v->tag == ValueTag::kInt) return std::vector<int64_t>{v->i};  // int[1] given as a plain int
  if (v->tag != ValueTag::kListInt) return arg_error(i, name, describe(args_[i], *v) + ", expected IntList");
  auto r = values_.int_list(args_[i]);
  if (!r.ok()) return with_op(op_, r.status().with_context(std::string("argument '") + name + "'"));
  return std::move(r).value();
}

Result<std::optional<std::vector<int64_t>>> KernelArgs::optional_int_list(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Value * v, value(i, name));
  if (v->is_none()) return std::optional<std::vector<int64_t>>();
  WICK_ASSIGN_OR_RETURN(std::vector<int64_t> list, int_list(i, name));
  return std::optional<std::vector<int64_t>>(std::move(list));
}

Result<std::optional<std::vector<double>>> KernelArgs::optional_double_list(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Value * v, value(i, name));
  if (v->is_none()) return std::optional<std::vector<double>>();
  if (v->tag == ValueTag::kListDouble) return std::optional<std::vector<double>>(v->doubles);
  if (v->tag == ValueTag::kListInt) {
    WICK_ASSIGN_OR_RETURN(std::vector<int64_t> ints, int_list(i, name));
    return std::optional<std::vector<double>>(std::vector<double>(ints.begin(), ints.end()));
  }
  return arg_error(i, name, describe(args_[i], *v) + ", expected DoubleList or None");
}

Result<std::optional<ScalarType>> KernelArgs::optional_dtype(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Value * v, value(i, name));
  if (v->is_none()) return std::optional<ScalarType>();
  if (v->tag != ValueTag::kInt) return arg_error(i, name, describe(args_[i], *v) + ", expected a ScalarType Int or None");
  if (v->i < 0 || v->i > 127 || !is_valid_scalar_type(static_cast<int>(v->i)))
    return arg_error(i, name, "invalid ScalarType " + std::to_string(v->i));
  return std::optional<ScalarType>(static_cast<ScalarType>(v->i));
}

Result<std::optional<std::string>> KernelArgs::optional_string(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Value * v, value(i, name));
  if (v->is_none()) return std::optional<std::string>();
  if (v->tag != ValueTag::kString) return arg_error(i, name, describe(args_[i], *v) + ", expected String or None");
  return std::optional<std::string>(v->s);
}

Result<std::vector<Tensor*>> KernelArgs::tensor_list(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Value * v, value(i, name));
  if (v->tag != ValueTag::kListTensor) return arg_error(i, name, describe(args_[i], *v) + ", expected TensorList");
  std::vector<Tensor*> out;
  for (int32_t item : v->items) {
    auto t = values_.tensor(item);
    if (!t.ok()) return with_op(op_, t.status().with_context(std::string("argument '") + name + "'"));
    out.push_back(t.value());
  }
  return out;
}

Result<std::vector<Tensor*>> KernelArgs::optional_tensor_list(size_t i, const char* name) {
  WICK_ASSIGN_OR_RETURN(Value * v, value(i, name));
  if (v->tag != ValueTag::kListOptionalTensor && v->tag != ValueTag::kListTensor)
    return arg_error(i, name, describe(args_[i], *v) + ", expected OptionalTensorList");
  // Copy the items: looking values up below must not depend on `v` staying put.
  std::vector<int32_t> items = v->items;
  std::vector<Tensor*> out;
  for (int32_t item : items) {
    if (item == -1) {
      out.push_back(nullptr);
      continue;
    }
    auto e = values_.at(item);
    if (!e.ok()) return with_op(op_, e.status().with_context(std::string("argument '") + name + "'"));
    Value* ev = e.value();
    if (ev->is_none()) {
      out.push_back(nullptr);
    } else if (ev->is_tensor()) {
      out.push_back(is_none_placeholder(ev->tensor) ? nullptr : &ev->tensor);
    } else {
      return arg_error(i, name, "element " + describe(item, *ev) + ", expected Tensor or None");
    }
  }
  return out;
}

Status KernelArgs::check_slot(const Tensor* t, const char* name, ArgCheck check) const {
  if (t == nullptr || check == ArgCheck::kNone) return {};
  return check == ArgCheck::kFloating ? check_floating(op_, *t, name) : check_tensor(op_, *t, name);
}

// ---------------------------------------------------------------------------------------
// Tensor checks

Status check_tensor(const char* op, const Tensor& t, const char* name) {
  if (!is_kernel_dtype(t.dtype))
    return not_supported(op, std::string(name) + " has dtype " + dtype_str(t.dtype));
  for (int64_t s : t.sizes)
    if (s < 0) return invalid_arg(op, std::string(name) + " has a negative size " + t.shape_string());
  if (!t.is_contiguous()) return not_supported(op, std::string(name) + " is not contiguous (non-default dim_order)");
  if (t.numel() > 0) {
    if (t.data == nullptr) return invalid_arg(op, std::string(name) + " " + t.shape_string() + " has no data");
    if (t.capacity < t.nbytes())
      return invalid_arg(op, std::string(name) + " " + t.shape_string() + " needs " + std::to_string(t.nbytes()) +
                                 " bytes, storage holds " + std::to_string(t.capacity));
  }
  return {};
}

Status check_floating(const char* op, const Tensor& t, const char* name) {
  WICK_RETURN_IF_ERROR(check_tensor(op, t, name));
  if (!is_floating(t.dtype))
    return not_supported(op, std::string(name) + " has dtype " + dtype_str(t.dtype) + ", expected a floating dtype");
  return {};
}

Status check_dtype(const char* op, const Tensor& t, const char* name, ScalarType dtype) {
  WICK_RETURN_IF_ERROR(check_tensor(op, t, name));
  if (t.dtype != dtype)
    return not_supported(op, std::string(name) + " must be " + dtype_str(dtype) + ", got " + dtype_str(t.dtype));
  return {};
}

Status check_same_dtype(const char* op, const Tensor& a, const char* a_name, const Tensor& b, const char* b_name) {
  if (a.dtype != b.dtype)
    return invalid_arg(op, std::string(a_name) + " is " + dtype_str(a.dtype) + " but " + b_name + " is " +
                               dtype_str(b.dtype));
  return {};
}

Status resize_output(const char* op, Tensor& out, std::span<const int64_t> sizes, const char* name) {
  Status s = out.resize(sizes);
  if (!s.ok()) return with_op(op, s.with_context(name));
  return {};
}

Status prepare_output(const char* op, Tensor& out, std::span<const int64_t> sizes, const char* name) {
  WICK_RETURN_IF_ERROR(resize_output(op, out, sizes, name));
  return check_tensor(op, out, name);
}

Status check_geometry(const char* op, const char* name, std::span<const int64_t> values, int64_t min) {
  for (int64_t v : values)
    if (v < min || v > kMaxGeometryValue)
      return invalid_arg(op, std::string(name) + " " + std::to_string(v) + " is out of range [" + std::to_string(min) +
                                 ", " + std::to_string(kMaxGeometryValue) + "]");
  return {};
}

// ---------------------------------------------------------------------------------------
// Shapes

Result<int64_t> normalize_dim(const char* op, int64_t dim, int64_t rank) {
  const int64_t r = rank == 0 ? 1 : rank;
  if (dim < -r || dim >= r)
    return invalid_arg(op, "dim " + std::to_string(dim) + " out of range for a rank-" + std::to_string(rank) +
                               " tensor");
  return dim < 0 ? dim + r : dim;
}

Result<std::vector<bool>> reduction_mask(const char* op, const std::optional<std::vector<int64_t>>& dims,
                                         int64_t rank) {
  std::vector<bool> mask(static_cast<size_t>(rank), false);
  if (!dims || dims->empty()) {
    std::fill(mask.begin(), mask.end(), true);
    return mask;
  }
  std::vector<bool> seen(static_cast<size_t>(rank == 0 ? 1 : rank), false);
  for (int64_t d : *dims) {
    WICK_ASSIGN_OR_RETURN(int64_t nd, normalize_dim(op, d, rank));
    if (seen[static_cast<size_t>(nd)]) return invalid_arg(op, "dim " + std::to_string(nd) + " appears more than once");
    seen[static_cast<size_t>(nd)] = true;
    if (rank > 0) mask[static_cast<size_t>(nd)] = true;
  }
  return mask;
}

std::vector<int64_t> reduced_shape(std::span<const int64_t> sizes, const std::vector<bool>& mask, bool keepdim) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!mask[d]) out.push_back(sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

Result<std::vector<int64_t>> broadcast_shapes(const char* op, std::span<const int64_t> a, std::span<const int64_t> b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return invalid_arg(op, "shapes " + shape_to_string(a) + " and " + shape_to_string(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<int64_t> contiguous_strides(std::span<const int64_t> sizes) {
  std::vector<int64_t> st(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;) st[i - 1] = st[i] * sizes[i];
  return st;
}

std::vector<int64_t> broadcast_strides(std::span<const int64_t> in, std::span<const int64_t> out) {
  std::vector<int64_t> st(out.size(), 0);
  std::vector<int64_t> in_st = contiguous_strides(in);
  const size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) st[lead + i] = in[i] == 1 ? 0 : in_st[i];
  return st;
}

bool shape_equal(std::span<const int64_t> a, std::span<const int64_t> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

DimSplit split_at(std::span<const int64_t> sizes, int64_t dim) {
  DimSplit s;
  if (sizes.empty()) return s;
  for (int64_t d = 0; d < dim; ++d) s.outer *= sizes[static_cast<size_t>(d)];
  s.size = sizes[static_cast<size_t>(dim)];
  for (size_t d = static_cast<size_t>(dim) + 1; d < sizes.size(); ++d) s.inner *= sizes[d];
  return s;
}

void gather_strided_bytes(const void* src, size_t elem, std::span<const int64_t> sizes,
                          std::span<const int64_t> strides, int64_t offset, void* dst) {
  std::array<std::vector<int64_t>, 1> st{std::vector<int64_t>(strides.begin(), strides.end())};
  visit_element_bytes(elem, [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* from = static_cast<const U*>(src) + offset;
    U* to = static_cast<U*>(dst);
    for_each_broadcast<1>(sizes, st, [&](int64_t i, const std::array<int64_t, 1>& o) { to[i] = from[o[0]]; });
  });
}

}  // namespace wick::cpu
