#include "runtime/value.h"

namespace wick {

const char* value_tag_name(ValueTag tag) {
  switch (tag) {
    case ValueTag::kNone: return "None";
    case ValueTag::kTensor: return "Tensor";
    case ValueTag::kString: return "String";
    case ValueTag::kDouble: return "Double";
    case ValueTag::kInt: return "Int";
    case ValueTag::kBool: return "Bool";
    case ValueTag::kListBool: return "BoolList";
    case ValueTag::kListDouble: return "DoubleList";
    case ValueTag::kListInt: return "IntList";
    case ValueTag::kListTensor: return "TensorList";
    case ValueTag::kListOptionalTensor: return "OptionalTensorList";
  }
  return "?";
}

namespace {
Status wrong_type(int64_t index, const Value& v, const char* expected) {
  return Status(ErrorCode::kInvalidProgram, "value " + std::to_string(index) + " is " +
                                                value_tag_name(v.tag) + ", expected " + expected);
}
}  // namespace

Result<Value*> ValueTable::at(int64_t index) {
  if (index < 0 || static_cast<size_t>(index) >= values.size())
    return Status(ErrorCode::kInvalidProgram, "value index " + std::to_string(index) + " out of range (" +
                                                  std::to_string(values.size()) + " values)");
  return &values[static_cast<size_t>(index)];
}

Result<Tensor*> ValueTable::tensor(int64_t index) {
  WICK_ASSIGN_OR_RETURN(Value * v, at(index));
  if (!v->is_tensor()) return wrong_type(index, *v, "Tensor");
  return &v->tensor;
}

Result<Tensor*> ValueTable::optional_tensor(int64_t index) {
  WICK_ASSIGN_OR_RETURN(Value * v, at(index));
  if (v->is_none()) return static_cast<Tensor*>(nullptr);
  if (!v->is_tensor()) return wrong_type(index, *v, "Tensor or None");
  return &v->tensor;
}

Result<int64_t> ValueTable::int_value(int64_t index) {
  WICK_ASSIGN_OR_RETURN(Value * v, at(index));
  if (v->tag == ValueTag::kInt) return v->i;
  if (v->tag == ValueTag::kBool) return static_cast<int64_t>(v->b);
  // An integral double within int64: anything else converts to INT64_MIN, which differs.
  if (v->tag == ValueTag::kDouble && static_cast<double>(double_to_int64(v->d)) == v->d)
    return double_to_int64(v->d);
  return wrong_type(index, *v, "Int");
}

Result<double> ValueTable::scalar(int64_t index) {
  WICK_ASSIGN_OR_RETURN(Value * v, at(index));
  if (!v->is_scalar()) return wrong_type(index, *v, "a scalar");
  return v->scalar_as_double();
}

Result<bool> ValueTable::bool_value(int64_t index) {
  WICK_ASSIGN_OR_RETURN(Value * v, at(index));
  if (v->tag == ValueTag::kBool) return v->b;
  if (v->tag == ValueTag::kInt) return v->i != 0;
  return wrong_type(index, *v, "Bool");
}

Result<std::vector<int64_t>> ValueTable::int_list(int64_t index) {
  WICK_ASSIGN_OR_RETURN(Value * v, at(index));
  if (v->tag != ValueTag::kListInt) return wrong_type(index, *v, "IntList");
  std::vector<int64_t> out;
  out.reserve(v->items.size());
  for (int32_t item : v->items) {
    WICK_ASSIGN_OR_RETURN(int64_t x, int_value(item));
    out.push_back(x);
  }
  return out;
}

Result<std::vector<Tensor*>> ValueTable::tensor_list(int64_t index) {
  WICK_ASSIGN_OR_RETURN(Value * v, at(index));
  if (v->tag != ValueTag::kListTensor) return wrong_type(index, *v, "TensorList");
  std::vector<Tensor*> out;
  for (int32_t item : v->items) {
    WICK_ASSIGN_OR_RETURN(Tensor * t, tensor(item));
    out.push_back(t);
  }
  return out;
}

Result<std::vector<Tensor*>> ValueTable::optional_tensor_list(int64_t index) {
  WICK_ASSIGN_OR_RETURN(Value * v, at(index));
  if (v->tag != ValueTag::kListOptionalTensor && v->tag != ValueTag::kListTensor)
    return wrong_type(index, *v, "OptionalTensorList");
  std::vector<Tensor*> out;
  for (int32_t item : v->items) {
    if (item == -1) {
      out.push_back(nullptr);
      continue;
    }
    WICK_ASSIGN_OR_RETURN(Tensor * t, optional_tensor(item));
    out.push_back(t);
  }
  return out;
}

}  // namespace wick
