// Small helpers for the CPU kernel tests: build a value table by hand, call a kernel by
// its registry name, read results back as doubles.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/kernel.h"
#include "runtime/value.h"

namespace wick::cpu::testing {

// Stores `v` into element i of a tensor of any dtype the kernels use.
inline void store_double(Tensor& t, int64_t i, double v) {
  void* p = static_cast<uint8_t*>(t.data) + static_cast<size_t>(i) * element_size(t.dtype);
  switch (t.dtype) {
    case ScalarType::kByte: *static_cast<uint8_t*>(p) = static_cast<uint8_t>(static_cast<int64_t>(v)); break;
    case ScalarType::kChar: *static_cast<int8_t*>(p) = static_cast<int8_t>(v); break;
    case ScalarType::kShort: *static_cast<int16_t*>(p) = static_cast<int16_t>(v); break;
    case ScalarType::kInt: *static_cast<int32_t*>(p) = static_cast<int32_t>(v); break;
    case ScalarType::kLong: *static_cast<int64_t*>(p) = static_cast<int64_t>(v); break;
    case ScalarType::kHalf: *static_cast<uint16_t*>(p) = float_to_half(static_cast<float>(v)); break;
    case ScalarType::kBFloat16: *static_cast<uint16_t*>(p) = float_to_bf16(static_cast<float>(v)); break;
    case ScalarType::kFloat: *static_cast<float*>(p) = static_cast<float>(v); break;
    case ScalarType::kDouble: *static_cast<double*>(p) = v; break;
    case ScalarType::kBool: *static_cast<bool*>(p) = v != 0; break;
    default: ADD_FAILURE() << "unsupported test dtype"; break;
  }
}

inline double load_double(const Tensor& t, int64_t i) {
  const void* p = static_cast<const uint8_t*>(t.data) + static_cast<size_t>(i) * element_size(t.dtype);
  switch (t.dtype) {
    case ScalarType::kByte: return *static_cast<const uint8_t*>(p);
    case ScalarType::kChar: return *static_cast<const int8_t*>(p);
    case ScalarType::kShort: return *static_cast<const int16_t*>(p);
    case ScalarType::kInt: return *static_cast<const int32_t*>(p);
    case ScalarType::kLong: return static_cast<double>(*static_cast<const int64_t*>(p));
    case ScalarType::kHalf: return half_to_float(*static_cast<const uint16_t*>(p));
    case ScalarType::kBFloat16: return bf16_to_float(*static_cast<const uint16_t*>(p));
    case ScalarType::kFloat: return *static_cast<const float*>(p);
    case ScalarType::kDouble: return *static_cast<const double*>(p);
    case ScalarType::kBool: return *static_cast<const bool*>(p) ? 1.0 : 0.0;
    default: ADD_FAILURE() << "unsupported test dtype"; return 0;
  }
}

class Harness {
 public:
  ValueTable vt;

  int32_t add(Value v) {
    vt.values.push_back(std::move(v));
    return static_cast<int32_t>(vt.values.size() - 1);
  }
  // A tensor with its own storage, filled from `data` (converted to dtype) when given.
  int32_t tensor(ScalarType dt, std::vector<int64_t> sizes, const std::vector<double>& data = {}) {
    Tensor t = Tensor::make_owned(dt, std::move(sizes));
    if (!data.empty()) {
      EXPECT_EQ(static_cast<int64_t>(data.size()), t.numel()) << "test data size";
      for (int64_t i = 0; i < t.numel() && i < static_cast<int64_t>(data.size()); ++i) store_double(t, i, data[static_cast<size_t>(i)]);
    }
    return add(Value::make_tensor(std::move(t)));
  }
  // A dynamically shaped tensor with storage for `max_sizes`, currently that shape.
  int32_t dynamic(ScalarType dt, std::vector<int64_t> max_sizes) {
    Tensor t = Tensor::make_owned(dt, std::move(max_sizes));
    t.dynamism = ShapeDynamism::kDynamicBound;
    return add(Value::make_tensor(std::move(t)));
  }
  int32_t i(int64_t v) { return add(Value::make_int(v)); }
  int32_t d(double v) { return add(Value::make_double(v)); }
  int32_t b(bool v) { return add(Value::make_bool(v)); }
  int32_t none() { return add(Value()); }
  int32_t str(const std::string& s) {
    Value v;
    v.tag = ValueTag::kString;
    v.s = s;
    return add(std::move(v));
  }
  int32_t int_list(const std::vector<int64_t>& xs) {
    Value v;
    v.tag = ValueTag::kListInt;
    for (int64_t x : xs) v.items.push_back(i(x));
    return add(std::move(v));
  }
  int32_t tensor_list(const std::vector<int32_t>& ids) {
    Value v;
    v.tag = ValueTag::kListTensor;
    v.items = ids;
    return add(std::move(v));
  }
  // -1 entries stand for None, as ExecuTorch serialises them.
  int32_t optional_tensor_list(const std::vector<int32_t>& ids) {
    Value v;
    v.tag = ValueTag::kListOptionalTensor;
    v.items = ids;
    return add(std::move(v));
  }

  Tensor& t(int32_t id) { return vt.values[static_cast<size_t>(id)].tensor; }
  std::vector<double> data(int32_t id) {
    const Tensor& x = t(id);
    std::vector<double> out(static_cast<size_t>(x.numel()));
    for (int64_t k = 0; k < x.numel(); ++k) out[static_cast<size_t>(k)] = load_double(x, k);
    return out;
  }
  std::vector<int64_t> sizes(int32_t id) { return t(id).sizes; }

  Status call(const std::string& name, const std::vector<int32_t>& args) {
    KernelFn fn = find_kernel(name);
    if (fn == nullptr) return Status(ErrorCode::kOperatorMissing, "no kernel " + name);
    return fn(vt, args);
  }
};

// Deterministic pseudo-random values in [lo, hi).
inline std::vector<double> random_values(size_t n, double lo, double hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = dist(gen);
  return v;
}
inline std::vector<double> random_ints(size_t n, int lo, int hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = dist(gen);
  return v;
}
// Values rounded to float32, for references computed from what a float tensor holds.
inline std::vector<double> as_float32(std::vector<double> v) {
  for (double& x : v) x = static_cast<float>(x);
  return v;
}

inline int64_t numel(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t x : s) n *= x;
  return n;
}

// Element-wise closeness with NaN == NaN.
inline void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double atol,
                            double rtol = 0) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    if (std::isnan(want[k])) {
      EXPECT_TRUE(std::isnan(got[k])) << "at " << k << ": got " << got[k] << ", want NaN";
    } else if (std::isinf(want[k])) {
      EXPECT_EQ(got[k], want[k]) << "at " << k;
    } else {
      EXPECT_NEAR(got[k], want[k], atol + rtol * std::fabs(want[k])) << "at " << k;
    }
  }
}

// 0, 1, ..., n - 1: inputs whose every element differs, so a misplaced read shows.
inline std::vector<double> iota(size_t n) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), 0.0);
  return v;
}

// The error names the operator and is not ok.
#define EXPECT_OP_ERROR(status, op_name)                                                    \
  do {                                                                                      \
    ::wick::Status s_ = (status);                                                           \
    EXPECT_FALSE(s_.ok()) << "expected an error from " << (op_name);                       \
    EXPECT_EQ(s_.message().rfind(op_name, 0), 0u) << "message: " << s_.message();           \
  } while (0)

}  // namespace wick::cpu::testing
