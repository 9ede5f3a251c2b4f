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

  struct Impl;

 private:
  friend class Program;
  Method();
  std::unique_ptr<Impl> impl_;
};

}  // namespace wick
