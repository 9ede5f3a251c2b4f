#include "vkcpu/cpu_graph.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>

#include "kernels/cpu/kernel_util.h"
#include "vkcpu/op_table.h"

namespace wick::vkcpu {

using vkgraph::ValueKind;

ScalarType cpu_dtype(vk::VkDataType t) {
  switch (t) {
    case vk::VkDataType::BOOL: return ScalarType::kBool;
    case vk::VkDataType::UINT8: return ScalarType::kByte;
    case vk::VkDataType::INT8: return ScalarType::kChar;
    case vk::VkDataType::INT32: case vk::VkDataType::INT64: return ScalarType::kLong;
    default: return ScalarType::kFloat;
  }
}

namespace {

ScalarType stored_dtype(vk::VkDataType t) {
  switch (t) {
    case vk::VkDataType::FLOAT16: return ScalarType::kHalf;
    case vk::VkDataType::FLOAT64: return ScalarType::kDouble;
    case vk::VkDataType::INT32: return ScalarType::kInt;
    case vk::VkDataType::INT64: return ScalarType::kLong;
    default: return cpu_dtype(t);
  }
}

Tensor empty_tensor(ScalarType dtype, const std::vector<int64_t>& dims) {
  Tensor t;
  t.dtype = dtype;
  t.sizes = dims;
  t.max_sizes = dims;
  t.dim_order.resize(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) t.dim_order[i] = static_cast<uint8_t>(i);
  return t;
}

void attach(Tensor& t, std::shared_ptr<AlignedBuffer> buffer) {
  t.data = buffer->data();
  t.capacity = buffer->size();
  t.owned = std::move(buffer);
}

size_t bytes_for(ScalarType dtype, const std::vector<int64_t>& dims) {
  return std::max<size_t>(static_cast<size_t>(shape_numel(dims)) * element_size(dtype), 8);
}

}  // namespace

Result<std::unique_ptr<CpuGraph>> CpuGraph::build(const vkgraph::Plan& plan, uint64_t max_bytes) {
  std::unique_ptr<CpuGraph> g(new CpuGraph());
  WICK_RETURN_IF_ERROR(g->create_values(plan, max_bytes));
  WICK_RETURN_IF_ERROR(g->build_ops(plan));
  return g;
}

namespace {

// What one CPU graph may allocate (its tensors at their upper bounds, with shared memory
// counted once, and constants converted to another dtype) is bounded by the method's
// MemoryLimits::max_planned_bytes: sizes in a file are untrusted, so a hostile graph gets
// an error instead of an allocation failure.
Status check_graph_bytes(const vkgraph::Plan& plan, uint64_t max_bytes) {
  uint64_t total = 0;
  std::map<int, uint64_t> shared;
  for (const vkgraph::ValueDecl& d : plan.values) {
    if (d.kind != ValueKind::kTensor) continue;
    const vkgraph::TensorDecl& td = d.tensor;
    const uint64_t bytes = bytes_for(cpu_dtype(td.dtype), td.dims);
    if (td.is_constant()) {
      if (stored_dtype(td.dtype) != cpu_dtype(td.dtype)) total += bytes;
    } else if (td.mem_obj_id >= 0) {
      shared[td.mem_obj_id] = std::max(shared[td.mem_obj_id], bytes);
    } else {
      total += bytes;
    }
    if (total > max_bytes) break;
  }
  for (auto& [id, bytes] : shared) total += bytes;
  if (total > max_bytes)
    return Status(ErrorCode::kOutOfResources, "CPU delegate: the graph's tensors need " + std::to_string(total) +
                                                  " bytes, over the limit of " + std::to_string(max_bytes) +
                                                  " (MemoryLimits::max_planned_bytes)");
  return {};
}

}  // namespace

Status CpuGraph::create_values(const vkgraph::Plan& plan, uint64_t max_bytes) {
  WICK_RETURN_IF_ERROR(check_graph_bytes(plan, max_bytes));
  plan_values_ = plan.values;
  const size_t n = plan.values.size();
  values_.values.resize(n);
  std::map<int, size_t> shared_bytes;  // mem_obj_id -> max bytes
  for (size_t id = 0; id < n; ++id) {
    const vkgraph::ValueDecl& d = plan.values[id];
    Value& v = values_.values[id];
    switch (d.kind) {
      case ValueKind::kNone: break;
      case ValueKind::kInt: case ValueKind::kSymInt: v = Value::make_int(d.i); break;
      case ValueKind::kDouble:
        // The exporter dedups scalars by Python equality, so an int argument may arrive as
        // the Double it equals (vk00_delegate.md §3.1). Kernels read an Int as a double
        // wherever they take one, so integral Doubles become Ints.
        if (std::trunc(d.d) == d.d && std::fabs(d.d) < 9007199254740992.0) v = Value::make_int(static_cast<int64_t>(d.d));
        else v = Value::make_double(d.d);
        break;
      case ValueKind::kBool: v = Value::make_bool(d.i != 0); break;
      case ValueKind::kString: v.tag = ValueTag::kString; v.s = d.s; break;
      case ValueKind::kDoubleList: v.tag = ValueTag::kListDouble; v.doubles = d.doubles; break;
      case ValueKind::kBoolList:
        v.tag = ValueTag::kListBool;
        for (int64_t b : d.ints) v.bools.push_back(b ? 1 : 0);
        break;
      case ValueKind::kIntList: break;    // below: its items become values
      case ValueKind::kValueList: break;  // below: its kind depends on its items
      case ValueKind::kTensor: {
        const vkgraph::TensorDecl& td = d.tensor;
        Tensor t = empty_tensor(cpu_dtype(td.dtype), td.dims);
        if (td.is_constant()) {
          const ScalarType stored = stored_dtype(td.dtype);
          if (stored == t.dtype) {
            // Read-only alias of the program's data; make_writable() copies it if needed.
            t.data = const_cast<uint8_t*>(td.constant.data());
            t.capacity = td.constant.size();
          } else {
            WICK_ASSIGN_OR_RETURN(auto buf, AlignedBuffer::allocate_shared(bytes_for(t.dtype, td.dims),
                                                                           "constant value " + std::to_string(id)));
            cpu::convert_elements(td.constant.data(), stored, buf->data(), t.dtype, td.numel());
            attach(t, std::move(buf));
          }
        } else {
          t.dynamism = ShapeDynamism::kDynamicBound;
          if (td.mem_obj_id >= 0) {
            size_t& b = shared_bytes[td.mem_obj_id];
            b = std::max(b, bytes_for(t.dtype, td.dims));
          } else {
            WICK_ASSIGN_OR_RETURN(auto buf, AlignedBuffer::allocate_shared(bytes_for(t.dtype, td.dims),
                                                                           "value " + std::to_string(id)));
            attach(t, std::move(buf));
          }
        }
        v = Value::make_tensor(std::move(t));
        break;
      }
    }
  }
  std::map<int, std::shared_ptr<AlignedBuffer>> shared;
  for (auto& [mem_id, bytes] : shared_bytes) {
    WICK_ASSIGN_OR_RETURN(shared[mem_id],
                          AlignedBuffer::allocate_shared(bytes, "shared memory object " + std::to_string(mem_id)));
  }
  for (size_t id = 0; id < n; ++id) {
    const vkgraph::ValueDecl& d = plan.values[id];
    if (d.kind == ValueKind::kTensor && !d.tensor.is_constant() && d.tensor.mem_obj_id >= 0)
      attach(values_.values[id].tensor, shared[d.tensor.mem_obj_id]);
  }
  // Lists: literal ints get values of their own; a ValueList of tensors (and Nones) is a
  // tensor list, one of ints and SymInts an int list.
  for (size_t id = 0; id < n; ++id) {
    const vkgraph::ValueDecl& d = plan.values[id];
    if (d.kind == ValueKind::kIntList) {
      std::vector<int32_t> items;
      for (int64_t x : d.ints) {
        items.push_back(static_cast<int32_t>(values_.values.size()));
        values_.values.push_back(Value::make_int(x));
      }
      values_.values[id].tag = ValueTag::kListInt;
      values_.values[id].items = std::move(items);
    } else if (d.kind == ValueKind::kValueList) {
      bool tensors = false, nones = false, scalars = false;
      for (int32_t item : d.items) {
        const ValueKind k = plan.values[static_cast<size_t>(item)].kind;
        tensors |= k == ValueKind::kTensor;
        nones |= k == ValueKind::kNone;
        scalars |= k == ValueKind::kInt || k == ValueKind::kSymInt || k == ValueKind::kBool || k == ValueKind::kDouble;
      }
      if (scalars && (tensors || nones))
        return Status(ErrorCode::kInvalidProgram, "VK00 graph: value " + std::to_string(id) + " mixes tensors and ints");
      Value& v = values_.values[id];
      v.tag = tensors ? (nones ? ValueTag::kListOptionalTensor : ValueTag::kListTensor) : ValueTag::kListInt;
      v.items = d.items;
    }
  }
  input_ids_ = plan.input_ids;
  output_ids_ = plan.output_ids;
  return {};
}

Status CpuGraph::build_ops(const vkgraph::Plan& plan) {
  WICK_RETURN_IF_ERROR(vkgraph::check_ops_implemented(
      plan, "CPU", [](std::string_view name) { return find_op(name) != nullptr; }));
  for (const vkgraph::OpCall& call : plan.ops) {
    Status s = find_op(call.name)->build(*this, call, *find_op(call.name));
    if (!s.ok()) return s.with_context("VK00 op " + std::to_string(call.index) + " (" + call.name + ")");
  }
  return {};
}

// ---- accessors ----

Result<Tensor*> CpuGraph::tensor(int32_t id, const char* op) {
  if (id < 0 || static_cast<size_t>(id) >= values_.size() || !values_.values[static_cast<size_t>(id)].is_tensor())
    return Status(ErrorCode::kInvalidProgram, std::string(op) + ": value " + std::to_string(id) + " is not a tensor");
  return &values_.values[static_cast<size_t>(id)].tensor;
}

Result<std::vector<int32_t>> CpuGraph::list_items(int32_t id, const char* op) {
  if (id < 0 || static_cast<size_t>(id) >= plan_values_.size() || decl(id).kind != ValueKind::kValueList)
    return Status(ErrorCode::kInvalidProgram, std::string(op) + ": value " + std::to_string(id) + " is not a value list");
  return decl(id).items;
}

bool CpuGraph::is_none(int32_t id) const {
  return id >= 0 && static_cast<size_t>(id) < values_.size() && values_.values[static_cast<size_t>(id)].is_none();
}

Status CpuGraph::make_writable(int32_t id, const char* op) {
  WICK_ASSIGN_OR_RETURN(Tensor * t, tensor(id, op));
  if (t->owned) return {};
  WICK_ASSIGN_OR_RETURN(auto buf, AlignedBuffer::allocate_shared(std::max<size_t>(t->capacity, 8),
                                                                 std::string(op) + ": a writable copy of value " +
                                                                     std::to_string(id)));
  if (t->data && t->capacity) std::memcpy(buf->data(), t->data, t->capacity);
  attach(*t, std::move(buf));
  return {};
}

Status CpuGraph::unshare(int32_t id) {
  Tensor& t = values_.values[static_cast<size_t>(id)].tensor;
  WICK_ASSIGN_OR_RETURN(auto buf, AlignedBuffer::allocate_shared(std::max<size_t>(t.capacity, 8),
                                                                 "storage of its own for value " + std::to_string(id)));
  attach(t, std::move(buf));
  return {};
}

bool CpuGraph::same_storage(int32_t a, int32_t b) const {
  const Value& va = values_.values[static_cast<size_t>(a)];
  const Value& vb = values_.values[static_cast<size_t>(b)];
  return va.is_tensor() && vb.is_tensor() && va.tensor.data != nullptr && va.tensor.data == vb.tensor.data;
}

// ---- execute ----

Status CpuGraph::set_input(const Value& host, int32_t id, const std::string& where) {
  Value& v = values_.values[static_cast<size_t>(id)];
  if (!v.is_tensor()) {
    if (!host.is_scalar()) return Status(ErrorCode::kInvalidArgument, where + ": expected an int");
    v = Value::make_int(host.scalar_as_int());
    return {};
  }
  if (!host.is_tensor()) return Status(ErrorCode::kInvalidArgument, where + ": expected a tensor");
  const Tensor& h = host.tensor;
  Tensor& t = v.tensor;
  if (h.dim() != t.dim())
    return Status(ErrorCode::kInvalidArgument, where + ": rank " + std::to_string(h.dim()) + " " + h.shape_string() +
                                                   ", the graph expects " + shape_to_string(t.max_sizes));
  for (int d = 0; d < h.dim(); ++d)
    if (h.sizes[d] > t.max_sizes[d])
      return Status(ErrorCode::kInvalidArgument, where + ": shape " + h.shape_string() + " exceeds the graph's bound " +
                                                     shape_to_string(t.max_sizes));
  if (!cpu::is_kernel_dtype(h.dtype))
    return Status(ErrorCode::kNotSupported, where + ": input dtype " + std::string(dtype_name(h.dtype)));
  if (h.data == nullptr && h.numel() > 0) return Status(ErrorCode::kInvalidArgument, where + ": no data");
  WICK_RETURN_IF_ERROR(t.resize(h.sizes).with_context(where));
  cpu::convert_elements(h.data, h.dtype, t.data, t.dtype, h.numel());
  return {};
}

Status CpuGraph::get_output(int32_t id, Value& host, const std::string& where) {
  const Value& v = values_.values[static_cast<size_t>(id)];
  if (!v.is_tensor()) {
    host = Value::make_int(v.scalar_as_int());
    return {};
  }
  if (!host.is_tensor()) return Status(ErrorCode::kInvalidProgram, where + ": host value is not a tensor");
  const Tensor& t = v.tensor;
  Tensor& h = host.tensor;
  if (h.dim() != t.dim())
    return Status(ErrorCode::kInvalidProgram, where + ": host tensor rank " + std::to_string(h.dim()) +
                                                  " differs from the graph's " + std::to_string(t.dim()));
  WICK_RETURN_IF_ERROR(h.resize(t.sizes).with_context(where));
  if (h.numel() == 0) return {};
  if (h.data == nullptr) return Status(ErrorCode::kInvalidProgram, where + ": output tensor has no memory");
  if (!cpu::is_kernel_dtype(h.dtype))
    return Status(ErrorCode::kNotSupported, where + ": output dtype " + std::string(dtype_name(h.dtype)));
  cpu::convert_elements(t.data, t.dtype, h.data, h.dtype, t.numel());
  return {};
}

Status CpuGraph::execute(ValueTable& host, std::span<const int32_t> args) {
  if (args.size() != input_ids_.size() + output_ids_.size())
    return Status(ErrorCode::kInvalidProgram, "CPU delegate: called with " + std::to_string(args.size()) +
                                                  " arguments, the graph has " + std::to_string(input_ids_.size()) +
                                                  " inputs and " + std::to_string(output_ids_.size()) + " outputs");
  for (size_t i = 0; i < input_ids_.size(); ++i) {
    WICK_ASSIGN_OR_RETURN(Value * hv, host.at(args[i]));
    WICK_RETURN_IF_ERROR(set_input(*hv, input_ids_[i], "CPU delegate input " + std::to_string(i)));
  }
  if (profile_on_) profile_.clear();
  for (Step& step : steps_) {
    const auto t0 = profile_on_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    Status s = step.kernel ? step.kernel(values_, step.args) : step.run(*this);
    if (!s.ok()) return s.with_context("CPU delegate: " + step.op);
    if (profile_on_)
      profile_.push_back({step.op, static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                             std::chrono::steady_clock::now() - t0)
                                                             .count())});
  }
  for (size_t j = 0; j < output_ids_.size(); ++j) {
    WICK_ASSIGN_OR_RETURN(Value * hv, host.at(args[input_ids_.size() + j]));
    WICK_RETURN_IF_ERROR(get_output(output_ids_[j], *hv, "CPU delegate output " + std::to_string(j)));
  }
  return {};
}

}  // namespace wick::vkcpu
