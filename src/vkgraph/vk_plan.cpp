#include "vkgraph/vk_plan.h"

#include <cstring>

#include "core/dtype.h"

namespace wick::vkgraph {

size_t vk_elem_size(vk::VkDataType t) {
  switch (t) {
    case vk::VkDataType::BOOL: case vk::VkDataType::UINT8: case vk::VkDataType::INT8: return 1;
    case vk::VkDataType::FLOAT16: return 2;
    case vk::VkDataType::INT32: case vk::VkDataType::FLOAT32: return 4;
    case vk::VkDataType::FLOAT64: case vk::VkDataType::INT64: return 8;
    default: return 0;
  }
}

bool vk_is_float(vk::VkDataType t) {
  return t == vk::VkDataType::FLOAT16 || t == vk::VkDataType::FLOAT32 || t == vk::VkDataType::FLOAT64;
}

namespace {

Status bad(const std::string& what) { return Status(ErrorCode::kInvalidProgram, "VK00 graph: " + what); }

// An [long] or [double] list's elements, copied bytewise: the verifier checks only that the
// length word is 4-byte aligned, so the elements may sit at 4 mod 8, where reading them
// through a T* (the vector's iterators) is a misaligned load. Flatbuffers and every host
// Wick runs on (x86-64, Arm64, Wasm) are little-endian.
template <class T>
void copy_elements(const flatbuffers::Vector<T>& items, std::vector<T>& out) {
  out.resize(items.size());
  if (!out.empty()) std::memcpy(out.data(), items.Data(), out.size() * sizeof(T));
}

Status read_tensor(const vk::VkGraph& graph, const VkBlob& blob, const NamedDataMap* named_data, size_t id,
                   const vk::VkTensor* t, TensorDecl& out) {
  const std::string where = "value " + std::to_string(id);
  out.dtype = t->datatype();
  if (vk_elem_size(out.dtype) == 0)
    return bad(where + ": unsupported datatype " + std::to_string(static_cast<int>(out.dtype)));
  if (t->dims())
    for (uint32_t d : *t->dims()) out.dims.push_back(d);
  if (out.dims.size() > 8) return bad(where + ": rank above 8");
  uint64_t numel = 1;
  for (int64_t d : out.dims) {
    numel *= static_cast<uint64_t>(d);
    if (numel > (uint64_t{1} << 32)) return bad(where + ": tensor too large");
  }
  out.constant_id = t->constant_id();
  out.mem_obj_id = t->mem_obj_id();
  if (out.constant_id < 0) return {};
  const auto* constants = graph.constants();
  if (constants == nullptr || static_cast<uint32_t>(out.constant_id) >= constants->size())
    return bad(where + ": constant_id " + std::to_string(out.constant_id) + " out of range");
  const vk::VkBytes* cb = constants->Get(static_cast<flatbuffers::uoffset_t>(out.constant_id));
  const uint64_t need = numel * vk_elem_size(out.dtype);
  std::span<const uint8_t> src;
  if (cb->offset() == UINT64_MAX) {
    if (named_data == nullptr || cb->named_key() == nullptr) return bad(where + ": constant has no named key");
    auto data = named_data->get(cb->named_key()->string_view());
    if (!data.ok()) return data.status().with_context("VK00 graph: " + where);
    src = *data;
  } else {
    if (cb->offset() > blob.constant_bytes.size() || need > blob.constant_bytes.size() - cb->offset())
      return bad(where + ": inline constant runs past the blob");
    src = blob.constant_bytes.subspan(static_cast<size_t>(cb->offset()), static_cast<size_t>(need));
  }
  if (src.size() < need)
    return bad(where + ": constant holds " + std::to_string(src.size()) + " bytes, the tensor needs " +
               std::to_string(need));
  // The CPU executor's kernels read a constant in place through typed pointers, so it must
  // be aligned for its dtype. Exporters align constants to 16 (segments and the blob's raw
  // region alike); a corrupt offset may not.
  const size_t align = vk_elem_size(out.dtype);
  if (need > 0 && reinterpret_cast<uintptr_t>(src.data()) % align != 0)
    return bad(where + ": constant data is not aligned to the " + std::to_string(align) + " bytes of its dtype" +
               (cb->offset() == UINT64_MAX ? std::string() : " (offset " + std::to_string(cb->offset()) + ")"));
  // Kernels read bools through bool pointers: any byte but 0 or 1 is undefined behaviour.
  if (out.dtype == vk::VkDataType::BOOL) {
    const std::string bad_byte = non_bool_byte(src.data(), static_cast<size_t>(need));
    if (!bad_byte.empty()) return bad(where + ": bool constant " + bad_byte);
  }
  out.constant = src.first(static_cast<size_t>(need));
  return {};
}

Status read_value(const vk::VkGraph& graph, const VkBlob& blob, const NamedDataMap* named_data, size_t id,
                  ValueDecl& v) {
  const size_t n = graph.values()->size();
  const vk::VkValue* vv = graph.values()->Get(static_cast<flatbuffers::uoffset_t>(id));
  if (vv == nullptr) return bad("value " + std::to_string(id) + " is null");
  // The verifier accepts a type tag whose table is left out; every case below reads it.
  if (vv->value_type() != vk::GraphTypes::Null && vv->value() == nullptr)
    return bad("value " + std::to_string(id) + " has a type but no table");
  auto scalar = [&v](ValueKind kind, int64_t i) {
    v.kind = kind;
    v.i = i;
  };
  switch (vv->value_type()) {
    case vk::GraphTypes::Null: v.kind = ValueKind::kNone; break;
    case vk::GraphTypes::Int: scalar(ValueKind::kInt, vv->value_as_Int()->int_val()); break;
    case vk::GraphTypes::Bool: scalar(ValueKind::kBool, vv->value_as_Bool()->bool_val() ? 1 : 0); break;
    case vk::GraphTypes::SymInt: scalar(ValueKind::kSymInt, vv->value_as_SymInt()->value()); break;
    case vk::GraphTypes::Double:
      v.kind = ValueKind::kDouble;
      v.d = vv->value_as_Double()->double_val();
      break;
    case vk::GraphTypes::String:
      v.kind = ValueKind::kString;
      if (vv->value_as_String()->string_val()) v.s = vv->value_as_String()->string_val()->str();
      break;
    case vk::GraphTypes::IntList:
      v.kind = ValueKind::kIntList;
      if (auto* items = vv->value_as_IntList()->items()) copy_elements(*items, v.ints);
      break;
    case vk::GraphTypes::DoubleList:
      v.kind = ValueKind::kDoubleList;
      if (auto* items = vv->value_as_DoubleList()->items()) copy_elements(*items, v.doubles);
      break;
    case vk::GraphTypes::BoolList:
      v.kind = ValueKind::kBoolList;
      if (auto* items = vv->value_as_BoolList()->items())
        for (auto b : *items) v.ints.push_back(b ? 1 : 0);
      break;
    case vk::GraphTypes::ValueList:
      v.kind = ValueKind::kValueList;
      if (auto* items = vv->value_as_ValueList()->items())
        for (int32_t item : *items) {
          if (item < 0 || static_cast<size_t>(item) >= n)
            return bad("value " + std::to_string(id) + ": list item " + std::to_string(item) + " out of range");
          v.items.push_back(item);
        }
      break;
    case vk::GraphTypes::VkTensor:
      v.kind = ValueKind::kTensor;
      return read_tensor(graph, blob, named_data, id, vv->value_as_VkTensor(), v.tensor);
    default: return bad("value " + std::to_string(id) + " has an unknown type");
  }
  return {};
}

}  // namespace

Result<Plan> read_plan(const VkBlob& blob, const NamedDataMap* named_data) {
  const vk::VkGraph& graph = *blob.graph;
  if (graph.values() == nullptr) return bad("no values");
  Plan plan;
  const size_t n = graph.values()->size();
  plan.values.resize(n);
  for (size_t id = 0; id < n; ++id) WICK_RETURN_IF_ERROR(read_value(graph, blob, named_data, id, plan.values[id]));

  auto ids = [&](const flatbuffers::Vector<uint32_t>* list, std::vector<int32_t>& out, const char* what) -> Status {
    if (list)
      for (uint32_t id : *list) {
        if (id >= n) return bad(std::string(what) + " id " + std::to_string(id) + " out of range");
        out.push_back(static_cast<int32_t>(id));
      }
    return {};
  };
  WICK_RETURN_IF_ERROR(ids(graph.input_ids(), plan.input_ids, "input"));
  WICK_RETURN_IF_ERROR(ids(graph.output_ids(), plan.output_ids, "output"));
  for (int32_t id : plan.output_ids) {
    const ValueKind k = plan.values[static_cast<size_t>(id)].kind;
    if (k != ValueKind::kTensor && k != ValueKind::kSymInt) return bad("output " + std::to_string(id) + " is not a tensor");
  }

  if (const auto* chain = graph.chain()) {
    plan.ops.reserve(chain->size());
    for (flatbuffers::uoffset_t i = 0; i < chain->size(); ++i) {
      const vk::OperatorCall* call = chain->Get(i);
      OpCall op;
      op.index = i;
      op.name = call && call->name() ? call->name()->str() : "<unnamed>";
      if (call && call->args())
        for (int32_t a : *call->args()) {
          if (a < 0 || static_cast<size_t>(a) >= n)
            return Status(ErrorCode::kInvalidProgram, "VK00 op " + std::to_string(i) + " (" + op.name +
                                                          "): argument " + std::to_string(a) + " out of range");
          op.args.push_back(a);
        }
      plan.ops.push_back(std::move(op));
    }
  }
  return plan;
}

Result<Plan> read_plan(std::span<const uint8_t> blob, const NamedDataMap* named_data) {
  WICK_ASSIGN_OR_RETURN(VkBlob parsed, parse_vk_blob(blob));
  return read_plan(parsed, named_data);
}

Status check_ops_implemented(const Plan& plan, const char* delegate, bool (*known)(std::string_view name)) {
  std::string missing;
  for (const OpCall& call : plan.ops)
    if (!known(call.name) && missing.find("'" + call.name + "'") == std::string::npos)
      missing += (missing.empty() ? "'" : ", '") + call.name + "'";
  if (missing.empty()) return {};
  return Status(ErrorCode::kOperatorMissing, std::string(delegate) + " delegate: operator(s) not implemented: " + missing);
}

}  // namespace wick::vkgraph
