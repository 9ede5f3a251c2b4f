// Program loading and method construction: turns the verified flatbuffer into a value
// table, planned arenas and a resolved instruction list. Execution lives in method.cpp.
#include "runtime/program.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/utf8.h"
#include "format/pte_file.h"
#include "runtime/backend.h"
#include "runtime/kernel_registry.h"
#include "runtime/method_impl.h"

namespace wick {

namespace {

constexpr int kMaxRank = 16;
// Refuse single tensors larger than this: hostile files must not make us allocate, and
// byte counts must fit size_t (32 bits in WebAssembly) without wrapping.
constexpr uint64_t kMaxTensorBytes = std::min<uint64_t>(uint64_t{1} << 40, SIZE_MAX / 2);

Status bad(const std::string& where, const std::string& what) {
  return Status(ErrorCode::kInvalidProgram, where + ": " + what);
}

// A union member the file's type tag promises (`what` names it); a hostile file may leave
// the table out.
template <class T>
Result<const T*> present(const T* table, const std::string& where, const std::string& what) {
  if (!table) return bad(where, what + " table missing");
  return table;
}

// The plan named `name`, or else the one whose name, with invalid UTF-8 escaped as JSON
// answers show it (core/utf8.h), is `name`: a name read from `wick inspect --json` or JS
// getMethods() can be passed back.
const fb::ExecutionPlan* find_plan(const fb::Program& program, std::string_view name) {
  for (const fb::ExecutionPlan* plan : *program.execution_plan())
    if (plan && plan->name() && plan->name()->string_view() == name) return plan;
  for (const fb::ExecutionPlan* plan : *program.execution_plan())
    if (plan && plan->name() && escape_invalid_utf8(plan->name()->string_view()) == name) return plan;
  return nullptr;
}

std::string operator_name(const fb::Operator* op) {
  if (op == nullptr || op->name() == nullptr) return "<unnamed>";
  std::string name = op->name()->str();
  if (op->overload() && op->overload()->size() > 0) name += "." + op->overload()->str();
  return name;
}

// Shape, dtype and dynamism of a serialized tensor, validated.
Result<TensorMeta> parse_tensor_meta(const fb::Tensor* t, const std::string& where) {
  if (t == nullptr) return bad(where, "tensor table is missing");
  TensorMeta m;
  int raw = static_cast<int>(t->scalar_type());
  if (!is_valid_scalar_type(raw)) return bad(where, "invalid scalar type " + std::to_string(raw));
  m.dtype = static_cast<ScalarType>(raw);
  if (t->storage_offset() != 0) return bad(where, "storage_offset must be 0");
  size_t rank = t->sizes() ? t->sizes()->size() : 0;
  if (rank > kMaxRank) return bad(where, "rank " + std::to_string(rank) + " exceeds " + std::to_string(kMaxRank));
  size_t order_rank = t->dim_order() ? t->dim_order()->size() : 0;
  if (order_rank != rank)
    return bad(where, "dim_order has " + std::to_string(order_rank) + " entries for rank " + std::to_string(rank));
  // The product of the sizes, counting a 0 as 1: kernels multiply the other sizes of an
  // empty tensor too (outer and inner extents), so those must stay plausible as well.
  uint64_t numel = 1;
  uint32_t seen = 0;
  for (size_t i = 0; i < rank; ++i) {
    int32_t s = t->sizes()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (s < 0) return bad(where, "negative size " + std::to_string(s));
    m.sizes.push_back(s);
    const uint64_t f = std::max<uint64_t>(static_cast<uint64_t>(s), 1);
    numel = numel > kMaxTensorBytes / f ? kMaxTensorBytes + 1 : numel * f;
    uint8_t d = t->dim_order()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (d >= rank || (seen >> d) & 1u) return bad(where, "dim_order is not a permutation");
    seen |= 1u << d;
    m.dim_order.push_back(d);
  }
  if (numel * element_size(m.dtype) > kMaxTensorBytes) return bad(where, "tensor is implausibly large");
  int dyn = static_cast<int>(t->shape_dynamism());
  if (dyn == 2) return Status(ErrorCode::kNotSupported, where + ": DYNAMIC_UNBOUND tensors are not supported");
  if (dyn != 0 && dyn != 1) return bad(where, "invalid shape dynamism " + std::to_string(dyn));
  m.dynamism = static_cast<ShapeDynamism>(dyn);
  m.memory_planned = t->allocation_info() != nullptr || t->data_buffer_idx() != 0;
  return m;
}

Result<ValueMeta> value_meta(const fb::ExecutionPlan& plan, int32_t index, const std::string& where) {
  const auto* values = plan.values();
  if (values == nullptr || index < 0 || static_cast<uint32_t>(index) >= values->size())
    return bad(where, "value index " + std::to_string(index) + " out of range");
  const fb::EValue* ev = values->Get(static_cast<flatbuffers::uoffset_t>(index));
  if (ev == nullptr) return bad(where, "value " + std::to_string(index) + " is null");
  ValueMeta vm;
  switch (ev->val_type()) {
    case fb::KernelTypes::Tensor: {
      vm.tag = ValueTag::kTensor;
      WICK_ASSIGN_OR_RETURN(vm.tensor, parse_tensor_meta(ev->val_as_Tensor(), where));
      break;
    }
    case fb::KernelTypes::Int: vm.tag = ValueTag::kInt; break;
    case fb::KernelTypes::Double: vm.tag = ValueTag::kDouble; break;
    case fb::KernelTypes::Bool: vm.tag = ValueTag::kBool; break;
    case fb::KernelTypes::String: vm.tag = ValueTag::kString; break;
    case fb::KernelTypes::Null: vm.tag = ValueTag::kNone; break;
    case fb::KernelTypes::IntList: vm.tag = ValueTag::kListInt; break;
    case fb::KernelTypes::DoubleList: vm.tag = ValueTag::kListDouble; break;
    case fb::KernelTypes::BoolList: vm.tag = ValueTag::kListBool; break;
    case fb::KernelTypes::TensorList: vm.tag = ValueTag::kListTensor; break;
    case fb::KernelTypes::OptionalTensorList: vm.tag = ValueTag::kListOptionalTensor; break;
    default: return bad(where, "value " + std::to_string(index) + " has an unknown type");
  }
  return vm;
}

}  // namespace

struct Program::Impl {
  std::vector<std::shared_ptr<PtdFile>> data_files;
  // Shared with methods so they stay valid if the Program object goes away first.
  std::shared_ptr<MergedNamedData> named_data;
  Status rebuild_named_data(const std::shared_ptr<PteFile>& file) {
    auto merged = std::make_shared<MergedNamedData>();
    WICK_RETURN_IF_ERROR(merged->add(file.get()));
    for (auto& f : data_files) WICK_RETURN_IF_ERROR(merged->add(f.get()));
    named_data = std::move(merged);
    return {};
  }
};

Program::Program() : impl_(std::make_unique<Impl>()) {}
Program::~Program() = default;

Result<std::shared_ptr<Program>> Program::load_file(const std::string& path) {
  WICK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, read_file_bytes(path));
  return load_bytes(bytes, path);
}

Result<std::shared_ptr<Program>> Program::load_bytes(std::span<const uint8_t> bytes, std::string name) {
  WICK_ASSIGN_OR_RETURN(std::shared_ptr<PteFile> file, PteFile::parse(bytes, std::move(name)));
  auto program = std::shared_ptr<Program>(new Program());
  program->file_ = std::move(file);
  // Check every method's required tables up front, so inspect/meta never meet nulls.
  for (const fb::ExecutionPlan* plan : *program->file_->program().execution_plan()) {
    if (plan == nullptr) return bad(program->name(), "null execution plan");
    std::string where = program->name() + ": method '" + (plan->name() ? plan->name()->str() : "?") + "'";
    if (!plan->name()) return bad(program->name(), "an execution plan has no name");
    if (!plan->values() || !plan->inputs() || !plan->outputs() || !plan->non_const_buffer_sizes())
      return bad(where, "missing values, inputs, outputs or non_const_buffer_sizes");
    if (!plan->chains() || plan->chains()->size() == 0) return bad(where, "has no chains");
  }
  WICK_RETURN_IF_ERROR(program->impl_->rebuild_named_data(program->file_));
  return program;
}

Status Program::add_data_file(const std::string& path) {
  WICK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, read_file_bytes(path));
  return add_data_bytes(bytes, path);
}

Status Program::add_data_bytes(std::span<const uint8_t> bytes, std::string name) {
  WICK_ASSIGN_OR_RETURN(std::shared_ptr<PtdFile> ptd, PtdFile::parse(bytes, std::move(name)));
  impl_->data_files.push_back(std::move(ptd));
  Status s = impl_->rebuild_named_data(file_);
  if (!s.ok()) impl_->data_files.pop_back();
  return s;
}

const std::string& Program::name() const { return file_->name(); }

std::vector<std::string> Program::method_names() const {
  std::vector<std::string> names;
  for (const fb::ExecutionPlan* plan : *file_->program().execution_plan()) names.push_back(plan->name()->str());
  return names;
}

Result<MethodMeta> Program::method_meta(std::string_view method) const {
  const fb::ExecutionPlan* plan = find_plan(file_->program(), method);
  if (plan == nullptr) return Status(ErrorCode::kNotFound, name() + ": no method named '" + std::string(method) + "'");
  std::string where = name() + ": method '" + std::string(method) + "'";
  MethodMeta meta;
  meta.name = std::string(method);
  meta.num_values = plan->values()->size();
  for (int32_t idx : *plan->inputs()) {
    WICK_ASSIGN_OR_RETURN(ValueMeta vm, value_meta(*plan, idx, where + " input"));
    meta.inputs.push_back(std::move(vm));
  }
  for (int32_t idx : *plan->outputs()) {
    WICK_ASSIGN_OR_RETURN(ValueMeta vm, value_meta(*plan, idx, where + " output"));
    meta.outputs.push_back(std::move(vm));
  }
  if (plan->operators())
    for (const fb::Operator* op : *plan->operators()) meta.operators.push_back(operator_name(op));
  if (plan->delegates()) {
    for (const fb::BackendDelegate* d : *plan->delegates()) {
      if (d == nullptr) return bad(where, "null delegate entry");
      DelegateMeta dm;
      dm.backend_id = d->id() ? d->id()->str() : "";
      dm.inline_blob = d->processed() && d->processed()->location() == fb::DataLocation::INLINE;
      auto blob = file_->delegate_blob(*d);
      if (!blob.ok()) return blob.status().with_context(where);
      dm.blob_bytes = blob->size();
      if (d->compile_specs())
        for (const fb::CompileSpec* cs : *d->compile_specs())
          if (cs && cs->key()) dm.compile_spec_keys.push_back(cs->key()->str());
      meta.delegates.push_back(std::move(dm));
    }
  }
  const auto* sizes = plan->non_const_buffer_sizes();
  for (flatbuffers::uoffset_t i = 1; i < sizes->size(); ++i) {
    if (sizes->Get(i) < 0 || static_cast<uint64_t>(sizes->Get(i)) > kMaxTensorBytes)
      return bad(where, "planned buffer " + std::to_string(i) + " has an invalid size");
    meta.planned_buffer_sizes.push_back(sizes->Get(i));
  }
  for (const fb::Chain* chain : *plan->chains())
    if (chain && chain->instructions()) meta.num_instructions += chain->instructions()->size();
  return meta;
}

// ---- method construction ----

namespace {

struct MethodBuilder {
  const PteFile& file;
  const fb::ExecutionPlan& plan;
  const NamedDataMap& named_data;
  Method::Impl& m;
  std::string where;

  Status build_values();
  Status build_tensor(int32_t index, const fb::Tensor* t, Tensor& out);
  Status place_tensor(const std::string& vwhere, const fb::Tensor* t, Tensor& out, std::string& source, bool& from_file);
  Status build_instructions();
  Status init_delegates(const std::shared_ptr<MergedNamedData>& named);
  Status check_index(int64_t index, const std::string& what) const {
    if (index < 0 || static_cast<size_t>(index) >= m.values.size())
      return bad(where, what + " refers to value " + std::to_string(index) + " of " + std::to_string(m.values.size()));
    return {};
  }
};

Status MethodBuilder::build_tensor(int32_t index, const fb::Tensor* t, Tensor& out) {
  std::string vwhere = where + ": value " + std::to_string(index);
  WICK_ASSIGN_OR_RETURN(TensorMeta meta, parse_tensor_meta(t, vwhere));
  out.dtype = meta.dtype;
  out.sizes = meta.sizes;
  out.max_sizes = meta.sizes;
  out.dim_order = meta.dim_order;
  out.dynamism = meta.dynamism;
  std::string source;
  bool from_file = false;
  WICK_RETURN_IF_ERROR(place_tensor(vwhere, t, out, source, from_file));
  // Kernels read elements through typed pointers, so the data must be aligned for its
  // dtype. Exporters align planned offsets and constants to 16; a corrupt offset may not.
  const size_t align = element_size(out.dtype);
  if (out.data != nullptr && out.nbytes() > 0 && align > 1 && reinterpret_cast<uintptr_t>(out.data) % align != 0)
    return bad(vwhere, source + " is not aligned to the " + std::to_string(align) + " bytes of a " +
                           dtype_name(out.dtype) + " element");
  // A bool whose bytes come from the file (a constant or external data, in place, or a
  // planned tensor's initial state, copied there) must hold 0 or 1 only.
  if (out.dtype == ScalarType::kBool && out.data != nullptr && from_file) {
    const std::string bad_byte = non_bool_byte(out.data, out.nbytes());
    if (!bad_byte.empty()) return bad(vwhere, "bool " + bad_byte);
  }
  return {};
}

// Points `out` at its storage: a planned arena, the file's constants or named data.
// `source` says which, for errors; `from_file` whether its bytes are the file's.
Status MethodBuilder::place_tensor(const std::string& vwhere, const fb::Tensor* t, Tensor& out, std::string& source,
                                   bool& from_file) {
  const size_t nbytes = out.nbytes();

  const fb::AllocationDetails* alloc = t->allocation_info();
  const fb::ExtraTensorInfo* extra = t->extra_tensor_info();
  const bool external = extra != nullptr && extra->location() == fb::TensorDataLocation::EXTERNAL;
  uint8_t* planned = nullptr;
  if (alloc != nullptr) {
    uint32_t mem_id = alloc->memory_id();
    if (mem_id == 0 || mem_id > m.planned.size())
      return bad(vwhere, "memory_id " + std::to_string(mem_id) + " does not name a planned buffer (" +
                             std::to_string(m.planned.size()) + " buffers)");
    uint64_t offset = (static_cast<uint64_t>(alloc->memory_offset_high()) << 32) | alloc->memory_offset_low();
    AlignedBuffer& arena = m.planned[mem_id - 1];
    if (offset > arena.size() || nbytes > arena.size() - offset)
      return bad(vwhere, std::to_string(nbytes) + " bytes at offset " + std::to_string(offset) +
                             " overrun planned buffer " + std::to_string(mem_id) + " (" +
                             std::to_string(arena.size()) + " bytes)");
    planned = arena.data() + offset;
    out.data = planned;
    out.capacity = nbytes;
    source = "offset " + std::to_string(offset) + " in planned buffer " + std::to_string(mem_id);
  }

  if (external) {
    if (extra->fully_qualified_name() == nullptr) return bad(vwhere, "external tensor has no fully_qualified_name");
    std::string key = extra->fully_qualified_name()->str();
    auto data = named_data.get(key);
    if (!data.ok()) return data.status().with_context(vwhere);
    if (data->size() < nbytes)
      return bad(vwhere, "external data '" + key + "' holds " + std::to_string(data->size()) + " bytes, needs " +
                             std::to_string(nbytes));
    if (planned != nullptr) {
      std::memcpy(planned, data->data(), nbytes);
    } else {
      out.data = const_cast<uint8_t*>(data->data());
      out.capacity = nbytes;
      source = "external data '" + key + "'";
    }
    from_file = true;
    return {};
  }
  if (t->data_buffer_idx() > 0) {
    if (planned != nullptr) {  // planned tensor with initial state (e.g. a KV cache)
      auto init = file.mutable_data(t->data_buffer_idx(), nbytes);
      if (!init.ok()) return init.status().with_context(vwhere);
      if (!init->empty()) std::memcpy(planned, init->data(), nbytes);
      from_file = !init->empty();
    } else {
      auto data = file.constant_data(t->data_buffer_idx(), nbytes);
      if (!data.ok()) return data.status().with_context(vwhere);
      // Constants stay in the file image; kernels only read them.
      out.data = const_cast<uint8_t*>(data->data());
      out.capacity = nbytes;
      source = "constant buffer " + std::to_string(t->data_buffer_idx());
      from_file = true;
    }
  }
  return {};
}

Status MethodBuilder::build_values() {
  const auto* values = plan.values();
  m.values.values.resize(values->size());
  for (flatbuffers::uoffset_t i = 0; i < values->size(); ++i) {
    const fb::EValue* ev = values->Get(i);
    std::string vwhere = where + ": value " + std::to_string(i);
    if (ev == nullptr) return bad(vwhere, "is null");
    Value& v = m.values.values[i];
    switch (ev->val_type()) {
      case fb::KernelTypes::Null: v.tag = ValueTag::kNone; break;
      case fb::KernelTypes::Int:
        if (!ev->val_as_Int()) return bad(vwhere, "Int table missing");
        v = Value::make_int(ev->val_as_Int()->int_val());
        break;
      case fb::KernelTypes::Bool:
        if (!ev->val_as_Bool()) return bad(vwhere, "Bool table missing");
        v = Value::make_bool(ev->val_as_Bool()->bool_val());
        break;
      case fb::KernelTypes::Double:
        if (!ev->val_as_Double()) return bad(vwhere, "Double table missing");
        v = Value::make_double(ev->val_as_Double()->double_val());
        break;
      case fb::KernelTypes::String:
        v.tag = ValueTag::kString;
        if (ev->val_as_String() && ev->val_as_String()->string_val()) v.s = ev->val_as_String()->string_val()->str();
        break;
      case fb::KernelTypes::Tensor:
        v.tag = ValueTag::kTensor;
        WICK_RETURN_IF_ERROR(build_tensor(static_cast<int32_t>(i), ev->val_as_Tensor(), v.tensor));
        break;
      case fb::KernelTypes::IntList: {
        WICK_ASSIGN_OR_RETURN(const auto* l, present(ev->val_as_IntList(), vwhere, "IntList"));
        v.tag = ValueTag::kListInt;
        if (l->items())
          for (int64_t item : *l->items()) {
            if (item < 0 || static_cast<uint64_t>(item) >= values->size())
              return bad(vwhere, "IntList item " + std::to_string(item) + " is not a value index");
            v.items.push_back(static_cast<int32_t>(item));
          }
        break;
      }
      case fb::KernelTypes::DoubleList: {
        WICK_ASSIGN_OR_RETURN(const auto* l, present(ev->val_as_DoubleList(), vwhere, "DoubleList"));
        v.tag = ValueTag::kListDouble;
        if (l->items()) v.doubles.assign(l->items()->begin(), l->items()->end());
        break;
      }
      case fb::KernelTypes::BoolList: {
        WICK_ASSIGN_OR_RETURN(const auto* l, present(ev->val_as_BoolList(), vwhere, "BoolList"));
        v.tag = ValueTag::kListBool;
        if (l->items())
          for (auto b : *l->items()) v.bools.push_back(b ? 1 : 0);
        break;
      }
      case fb::KernelTypes::TensorList:
      case fb::KernelTypes::OptionalTensorList: {
        const bool optional = ev->val_type() == fb::KernelTypes::OptionalTensorList;
        const flatbuffers::Vector<int32_t>* items =
            optional ? (ev->val_as_OptionalTensorList() ? ev->val_as_OptionalTensorList()->items() : nullptr)
                     : (ev->val_as_TensorList() ? ev->val_as_TensorList()->items() : nullptr);
        if (optional ? !ev->val_as_OptionalTensorList() : !ev->val_as_TensorList())
          return bad(vwhere, "tensor list table missing");
        v.tag = optional ? ValueTag::kListOptionalTensor : ValueTag::kListTensor;
        if (items)
          for (int32_t item : *items) {
            if (optional && item == -1) {  // the exporter writes -1 for a None entry
              v.items.push_back(-1);
              continue;
            }
            // Referenced tensors come earlier in the table, so their tags are known here.
            if (item < 0 || static_cast<uint32_t>(item) >= i)
              return bad(vwhere, "tensor list item " + std::to_string(item) + " is not an earlier value");
            ValueTag t = m.values.values[static_cast<size_t>(item)].tag;
            if (t != ValueTag::kTensor && !(optional && t == ValueTag::kNone))
              return bad(vwhere, "tensor list item " + std::to_string(item) + " is " + value_tag_name(t));
            v.items.push_back(item);
          }
        break;
      }
      default: return bad(vwhere, "unknown value type");
    }
  }
  for (int32_t idx : *plan.inputs()) {
    WICK_RETURN_IF_ERROR(check_index(idx, "input"));
    m.inputs.push_back(idx);
  }
  for (int32_t idx : *plan.outputs()) {
    WICK_RETURN_IF_ERROR(check_index(idx, "output"));
    m.outputs.push_back(idx);
  }
  return {};
}

Status MethodBuilder::build_instructions() {
  const auto* ops = plan.operators();
  const auto* delegates = plan.delegates();
  for (const fb::Chain* chain : *plan.chains()) {
    if (chain == nullptr) return bad(where, "null chain");
    std::vector<Instruction> instrs;
    const auto* list = chain->instructions();
    const size_t n = list ? list->size() : 0;
    for (size_t pc = 0; pc < n; ++pc) {
      const fb::Instruction* in = list->Get(static_cast<flatbuffers::uoffset_t>(pc));
      std::string iwhere = "instruction " + std::to_string(pc);
      if (in == nullptr) return bad(where, iwhere + " is null");
      Instruction ins;
      auto copy_args = [&](const flatbuffers::Vector<int32_t>* args) -> Status {
        if (args)
          for (int32_t a : *args) {
            WICK_RETURN_IF_ERROR(check_index(a, iwhere));
            ins.args.push_back(a);
          }
        return {};
      };
      switch (in->instr_args_type()) {
        case fb::InstructionArguments::KernelCall: {
          WICK_ASSIGN_OR_RETURN(const auto* kc, present(in->instr_args_as_KernelCall(), where, iwhere + ": KernelCall"));
          if (!ops || kc->op_index() < 0 || static_cast<uint32_t>(kc->op_index()) >= ops->size())
            return bad(where, iwhere + ": operator index " + std::to_string(kc->op_index()) + " out of range");
          ins.kind = Instruction::kKernel;
          ins.name = operator_name(ops->Get(static_cast<flatbuffers::uoffset_t>(kc->op_index())));
          ins.kernel = kernel_registry().find(ins.name);
          if (ins.kernel == nullptr)
            return Status(ErrorCode::kOperatorMissing,
                          where + ": operator '" + ins.name + "' (" + iwhere + ") has no CPU kernel in Wick" +
                              (kernel_registry().size() == 0
                                   ? " (no kernels are registered: call wick::cpu::register_cpu_kernels)"
                                   : ""));
          WICK_RETURN_IF_ERROR(copy_args(kc->args()));
          break;
        }
        case fb::InstructionArguments::DelegateCall: {
          WICK_ASSIGN_OR_RETURN(const auto* dc, present(in->instr_args_as_DelegateCall(), where, iwhere + ": DelegateCall"));
          if (!delegates || dc->delegate_index() < 0 ||
              static_cast<uint32_t>(dc->delegate_index()) >= delegates->size())
            return bad(where, iwhere + ": delegate index " + std::to_string(dc->delegate_index()) + " out of range");
          ins.set(Instruction::kDelegate, "delegate " + std::to_string(dc->delegate_index()), dc->delegate_index());
          WICK_RETURN_IF_ERROR(copy_args(dc->args()));
          break;
        }
        case fb::InstructionArguments::MoveCall: {
          WICK_ASSIGN_OR_RETURN(const auto* mc, present(in->instr_args_as_MoveCall(), where, iwhere + ": MoveCall"));
          WICK_RETURN_IF_ERROR(check_index(mc->move_from(), iwhere));
          WICK_RETURN_IF_ERROR(check_index(mc->move_to(), iwhere));
          ins.set(Instruction::kMove, "move", mc->move_from(), mc->move_to());
          break;
        }
        case fb::InstructionArguments::JumpFalseCall: {
          WICK_ASSIGN_OR_RETURN(const auto* jf, present(in->instr_args_as_JumpFalseCall(), where, iwhere + ": JumpFalseCall"));
          WICK_RETURN_IF_ERROR(check_index(jf->cond_value_index(), iwhere));
          if (jf->destination_instruction() < 0 || static_cast<size_t>(jf->destination_instruction()) > n)
            return bad(where, iwhere + ": jump destination " + std::to_string(jf->destination_instruction()) +
                                  " outside the chain");
          ins.set(Instruction::kJumpFalse, "jump_false", jf->cond_value_index(), jf->destination_instruction());
          break;
        }
        case fb::InstructionArguments::FreeCall: {
          WICK_ASSIGN_OR_RETURN(const auto* fc, present(in->instr_args_as_FreeCall(), where, iwhere + ": FreeCall"));
          WICK_RETURN_IF_ERROR(check_index(fc->value_index(), iwhere));
          if (!m.values.values[static_cast<size_t>(fc->value_index())].is_tensor())
            return bad(where, iwhere + ": FreeCall target is not a tensor");
          ins.set(Instruction::kFree, "free", fc->value_index());
          break;
        }
        default: return bad(where, iwhere + " has an unknown kind");
      }
      instrs.push_back(std::move(ins));
    }
    m.chains.push_back(std::move(instrs));
  }
  return {};
}

Status MethodBuilder::init_delegates(const std::shared_ptr<MergedNamedData>& named) {
  const auto* delegates = plan.delegates();
  if (delegates == nullptr) return {};
  std::vector<DelegateInitContext> contexts;
  std::vector<std::shared_ptr<Backend>> backends;
  std::vector<std::string> ids;
  for (flatbuffers::uoffset_t i = 0; i < delegates->size(); ++i) {
    const fb::BackendDelegate* d = delegates->Get(i);
    std::string dwhere = where + ": delegate " + std::to_string(i);
    if (d == nullptr || d->id() == nullptr) return bad(dwhere, "has no backend id");
    std::string id = d->id()->str();
    std::shared_ptr<Backend> backend = find_backend(id);
    if (backend == nullptr)
      return Status(ErrorCode::kNotFound, dwhere + ": backend '" + id + "' is not available in this build of Wick");
    WICK_ASSIGN_OR_RETURN(auto blob, file.delegate_blob(*d));
    DelegateInitContext ctx;
    ctx.processed = blob;
    ctx.named_data = named.get();
    ctx.method_name = plan.name()->str();
    ctx.delegate_index = static_cast<int>(i);
    ctx.max_graph_bytes = m.limits.max_planned_bytes;
    if (d->compile_specs())
      for (const fb::CompileSpec* cs : *d->compile_specs()) {
        if (cs == nullptr || cs->key() == nullptr) continue;
        CompileSpec spec;
        spec.key = cs->key()->str();
        if (cs->value()) spec.value = std::span<const uint8_t>(cs->value()->data(), cs->value()->size());
        ctx.compile_specs.push_back(std::move(spec));
      }
    contexts.push_back(std::move(ctx));
    backends.push_back(std::move(backend));
    ids.push_back(std::move(id));
  }
  // Runs of delegate calls with host operators between them become one delegate where the
  // backend can take the operators (fuse_runs.cpp); the delegates they replace need no init.
  FusedRuns fused = fuse_delegate_runs(m, contexts, backends);
  for (size_t i = 0; i < contexts.size(); ++i) {
    if (fused.replaced[i]) {
      m.delegates.push_back(nullptr);
      continue;
    }
    auto instance = backends[i]->init(contexts[i]);
    if (!instance.ok())
      return instance.status().with_context(where + ": delegate " + std::to_string(i) + " (" + ids[i] + ")");
    m.delegates.push_back(std::move(instance).value());
  }
  for (auto& instance : fused.instances) m.delegates.push_back(std::move(instance));
  return {};
}

// Planned arenas and inputs against `limits`, before anything is allocated for them.
Status check_memory_limits(const MethodMeta& meta, const MemoryLimits& limits, const std::string& where) {
  auto too_much = [&](const std::string& what, uint64_t bytes, uint64_t limit, const char* field) {
    return Status(ErrorCode::kOutOfResources, where + ": " + what + ": " + std::to_string(bytes) +
                                                  " bytes, over the limit of " + std::to_string(limit) +
                                                  " bytes (MemoryLimits::" + field + ")");
  };
  // Sizes are at most kMaxTensorBytes each (method_meta), but a file may list millions.
  auto add = [](uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; };
  const uint64_t max_planned = std::min<uint64_t>(limits.max_planned_bytes, SIZE_MAX);
  uint64_t planned = 0;
  for (int64_t size : meta.planned_buffer_sizes) planned = add(planned, static_cast<uint64_t>(size));
  if (planned > max_planned)
    return too_much("planned memory (" + std::to_string(meta.planned_buffer_sizes.size()) +
                        (meta.planned_buffer_sizes.size() == 1 ? " buffer)" : " buffers)"),
                    planned, max_planned, "max_planned_bytes");
  // parse_tensor_meta bounded each input, so checked_nbytes has a value.
  uint64_t inputs = 0;
  size_t tensors = 0;
  for (const ValueMeta& in : meta.inputs) {
    if (in.tag != ValueTag::kTensor) continue;
    inputs = add(inputs, *checked_nbytes(in.tensor.dtype, in.tensor.sizes));
    ++tensors;
  }
  if (inputs > limits.max_io_bytes)
    return too_much("the tensor inputs (" + std::to_string(tensors) + ", at their declared sizes)", inputs,
                    limits.max_io_bytes, "max_io_bytes");
  return {};
}

}  // namespace

Result<std::unique_ptr<Method>> Program::load_method(std::string_view method, const MemoryLimits& limits) {
  WICK_ASSIGN_OR_RETURN(MethodMeta meta, method_meta(method));
  const fb::ExecutionPlan* plan = find_plan(file_->program(), method);
  const std::string where = name() + ": method '" + std::string(method) + "'";
  WICK_RETURN_IF_ERROR(check_memory_limits(meta, limits, where));
  std::unique_ptr<Method> result(new Method());
  Method::Impl& m = *result->impl_;
  m.file = file_;
  m.named_data = impl_->named_data;
  m.meta = std::move(meta);
  m.limits = limits;
  for (size_t i = 0; i < m.meta.planned_buffer_sizes.size(); ++i) {
    WICK_ASSIGN_OR_RETURN(AlignedBuffer arena,
                          AlignedBuffer::allocate(static_cast<size_t>(m.meta.planned_buffer_sizes[i]),
                                                  where + ": planned buffer " + std::to_string(i + 1)));
    m.planned.push_back(std::move(arena));
  }
  MethodBuilder builder{*file_, *plan, *impl_->named_data, m, where};
  WICK_RETURN_IF_ERROR(builder.build_values());
  WICK_RETURN_IF_ERROR(builder.build_instructions());
  WICK_RETURN_IF_ERROR(builder.init_delegates(impl_->named_data));
  m.where = builder.where;
  return result;
}

}  // namespace wick
