// The op-building kit: every operator of the WebGPU delegate is declared once, as a line
// of its family's table (webgpu/op_registry.h's OpEntry):
//
//   {"aten.sub.Tensor", "T T F -> T", build_binary, BinaryOp::kSub},
//
// name, argument schema, builder, and the variant the builder is told (one builder, and
// its kernel, serves every operator that differs only by that code). Before the builder
// runs, the kit checks the call against the schema: the argument count, and each
// argument's kind, with an error that names the op, the argument's index and value id,
// and what was expected. The builder then reads its arguments through OpArgs, which
// cannot fail for what the schema promised.
//
// Schema: one token per argument, space separated, in the call's order; the outputs come
// last, after an optional "->" that only marks where they begin (OpArgs::out()).
//   T  tensor                      I  int (Int, Bool, SymInt or integral Double)
//   F  scalar (int or double)      B  bool (as I)
//   L  int list (IntList, or a ValueList of ints/SymInts, read when asked: SymInts current)
//   V  value list (of tensors or None: output tuples, tensor lists)
//   O  outputs: a tensor, or a value list of tensors and None (OpArgs::outputs())
//   S  string                      *  anything (not read: dtype, memory_format, ...)
//   X? also None                   [X] may be left out (an older exporter's shorter call);
//                                      OpArgs then reads it as None
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "webgpu/graph.h"
#include "webgpu/op_registry.h"

namespace wick::webgpu {

// "<op>: <what>" with `code`: the form of every error an op builder returns.
Status op_error(ErrorCode code, const char* op, const std::string& what);

class OpArgs {
 public:
  // Checks `ids` against `entry`'s schema.
  static Result<OpArgs> bind(Graph& g, const OpEntry& entry, const std::vector<int32_t>& ids);

  // The op's name: a string literal, so step lambdas may keep the pointer.
  const char* name() const { return entry_->name; }
  uint32_t variant() const { return entry_->variant; }
  template <class E>
  E variant_as() const { return static_cast<E>(entry_->variant); }
  size_t size() const { return ids_.size(); }
  size_t num_inputs() const { return num_inputs_; }

  // Value id of argument i (-1 where an optional argument was left out).
  int32_t id(size_t i) const { return ids_.at(i); }
  bool is_none(size_t i) const;
  bool has(size_t i) const { return !is_none(i); }
  bool is_tensor(size_t i) const;

  GpuTensor* tensor(size_t i) const;  // T; null for None (T?)
  GpuTensor* out(size_t k = 0) const { return tensor(num_inputs_ + k); }
  int64_t integer(size_t i) const;  // I, B: the value now (a SymInt's current value)
  std::optional<int64_t> opt_integer(size_t i) const;
  int64_t integer_or(size_t i, int64_t fallback) const { return opt_integer(i).value_or(fallback); }
  double scalar(size_t i) const;  // F
  std::optional<double> opt_scalar(size_t i) const;
  double scalar_or(size_t i, double fallback) const { return opt_scalar(i).value_or(fallback); }
  bool flag(size_t i) const { return integer(i) != 0; }  // B
  std::vector<int64_t> ints(size_t i) const;              // L (empty for None)
  const std::vector<int32_t>& items(size_t i) const;      // V (empty for None)
  const std::string& str(size_t i) const;                 // S (empty for None)
  // V whose items are all tensors, `count` of them unless 0; null items stand for None.
  Result<std::vector<GpuTensor*>> tensors(size_t i, size_t count = 0) const;

  // O: the output tensors, the first one present; null entries stand for None.
  Result<std::vector<GpuTensor*>> outputs(size_t i) const;
  // The output of an op that yields a SymInt ("-> *"): the value to write at each
  // execution, which must be a SymInt or an Int (not any int-like value).
  Result<GValue*> symint_out() const;

  // Errors that start with the op's name.
  Status invalid(const std::string& what) const { return op_error(ErrorCode::kInvalidProgram, name(), what); }
  Status bad(const std::string& what) const { return op_error(ErrorCode::kInvalidArgument, name(), what); }
  Status unsupported(const std::string& what) const { return op_error(ErrorCode::kNotSupported, name(), what); }
  // Fails unless every given tensor (null ones skipped) holds float words.
  Status expect_float(std::initializer_list<const GpuTensor*> ts, const char* what = "float tensors only") const;

 private:
  OpArgs(Graph& g, const OpEntry& entry) : g_(&g), entry_(&entry) {}
  GValue* value(size_t i) const;

  Graph* g_;
  const OpEntry* entry_;
  std::vector<int32_t> ids_;
  size_t num_inputs_ = 0;
};

// One recorded dispatch of a kernel with its params uniform: what add_kernel returns, for
// the op's step to rewrite the params and size the grid (launch, or params->write and
// g.set_grid(index) / g.set_workgroups(index) where the grid is not a flat count).
struct KernelDispatch {
  ParamsBlock* params = nullptr;
  size_t index = 0;

  // The usual end of an op's step: writes this execution's params and sizes the grid.
  template <class P>
  Status launch(Graph& g, const P& p, uint64_t invocations, uint32_t workgroup_size) const {
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(index, invocations, workgroup_size);
  }
};
// Marks the params uniform's place in add_kernel's binding list.
inline const gpu::Buffer* const kParamsSlot = nullptr;
// Gets the pipeline for `key`, a params uniform of `params_bytes` and records one dispatch
// whose bindings 0, 1, ... are `buffers` in order (kParamsSlot: the params uniform).
Result<KernelDispatch> add_kernel(Graph& g, const std::string& op, const gpu::PipelineKey& key, size_t params_bytes,
                                  std::initializer_list<const gpu::Buffer*> buffers);

// Checks an op's computed output shape against the tensor's serialized bound (same rank,
// no more elements, no negative size) and makes it the tensor's live shape.
Status set_output_dims(const std::string& op, GpuTensor* out, const std::vector<int64_t>& shape);

// A linear layer's live output, x [..., K] -> y [..., N] (y's bound checked); returns the
// rows M = numel(x) / K.
Result<int64_t> set_linear_output(const char* op, const GpuTensor* x, int64_t k, int64_t n, GpuTensor* y);

// The schema's syntax alone (tokens known, brackets closed, "->" at most once): the
// registry test runs it on every declared op, so a typo fails a test, not a load.
Status check_schema(const char* schema);
// Whether a call of `nargs` arguments fits the schema's count (all, or all but the [X]).
bool schema_accepts(const char* schema, size_t nargs);

}  // namespace wick::webgpu
