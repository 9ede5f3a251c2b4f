// Program: a loaded .pte (plus optional .ptd data files). Method: one execution plan
// made runnable — values, planned memory, resolved kernels and delegates.
//
//   auto program = wick::Program::load_file("model.pte");
//   auto method = (*program)->load_method("forward");
//   auto outputs = (*method)->forward({wick::Value::make_tensor(x)});
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "runtime/value.h"

namespace wick {

class PteFile;
class Method;

struct TensorMeta {
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int64_t> sizes;  // upper bound when dynamic
  std::vector<uint8_t> dim_order;
  ShapeDynamism dynamism = ShapeDynamism::kStatic;
  bool memory_planned = false;
};

struct ValueMeta {
  ValueTag tag = ValueTag::kNone;
  TensorMeta tensor;  // when tag == kTensor
};

struct DelegateMeta {
  std::string backend_id;
  size_t blob_bytes = 0;
  bool inline_blob = false;  // stored inside the flatbuffer rather than a segment
  std::vector<std::string> compile_spec_keys;
};

struct MethodMeta {
  std::string name;
  std::vector<ValueMeta> inputs;
  std::vector<ValueMeta> outputs;
  std::vector<std::string> operators;  // "aten::add.out"
  std::vector<DelegateMeta> delegates;
  std::vector<int64_t> planned_buffer_sizes;  // bytes per planned arena (mem_id 1..n)
  size_t num_values = 0;
  size_t num_instructions = 0;
};

// What loading and running one method may make Wick allocate. Sizes in a .pte are
// untrusted: load_method() checks them against these limits (and forward() its output
// copies), so a corrupt or hostile file fails with an error naming the size instead of
// allocating it. The defaults leave room far beyond every real model we run (the largest
// fixture plans 47 MB); raise them for a bigger model, lower them to fuzz.
struct MemoryLimits {
  // The method's planned arenas (non_const_buffer_sizes), together.
  uint64_t max_planned_bytes = uint64_t{8} << 30;
  // The method's tensor inputs at their declared (upper-bound) sizes, together; and the
  // output copies that one forward() returns, together.
  uint64_t max_io_bytes = uint64_t{4} << 30;
};

class Program {
 public:
  // Reads and verifies the whole file; nothing is trusted before it is bounds-checked.
  static Result<std::shared_ptr<Program>> load_file(const std::string& path);
  static Result<std::shared_ptr<Program>> load_bytes(std::span<const uint8_t> bytes,
                                                      std::string name = "<memory>");
  // Adds a .ptd file whose named data the methods (and their delegates) can use.
  Status add_data_file(const std::string& path);
  Status add_data_bytes(std::span<const uint8_t> bytes, std::string name = "<memory>");

  ~Program();
  const std::string& name() const;
  // The names as the file holds them (any bytes). method_meta and load_method take a name
  // as is, or with its invalid UTF-8 escaped as JSON shows it (core/utf8.h).
  std::vector<std::string> method_names() const;
  Result<MethodMeta> method_meta(std::string_view method) const;
  // Resolves every kernel and initialises every delegate; fails naming what is missing,
  // or what exceeds `limits`.
  Result<std::unique_ptr<Method>> load_method(std::string_view method, const MemoryLimits& limits = {});

  const PteFile& file() const { return *file_; }
  struct Impl;

 private:
  Program();
  std::shared_ptr<PteFile> file_;
  std::unique_ptr<Impl> impl_;
  friend class Method;
};

// One kernel or delegate call of the last execute(), when profiling is on.
struct InstructionTime {
  size_t chain = 0, pc = 0;  // where it is in the execution plan
  std::string name;          // operator ("aten::add.out") or "delegate BackendId"
  double ms = 0;             // host wall time of the call
};

class Method {
 public:
  ~Method();
  const MethodMeta& meta() const;
  // Checks each input against the method's metadata (count, dtype, rank, bounds),
  // copies it in, runs every instruction, and returns copies of the outputs.
  // Mutable buffers (KV caches) persist across calls.
  Result<std::vector<Value>> forward(const std::vector<Value>& inputs);
  // Lower-level steps of forward().
  Status set_input(size_t index, const Value& input);
  Status execute();
  Result<Value> output(size_t index) const;  // a copy that owns its storage
  // Top-k of float output `index`'s last row (an LLM's logits), for a sampler. Where the
  // output comes straight from a delegate that can (WebGPU), later execute()s compute it
  // there and skip reading the output back: its tensor then has the current shape but
  // stale data. Otherwise execute() computes it on the host. k in 1..kMaxTopK; 0 stops.
  static constexpr int kMaxTopK = 64;
  Status request_output_topk(size_t index, int k);
  // The last execute()'s top-k of output `index` (error if none was requested).
  Result<const TopK*> output_topk(size_t index) const;
  // Whether output `index`'s top-k is computed by its delegate (for tests and profiles).
  bool output_topk_on_device(size_t index) const;
  // Per-instruction wall times (kernels and delegate calls) of each later execute(), for
  // `wick run --profile` on the CPU backend. Off by default: the clock is then never read.
  void set_profiling(bool on);
  const std::vector<InstructionTime>& last_profile() const;
  // Delegate calls in the method's instructions, after runs were fused across host
  // operators (runtime/fuse_runs.cpp): what a forward() pays in delegate round trips.
  size_t delegate_calls() const;
  // Bytes the last forward() copied into the outputs it returned. Outputs that one
  // instruction writes and nothing else reads are written straight into the storage
  // forward() returns, once the caller has let go of the previous call's (0 bytes then);
  // WICK_OUTPUT_IN_PLACE=0 always copies (for A/B timings).
  uint64_t last_output_copy_bytes() const;
  // Bytes the last forward() copied from its inputs into the method's memory. An input that
  // one delegate call reads and nothing else names is lent to it instead (the caller's
  // tensor, for the length of the call; the delegate only reads it): 0 bytes then.
  // WICK_INPUT_IN_PLACE=0 always copies (for A/B timings).
  uint64_t last_input_copy_bytes() const;

  struct Impl;

 private:
  friend class Program;
  Method();
  // set_input, or with `borrow` (forward()'s borrowed inputs) the caller's bytes in place.
  Status set_input_impl(size_t index, const Value& input, bool borrow);
  std::unique_ptr<Impl> impl_;
};

}  // namespace wick
