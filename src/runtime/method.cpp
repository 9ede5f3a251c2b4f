// Method execution: input checks, the instruction loop, output copies.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "runtime/method_impl.h"

namespace wick {

namespace {
// ExecuTorch's guard against runaway jump loops.
constexpr uint64_t kMaxInstructions = 10000000;

// A contiguous tensor shaped and typed as `like` whose bytes are `storage`'s.
Tensor tensor_in(const Tensor& like, const std::shared_ptr<AlignedBuffer>& storage) {
  Tensor t;
  t.dtype = like.dtype;
  t.sizes = like.sizes;
  t.max_sizes = like.sizes;
  t.dim_order.resize(t.sizes.size());
  for (size_t i = 0; i < t.dim_order.size(); ++i) t.dim_order[i] = static_cast<uint8_t>(i);
  t.owned = storage;
  t.data = storage->data();
  t.capacity = storage->size();
  return t;
}

// A copy that owns its storage. A tensor is copied only from storage that holds it: its
// shape is the file's word, but its capacity is what Wick allocated or mapped.
// `reuse` (forward()'s outputs): the storage this output's copy had last time. When only
// `reuse` still holds it (the caller dropped the previous outputs, as a loop of calls
// does) and the size is the same, the copy goes there instead of into fresh memory: a
// fresh large allocation is zero-filled page by page, and for a 16 MiB output (SAM 2.1's
// image encoder) that cost several times the copy itself on every call.
Result<Value> copy_out(const Value& v, const std::string& where, std::shared_ptr<AlignedBuffer>* reuse = nullptr) {
  if (!v.is_tensor()) return v;
  const Tensor& src = v.tensor;
  if (src.numel() > 0 && (src.data == nullptr || src.capacity < src.nbytes()))
    return Status(ErrorCode::kInvalidProgram, where + " " + src.shape_string() + " has no storage (" +
                                                  std::to_string(src.capacity) + " bytes): nothing computed it");
  Tensor t;
  if (reuse && *reuse && reuse->use_count() == 1 && (*reuse)->size() == src.nbytes() && src.nbytes() > 0) {
    t = tensor_in(src, *reuse);
  } else {
    WICK_ASSIGN_OR_RETURN(t, Tensor::allocate(src.dtype, src.sizes));
  }
  if (t.nbytes() > 0) std::memcpy(t.data, src.data, t.nbytes());
  if (reuse) *reuse = t.owned;
  return Value::make_tensor(std::move(t));
}
}  // namespace

Method::Method() : impl_(std::make_unique<Impl>()) {}
Method::~Method() = default;

const MethodMeta& Method::meta() const { return impl_->meta; }

void Method::set_profiling(bool on) {
  impl_->profiling = on;
  impl_->profile.clear();
}

const std::vector<InstructionTime>& Method::last_profile() const { return impl_->profile; }

size_t Method::delegate_calls() const {
  size_t n = 0;
  for (const auto& chain : impl_->chains)
    for (const Instruction& in : chain) n += in.kind == Instruction::kDelegate;
  return n;
}

Status Method::set_input(size_t index, const Value& input) { return set_input_impl(index, input, false); }

Status Method::set_input_impl(size_t index, const Value& input, bool borrow) {
  Impl& m = *impl_;
  const std::string where = m.where + ": input " + std::to_string(index);
  if (index >= m.inputs.size())
    return Status(ErrorCode::kInvalidArgument, where + " does not exist (the method takes " +
                                                   std::to_string(m.inputs.size()) + " inputs)");
  Value& slot = m.values.values[static_cast<size_t>(m.inputs[index])];
  if (slot.is_tensor()) {
    if (!input.is_tensor())
      return Status(ErrorCode::kInvalidArgument, where + " expects a tensor, got " + value_tag_name(input.tag));
    Tensor& dst = slot.tensor;
    const Tensor& src = input.tensor;
    if (src.dtype != dst.dtype)
      return Status(ErrorCode::kInvalidArgument, where + " expects dtype " + dtype_name(dst.dtype) + ", got " +
                                                     dtype_name(src.dtype));
    if (src.dim() != static_cast<int>(dst.max_sizes.size()))
      return Status(ErrorCode::kInvalidArgument, where + " expects rank " + std::to_string(dst.max_sizes.size()) +
                                                     " " + shape_to_string(dst.max_sizes) + ", got " +
                                                     src.shape_string());
    if (src.data == nullptr && src.nbytes() > 0)
      return Status(ErrorCode::kInvalidArgument, where + " has no data");
    if (src.dtype == ScalarType::kBool && src.nbytes() > 0) {
      const std::string bad_byte = non_bool_byte(src.data, src.nbytes());
      if (!bad_byte.empty()) return Status(ErrorCode::kInvalidArgument, where + ": bool " + bad_byte);
    }
    if (dst.data == nullptr || dst.owned != nullptr) {
      // Unplanned input: the method keeps its own copy at the declared size.
      if (dst.dynamism == ShapeDynamism::kStatic && src.sizes != dst.max_sizes)
        return Status(ErrorCode::kInvalidArgument, where + " expects shape " + shape_to_string(dst.max_sizes) +
                                                       ", got " + src.shape_string());
      for (size_t d = 0; d < src.sizes.size(); ++d)
        if (src.sizes[d] > dst.max_sizes[d])
          return Status(ErrorCode::kInvalidArgument, where + " shape " + src.shape_string() +
                                                         " exceeds the bound " + shape_to_string(dst.max_sizes));
      if (dst.owned == nullptr) {
        auto fresh_or = Tensor::allocate(dst.dtype, dst.max_sizes);
        if (!fresh_or.ok()) return fresh_or.status().with_context(where);
        Tensor& fresh = *fresh_or;
        dst.owned = fresh.owned;
        dst.data = fresh.data;
        dst.capacity = fresh.capacity;
      }
    }
    Status s = dst.resize(src.sizes);
    if (!s.ok()) return s.with_context(where);
    if (borrow && dst.owned == nullptr) {
      // forward()'s borrowed input: the caller's bytes, read in place (forward() puts the
      // planned pointer back after the call).
      dst.data = const_cast<void*>(src.data);
      dst.capacity = std::max(src.capacity, src.nbytes());
      return {};
    }
    if (src.nbytes() > 0) std::memcpy(dst.data, src.data, src.nbytes());
    m.input_copy_bytes += src.nbytes();
    return {};
  }
  if (slot.is_scalar()) {
    // ExecuTorch bakes scalar inputs into the program: the caller must pass the traced value.
    if (!input.is_scalar())
      return Status(ErrorCode::kInvalidArgument, where + " expects a scalar, got " + value_tag_name(input.tag));
    double want = slot.scalar_as_double(), got = input.scalar_as_double();
    if (std::abs(want - got) > 1e-4 + 1e-5 * std::abs(want))
      return Status(ErrorCode::kInvalidArgument, where + " must equal the exported value " + std::to_string(want));
    return {};
  }
  if (slot.tag == ValueTag::kString && input.tag == ValueTag::kString && input.s == slot.s) return {};
  return Status(ErrorCode::kNotSupported, where + " is a " + value_tag_name(slot.tag) + " input");
}

Status Method::execute() {
  Impl& m = *impl_;
  m.output_in_storage.clear();  // this execution writes every output where it is planned
  uint64_t executed = 0;
  using Clock = std::chrono::steady_clock;
  m.profile.clear();
  auto timed = [&](size_t chain, size_t pc, const std::string& name, Clock::time_point t0) {
    m.profile.push_back({chain, pc, name, std::chrono::duration<double, std::milli>(Clock::now() - t0).count()});
  };
  for (size_t ci = 0; ci < m.chains.size(); ++ci) {
    const std::vector<Instruction>& chain = m.chains[ci];
    size_t pc = 0;
    while (pc < chain.size()) {
      if (++executed > kMaxInstructions)
        return Status(ErrorCode::kInvalidProgram, m.where + ": more than 10,000,000 instructions executed");
      const Instruction& in = chain[pc];
      auto fail = [&](const Status& s) {
        return s.with_context(m.where + ": instruction " + std::to_string(pc) + " (" + in.name + ")");
      };
      switch (in.kind) {
        case Instruction::kKernel: {
          const Clock::time_point t0 = m.profiling ? Clock::now() : Clock::time_point{};
          Status s = in.kernel(m.values, in.args);
          if (!s.ok()) return fail(s);
          if (m.profiling) timed(ci, pc, in.name, t0);
          ++pc;
          break;
        }
        case Instruction::kDelegate: {
          const Clock::time_point t0 = m.profiling ? Clock::now() : Clock::time_point{};
          Status s = m.delegates[static_cast<size_t>(in.a)]->execute(m.values, in.args);
          if (!s.ok()) return fail(s);
          if (m.profiling) timed(ci, pc, in.name, t0);
          ++pc;
          break;
        }
        case Instruction::kMove:
          m.values.values[static_cast<size_t>(in.b)] = m.values.values[static_cast<size_t>(in.a)];
          ++pc;
          break;
        case Instruction::kJumpFalse: {
          const Value& cond = m.values.values[static_cast<size_t>(in.a)];
          bool truth;
          if (cond.tag == ValueTag::kBool) {
            truth = cond.b;
          } else if (cond.is_tensor() && cond.tensor.dtype == ScalarType::kBool) {
            truth = true;  // a bool tensor is true only if every element is
            const uint8_t* p = cond.tensor.data_as<uint8_t>();
            for (int64_t i = 0; i < cond.tensor.numel(); ++i) truth = truth && p[i] != 0;
          } else {
            return fail(Status(ErrorCode::kInvalidProgram, "condition is neither a Bool nor a bool tensor"));
          }
          pc = truth ? pc + 1 : static_cast<size_t>(in.b);
          break;
        }
        case Instruction::kFree: {
          // Only storage the method allocated itself is released; planned memory is reused.
          Tensor& t = m.values.values[static_cast<size_t>(in.a)].tensor;
          if (t.owned) {
            t.owned.reset();
            t.data = nullptr;
            t.capacity = 0;
          }
          ++pc;
          break;
        }
      }
    }
  }
  return finish_output_topk(m);
}

Result<Value> Method::output(size_t index) const {
  const Impl& m = *impl_;
  if (index >= m.outputs.size())
    return Status(ErrorCode::kInvalidArgument, m.where + ": output " + std::to_string(index) + " does not exist");
  const Value& v = m.values.values[static_cast<size_t>(m.outputs[index])];
  if (index < m.output_in_storage.size() && m.output_in_storage[index]) {
    // The last forward() wrote it into the storage it returned.
    Value at = v;
    at.tensor.data = m.output_storage[index]->data();
    return copy_out(at, m.where + ": output " + std::to_string(index));
  }
  return copy_out(v, m.where + ": output " + std::to_string(index));
}

namespace {

// How each value is named by the method's instructions, for forward()'s in-place plan.
struct ValueUses {
  std::vector<int> instructions;  // kernel and delegate calls naming it (an out-variant kernel names its out twice)
  std::vector<int> args;          // its appearances among those calls' arguments
  std::vector<bool> read_only;    // named at a position its delegate declares read-only
  std::vector<bool> pinned;       // moved, a jump condition, freed, or an output
  std::vector<int> inputs_listed, outputs_listed;
};

ValueUses value_uses(const Method::Impl& m) {
  const size_t nv = m.values.values.size();
  ValueUses u{std::vector<int>(nv, 0), std::vector<int>(nv, 0), std::vector<bool>(nv, false),
              std::vector<bool>(nv, false), std::vector<int>(nv, 0), std::vector<int>(nv, 0)};
  auto valid = [&](int32_t id) { return id >= 0 && static_cast<size_t>(id) < nv; };
  for (const auto& chain : m.chains)
    for (const Instruction& in : chain) {
      if (in.kind != Instruction::kKernel && in.kind != Instruction::kDelegate) {
        if (valid(in.a)) u.pinned[static_cast<size_t>(in.a)] = true;
        if (in.kind == Instruction::kMove && valid(in.b)) u.pinned[static_cast<size_t>(in.b)] = true;
        continue;
      }
      const size_t ro = in.kind == Instruction::kDelegate ? m.delegates[static_cast<size_t>(in.a)]->read_only_inputs(in.args) : 0;
      for (size_t k = 0; k < in.args.size(); ++k) {
        if (!valid(in.args[k])) continue;
        const size_t id = static_cast<size_t>(in.args[k]);
        ++u.args[id];
        if (std::find(in.args.begin(), in.args.begin() + static_cast<std::ptrdiff_t>(k), in.args[k]) ==
            in.args.begin() + static_cast<std::ptrdiff_t>(k))
          ++u.instructions[id];
        if (k < ro) u.read_only[id] = true;
      }
    }
  for (int32_t id : m.inputs)
    if (valid(id)) ++u.inputs_listed[static_cast<size_t>(id)];
  for (int32_t id : m.outputs)
    if (valid(id)) ++u.outputs_listed[static_cast<size_t>(id)];
  return u;
}

// A tensor in memory the method planned (not storage it owns).
bool planned_tensor(const Value& v) { return v.is_tensor() && v.tensor.data && !v.tensor.owned && v.tensor.capacity > 0; }

bool switched_off(const char* name) {
  const char* v = std::getenv(name);
  return v && std::string_view(v) == "0";
}

// Outputs forward() may write straight into the storage it returns (Method::
// last_output_copy_bytes): a planned tensor that exactly one instruction names (its
// producer: nothing else reads it, so nothing depends on where it lives), that is no input,
// listed once, and not moved, freed or tested.
std::vector<Method::Impl::OutputHome> find_output_homes(const Method::Impl& m, const ValueUses& u) {
  std::vector<Method::Impl::OutputHome> homes(m.outputs.size());
  if (switched_off("WICK_OUTPUT_IN_PLACE")) return homes;
  for (size_t i = 0; i < m.outputs.size(); ++i) {
    const size_t id = static_cast<size_t>(m.outputs[i]);
    if (id >= u.args.size() || u.instructions[id] != 1 || u.pinned[id] || u.inputs_listed[id] != 0 ||
        u.outputs_listed[id] != 1)
      continue;
    const Value& v = m.values.values[id];
    if (planned_tensor(v)) homes[i] = {v.tensor.data, v.tensor.capacity};
  }
  return homes;
}

// Inputs forward() may lend to their reader (Method::last_input_copy_bytes): a planned
// tensor that appears once among all instructions' arguments, in a delegate call, at a
// position the delegate declares read-only; listed once, no output, not moved or freed.
std::vector<bool> find_borrowable_inputs(const Method::Impl& m, const ValueUses& u) {
  std::vector<bool> ok(m.inputs.size(), false);
  if (switched_off("WICK_INPUT_IN_PLACE")) return ok;
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    const size_t id = static_cast<size_t>(m.inputs[i]);
    ok[i] = id < u.args.size() && u.args[id] == 1 && u.read_only[id] && !u.pinned[id] && u.inputs_listed[id] == 1 &&
            u.outputs_listed[id] == 0 && planned_tensor(m.values.values[id]);
  }
  return ok;
}

}  // namespace

uint64_t Method::last_output_copy_bytes() const { return impl_->output_copy_bytes; }
uint64_t Method::last_input_copy_bytes() const { return impl_->input_copy_bytes; }

Result<std::vector<Value>> Method::forward(const std::vector<Value>& inputs) {
  Impl& m = *impl_;
  if (inputs.size() != m.inputs.size())
    return Status(ErrorCode::kInvalidArgument, m.where + " takes " + std::to_string(m.inputs.size()) +
                                                   " inputs, got " + std::to_string(inputs.size()));
  // Which inputs may be lent and which outputs written in place: from the instructions,
  // once (the environment's switches are read then too).
  if (!m.io_in_place_found) {
    const ValueUses uses = value_uses(m);
    m.input_borrowable = find_borrowable_inputs(m, uses);
    m.output_home = find_output_homes(m, uses);
    m.io_in_place_found = true;
  }
  // Borrowed inputs: lent to the one delegate that reads them for this call, not copied.
  m.input_copy_bytes = 0;
  std::vector<std::pair<void*, size_t>> planned_inputs(inputs.size(), {nullptr, 0});
  auto give_back_inputs = [&]() {
    for (size_t i = 0; i < planned_inputs.size(); ++i)
      if (planned_inputs[i].first) {
        Tensor& t = m.values.values[static_cast<size_t>(m.inputs[i])].tensor;
        t.data = planned_inputs[i].first;
        t.capacity = planned_inputs[i].second;
      }
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool borrow = m.input_borrowable[i];
    if (borrow) {
      const Tensor& t = m.values.values[static_cast<size_t>(m.inputs[i])].tensor;
      planned_inputs[i] = {t.data, t.capacity};
    }
    Status s = set_input_impl(i, inputs[i], borrow);
    if (!s.ok()) {
      give_back_inputs();
      return s;
    }
  }
  // In-place outputs: each goes straight into the storage this call returns when the caller
  // has let go of the previous call's (it has no other owner), else into its planned memory
  // (and copy_out copies it into fresh storage, as for every other output). A 3 MB output
  // (Whisper base's encoder states) cost a memcpy per call.
  m.output_storage.resize(m.outputs.size());
  std::vector<bool> in_storage(m.outputs.size(), false);
  for (size_t i = 0; i < m.outputs.size(); ++i) {
    const Impl::OutputHome& home = m.output_home[i];
    const std::shared_ptr<AlignedBuffer>& st = m.output_storage[i];
    if (!home.data || !st || st.use_count() != 1 || st->size() < home.capacity) continue;
    m.values.values[static_cast<size_t>(m.outputs[i])].tensor.data = st->data();
    in_storage[i] = true;
  }
  Status run = execute();
  // Back to the planned memory, whatever happened: the lower-level execute() and a caller
  // holding this call's outputs, or its inputs, must never meet.
  for (size_t i = 0; i < m.outputs.size(); ++i)
    if (in_storage[i]) m.values.values[static_cast<size_t>(m.outputs[i])].tensor.data = m.output_home[i].data;
  give_back_inputs();
  WICK_RETURN_IF_ERROR(run);
  m.output_in_storage = in_storage;
  // A file may list one large tensor as many outputs: bound the copies, not just each one.
  uint64_t copied = 0;
  m.output_copy_bytes = 0;
  std::vector<Value> outs;
  for (size_t i = 0; i < m.outputs.size(); ++i) {
    const Value& v = m.values.values[static_cast<size_t>(m.outputs[i])];
    if (v.is_tensor()) copied += v.tensor.capacity;
    if (copied > m.limits.max_io_bytes)
      return Status(ErrorCode::kOutOfResources, m.where + ": copies of outputs 0.." + std::to_string(i) + ": " +
                                                    std::to_string(copied) + " bytes, over the limit of " +
                                                    std::to_string(m.limits.max_io_bytes) +
                                                    " bytes (MemoryLimits::max_io_bytes)");
    std::shared_ptr<AlignedBuffer>& st = m.output_storage[i];
    if (in_storage[i]) {
      outs.push_back(Value::make_tensor(tensor_in(v.tensor, st)));  // written in place: the storage itself
      continue;
    }
    WICK_ASSIGN_OR_RETURN(Value out, copy_out(v, m.where + ": output " + std::to_string(i), &st));
    if (out.is_tensor()) m.output_copy_bytes += out.tensor.nbytes();
    outs.push_back(std::move(out));
  }
  return outs;
}

}  // namespace wick
