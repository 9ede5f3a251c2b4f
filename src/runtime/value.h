// A method's values (ExecuTorch EValues): tensors, scalars, strings and lists.
// Lists of ints and tensors hold indices into the method's value table, because
// their elements may be computed at run time (SymInts, kernel outputs).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace wick {

enum class ValueTag : uint8_t {
  kNone,
  kTensor,
  kString,
  kDouble,
  kInt,
  kBool,
  kListBool,
  kListDouble,
  kListInt,             // `items` are value indices of Int values
  kListTensor,          // `items` are value indices of Tensor values
  kListOptionalTensor,  // `items` are value indices of Tensor or None values
};

const char* value_tag_name(ValueTag tag);

// A double truncated to int64. NaN and values beyond int64 (undefined behaviour for a
// plain cast; a file can hold any double) give INT64_MIN, as x86 does.
inline int64_t double_to_int64(double d) {
  return d >= -9223372036854775808.0 && d < 9223372036854775808.0 ? static_cast<int64_t>(d) : INT64_MIN;
}

struct Value {
  ValueTag tag = ValueTag::kNone;
  int64_t i = 0;
  double d = 0;
  bool b = false;
  std::string s;
  Tensor tensor;
  std::vector<int32_t> items;   // value indices (kListInt / kListTensor / kListOptionalTensor)
  std::vector<double> doubles;  // kListDouble
  std::vector<uint8_t> bools;   // kListBool

  bool is_tensor() const { return tag == ValueTag::kTensor; }
  bool is_none() const { return tag == ValueTag::kNone; }
  bool is_scalar() const {
    return tag == ValueTag::kInt || tag == ValueTag::kDouble || tag == ValueTag::kBool;
  }
  // Int, Double or Bool as a double (PyTorch's Scalar).
  double scalar_as_double() const {
    return tag == ValueTag::kDouble ? d : tag == ValueTag::kInt ? static_cast<double>(i) : (b ? 1 : 0);
  }
  int64_t scalar_as_int() const {
    return tag == ValueTag::kInt ? i : tag == ValueTag::kDouble ? double_to_int64(d) : (b ? 1 : 0);
  }

  static Value make_int(int64_t v) { Value x; x.tag = ValueTag::kInt; x.i = v; return x; }
  static Value make_double(double v) { Value x; x.tag = ValueTag::kDouble; x.d = v; return x; }
  static Value make_bool(bool v) { Value x; x.tag = ValueTag::kBool; x.b = v; return x; }
  static Value make_tensor(Tensor t) { Value x; x.tag = ValueTag::kTensor; x.tensor = std::move(t); return x; }
};

// The k largest entries of one row of a float tensor, best first (ties: lower index
// first, as torch.topk): what an LLM sampler needs instead of the whole logits row.
struct TopK {
  std::vector<int32_t> ids;
  std::vector<float> values;
};

// The value table of one method, with typed accessors that return errors
// naming the value instead of crashing on a wrong type.
class ValueTable {
 public:
  std::vector<Value> values;

  size_t size() const { return values.size(); }
  Result<Value*> at(int64_t index);
  Result<Tensor*> tensor(int64_t index);
  Result<int64_t> int_value(int64_t index);       // Int (or Bool / integral Double)
  Result<double> scalar(int64_t index);           // Int, Double or Bool
  Result<bool> bool_value(int64_t index);
  // Materialises an int list; elements are read now, so run-time ints are current.
  Result<std::vector<int64_t>> int_list(int64_t index);
  Result<std::vector<Tensor*>> tensor_list(int64_t index);
  // nullptr entries for None.
  Result<std::vector<Tensor*>> optional_tensor_list(int64_t index);
  // nullptr for None; error for anything else that is not a tensor.
  Result<Tensor*> optional_tensor(int64_t index);
};

}  // namespace wick
