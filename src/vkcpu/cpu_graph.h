// A VK00 plan (vkgraph/vk_plan.h) run on the CPU, op by op on the portable kernels.
//
// Every plan value becomes a runtime Value at the same id, so an operator's VK00
// arguments index the graph's ValueTable directly; literal int lists get Int values of
// their own (appended after the plan's). Tensors are contiguous, sized for their
// serialized (upper-bound) shape, and share memory by mem_obj_id as the exporter planned.
// int64 narrowed to int32 by the exporter is widened back (the kernels index with int64),
// fp16/fp64 are computed in fp32. Constants point into the program's data, except those
// an operator writes (KV caches), which are copied once and then persist across calls.
//
// Ops are translated once, in chain order, into steps (op_table.cpp): mostly a kernel
// and its argument list in the out-variant convention, some a function of their own.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "kernels/cpu/kernel.h"
#include "runtime/value.h"
#include "vkgraph/vk_plan.h"

namespace wick::vkcpu {

class CpuGraph;

struct Step {
  std::string op;              // the VK00 operator, for errors and profiles
  cpu::KernelFn kernel = nullptr;
  std::vector<int32_t> args;   // for `kernel`
  std::function<Status(CpuGraph&)> run;  // instead of a kernel
};

struct StepProfile {
  std::string op;
  uint64_t ns = 0;
};

class CpuGraph {
 public:
  static Result<std::unique_ptr<CpuGraph>> build(const vkgraph::Plan& plan, uint64_t max_bytes = uint64_t{8} << 30);
  // args: the DelegateCall's value indices, graph inputs first, then outputs.
  Status execute(ValueTable& host, std::span<const int32_t> args);

  // ---- for op builders (op_table.cpp) ----
  ValueTable& values() { return values_; }
  const vkgraph::ValueDecl& decl(int32_t id) const { return plan_values_[static_cast<size_t>(id)]; }
  size_t num_plan_values() const { return plan_values_.size(); }
  Result<Tensor*> tensor(int32_t id, const char* op);
  Result<std::vector<int32_t>> list_items(int32_t id, const char* op);  // a ValueList's ids
  bool is_none(int32_t id) const;
  // Makes tensor `id` own a private copy of its data (a constant an op writes into).
  Status make_writable(int32_t id, const char* op);
  // Gives tensor `id` storage of its own, not shared with any other tensor.
  Status unshare(int32_t id);
  bool same_storage(int32_t a, int32_t b) const;
  void add_step(Step step) { steps_.push_back(std::move(step)); }

  size_t step_count() const { return steps_.size(); }
  // Per-step wall times of the last execution, when profiling is on.
  void set_profile(bool on) { profile_on_ = on; }
  const std::vector<StepProfile>& last_profile() const { return profile_; }

 private:
  CpuGraph() = default;
  Status create_values(const vkgraph::Plan& plan, uint64_t max_bytes);
  Status build_ops(const vkgraph::Plan& plan);
  Status set_input(const Value& host, int32_t id, const std::string& where);
  Status get_output(int32_t id, Value& host, const std::string& where);

  std::vector<vkgraph::ValueDecl> plan_values_;
  ValueTable values_;
  std::vector<int32_t> input_ids_, output_ids_;
  std::vector<Step> steps_;
  bool profile_on_ = false;
  std::vector<StepProfile> profile_;
};

// The CPU dtype a VK00 tensor dtype runs in.
ScalarType cpu_dtype(vk::VkDataType t);

}  // namespace wick::vkcpu
