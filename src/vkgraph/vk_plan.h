// A VK00 graph read once into plain C++ values, independent of any executor: what every
// value is (scalars, lists, tensors with their upper-bound shapes and constant bytes),
// the graph's inputs and outputs, and the operator chain. The WebGPU executor
// (webgpu/graph.h) turns it into buffers and dispatches; the CPU executor (vkcpu/) runs
// it op by op on the portable kernels. Reading checks every id and size, so executors
// may index values by the ids a plan holds.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "format/named_data.h"
#include "vkgraph/vk_blob.h"

namespace wick::vkgraph {

enum class ValueKind : uint8_t {
  kNone, kInt, kDouble, kBool, kString, kIntList, kDoubleList, kBoolList, kValueList, kSymInt, kTensor
};

struct TensorDecl {
  vk::VkDataType dtype = vk::VkDataType::FLOAT32;
  std::vector<int64_t> dims;  // the serialized shape: the upper bound when shapes are dynamic
  int constant_id = -1;       // >= 0: a constant (weights, KV caches)
  int mem_obj_id = -1;        // >= 0: shares memory with every tensor of the same id
  // A constant's bytes in `dtype`, numel * element size of them. They point into the
  // program file or its named data, which live as long as the method.
  std::span<const uint8_t> constant;

  int64_t numel() const { return shape_numel(dims); }
  int rank() const { return static_cast<int>(dims.size()); }
  bool is_constant() const { return constant_id >= 0; }
};

struct ValueDecl {
  ValueKind kind = ValueKind::kNone;
  int64_t i = 0;  // Int, Bool (0/1), SymInt (initial value)
  double d = 0;
  std::string s;
  std::vector<int64_t> ints;     // IntList, BoolList (0/1)
  std::vector<double> doubles;   // DoubleList
  std::vector<int32_t> items;    // ValueList: value ids
  TensorDecl tensor;
};

struct OpCall {
  uint32_t index = 0;  // position in the chain, for error messages
  std::string name;    // "aten.add.Tensor", as the chain spells it
  std::vector<int32_t> args;  // schema arguments in order, then the output
};

struct Plan {
  std::vector<ValueDecl> values;
  std::vector<int32_t> input_ids, output_ids;
  std::vector<OpCall> ops;
};

// Reads a parsed blob; constants are resolved through `named_data` (or the blob's raw
// region for legacy inline constants).
Result<Plan> read_plan(const VkBlob& blob, const NamedDataMap* named_data);
// parse_vk_blob + read_plan.
Result<Plan> read_plan(std::span<const uint8_t> blob, const NamedDataMap* named_data);

// Bytes per element of a VK dtype (0 for UNSET and unknown values).
// Fails with kOperatorMissing naming every operator of the plan that `known` says the
// delegate lacks, each once, so one load tells the whole story.
Status check_ops_implemented(const Plan& plan, const char* delegate, bool (*known)(std::string_view name));

size_t vk_elem_size(vk::VkDataType t);
bool vk_is_float(vk::VkDataType t);

}  // namespace wick::vkgraph
