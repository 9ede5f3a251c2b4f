// The delegate interface. A backend (e.g. the WebGPU "VulkanBackend") registers
// itself by id; a method's DelegateCall instructions are routed to the instance
// the backend returned from init().
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "format/named_data.h"
#include "runtime/value.h"

namespace wick {

struct CompileSpec {
  std::string key;
  std::span<const uint8_t> value;
};

struct DelegateInitContext {
  std::span<const uint8_t> processed;  // the delegate blob (valid for the program's life)
  std::vector<CompileSpec> compile_specs;
  const NamedDataMap* named_data = nullptr;  // program named data merged with .ptd files
  std::string method_name;
  int delegate_index = 0;
  // What the delegate may allocate for its own tensors, together: the method's
  // MemoryLimits::max_planned_bytes (sizes in a delegate blob are untrusted too).
  uint64_t max_graph_bytes = uint64_t{8} << 30;
};

class DelegateInstance {
 public:
  virtual ~DelegateInstance() = default;
  // args: value indices, the lowered module's inputs followed by its outputs.
  virtual Status execute(ValueTable& values, std::span<const int32_t> args) = 0;
  // How many of `args` are inputs the delegate only reads (the host tensors' bytes, during
  // execute()): Method::forward may then hand it the caller's input tensors instead of
  // copies. 0 (the default): unknown, every input is copied.
  virtual size_t read_only_inputs(std::span<const int32_t> args) const {
    (void)args;
    return 0;
  }
  // Top-k of output `value`'s last row (see Method::request_output_topk), computed by the
  // delegate in later execute()s instead of reading the output back. `args` as for
  // execute(). kNotSupported where it cannot (the method then computes it on the host).
  virtual Status request_output_topk(std::span<const int32_t> args, int32_t value, int k) {
    (void)args, (void)value, (void)k;
    return Status(ErrorCode::kNotSupported, "this delegate has no top-k of its outputs");
  }
  // The last execute()'s result for a value request_output_topk() accepted.
  virtual const TopK* output_topk(std::span<const int32_t> args, int32_t value) const {
    (void)args, (void)value;
    return nullptr;
  }
};

// A run of one chain's instructions offered to one backend as a single delegate: calls of
// its delegates with host operators between them. ExecuTorch's Vulkan partitioner leaves
// e.g. the aten.any.dim of PyTorch's SDPA decomposition on the CPU, so every attention
// layer becomes delegate -> host op -> delegate, and each boundary moves the score matrix
// through the host. A backend that can run those operators itself keeps it on the device.
struct FusedRunPart {
  int delegate = -1;              // >= 0: index into FusedRun::delegates; else an operator
  std::string op;                 // the operator's name, as the program spells it ("aten::any.out")
  std::span<const int32_t> args;  // value indices, as in the instruction
};
struct FusedRun {
  std::vector<DelegateInitContext> delegates;
  std::vector<FusedRunPart> parts;  // in execution order
  const ValueTable* values = nullptr;  // the method's values: operator scalars, tensor dtypes and bounds
  std::vector<bool> read_after;        // per value index: read after the run or a method output
};
struct FusedDelegate {
  std::unique_ptr<DelegateInstance> instance;
  std::vector<int32_t> args;  // the fused call's value indices: its inputs, then its outputs
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view id() const = 0;
  virtual Result<std::unique_ptr<DelegateInstance>> init(const DelegateInitContext& ctx) = 0;
  // Whether init_fused() can take host operator `op` ("aten::any.out") into a run.
  virtual bool runs_operator(std::string_view op) const {
    (void)op;
    return false;
  }
  // One delegate for a whole run (see FusedRun). An error leaves the run as it was: the
  // method then initializes the delegates one by one.
  virtual Result<FusedDelegate> init_fused(const FusedRun& run) {
    (void)run;
    return Status(ErrorCode::kNotSupported, "this backend does not fuse delegate runs");
  }
};

// Which executor runs the parts ExecuTorch's Vulkan partitioner lowered ("VulkanBackend"
// delegates): WebGPU, the CPU executor of VK00 graphs, or auto (WebGPU when an adapter
// exists, else the CPU). backends/choice.h registers the one chosen.
enum class DelegateTarget { kAuto, kWebGpu, kCpu };
// "auto", "webgpu" or "cpu"; anything else is an error naming the choices.
Result<DelegateTarget> parse_delegate_target(std::string_view name);
const char* delegate_target_name(DelegateTarget target);

// Global registry keyed by backend id. Registering an id again replaces the old one.
void register_backend(std::shared_ptr<Backend> backend);
void unregister_backend(std::string_view id);
std::shared_ptr<Backend> find_backend(std::string_view id);

}  // namespace wick
