// The C functions that the JavaScript API (src/wasm/api.js) calls (src/wasm/runtime_calls.js).
//
// Programs and methods are integer handles. Every function that can fail returns 0 (or
// a null pointer) and leaves "Code: message" in wick_last_error(). Only plain numbers
// and pointers cross: shapes are int32 arrays, int64 scalars come as two int32 halves,
// structured answers (metadata, device info, output shapes) are JSON strings.
//
// wick_init_webgpu, wick_use_backend, wick_method_load and wick_method_execute may wait
// on the GPU; in the browser that suspends the wasm stack (Asyncify), so JavaScript calls
// them one at a time, in one queue, as it does every call that touches a loaded method.
// The rest never wait and may be called while another call is suspended.
//
// Nothing here may throw: the build does not catch C++ exceptions, so one would reach
// JavaScript as a bare number. Strings from the program (method names, operator names)
// may hold any bytes; JSON answers escape invalid UTF-8 (core/json_text.h: byte 0xFF as
// the text \xFF, a spelling method lookups accept) instead of throwing, and inputs are
// checked before anything is allocated for them.
//
// The file also builds natively (without the WebGPU parts) for fuzz/c_api_fuzzer.cpp,
// which drives these functions with hostile programs and arguments.
#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#else
#define EMSCRIPTEN_KEEPALIVE
#endif

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/json_text.h"
#include "core/status.h"
#include "core/tensor.h"
#include "kernels/cpu/kernel.h"
#include "kernels/cpu/thread_pool.h"
#include "runtime/kernel_registry.h"
#include "runtime/program.h"
#include "wasm/c_api.h"
#ifdef WICK_HAVE_WEBGPU_DELEGATE  // the WebGPU delegate is linked (cmake/webgpu_delegate.cmake)
#include "gpu/device.h"
#include "webgpu/backend.h"
#endif
#ifdef WICK_HAVE_VKCPU  // the CPU executor of VK00 graphs is linked (cmake/vkgraph.cmake)
#include "backends/choice.h"
#endif

namespace {

using nlohmann::json;

struct MethodSlot {
  std::shared_ptr<wick::Program> program;  // keeps the program alive while the method is
  std::unique_ptr<wick::Method> method;
  // The inputs set since the last execute: tensors as views of the caller's bytes (the JS
  // API keeps them on the heap until execute returns), which forward() lends to a delegate
  // that only reads them or copies in; execute drops them.
  std::vector<wick::Value> inputs;
  std::vector<wick::Value> outputs;  // of the last execute, until the next one
};

std::map<int, std::shared_ptr<wick::Program>>& programs() {
  static auto* p = new std::map<int, std::shared_ptr<wick::Program>>();
  return *p;
}
std::map<int, MethodSlot>& methods() {
  static auto* m = new std::map<int, MethodSlot>();
  return *m;
}
int next_handle = 1;
int vulkan_target = 0;  // who serves "VulkanBackend" delegates: 0 not chosen, 1 WebGPU, 2 the CPU
std::string last_error;
std::string last_json;  // the buffer behind the most recent JSON answer
wick::MemoryLimits limits;  // for every wick_method_load

// The runtime resolves KernelCalls through its registry (runtime/kernel_registry.h);
// the bundle's kernels are the CPU ones, registered before the first program loads.
wick::Status register_kernels_once() {
  static const wick::Status status = wick::cpu::register_cpu_kernels(wick::kernel_registry());
  return status;
}

int fail(const wick::Status& status) {
  last_error = status.to_string();
  return 0;
}
int fail(wick::ErrorCode code, std::string message) {
  return fail(wick::Status(code, std::move(message)));
}

const char* answer(const json& j) {
  last_json = wick::json_text(j);
  return last_json.c_str();
}

json tensor_meta_json(const wick::TensorMeta& t) {
  return json{{"dtype", wick::dtype_name(t.dtype)},
              {"sizes", t.sizes},
              {"dimOrder", t.dim_order},
              {"dynamic", t.dynamism != wick::ShapeDynamism::kStatic},
              {"isMemoryPlanned", t.memory_planned}};
}

json values_meta_json(const std::vector<wick::ValueMeta>& values) {
  json out = json::array();
  for (const wick::ValueMeta& v : values) {
    json item{{"tag", wick::value_tag_name(v.tag)}};
    if (v.tag == wick::ValueTag::kTensor) item["tensor"] = tensor_meta_json(v.tensor);
    out.push_back(item);
  }
  return out;
}

MethodSlot* find_method(int handle) {
  auto it = methods().find(handle);
  if (it == methods().end()) {
    fail(wick::ErrorCode::kInvalidArgument,
         "method handle " + std::to_string(handle) + " is not loaded (deleted?)");
    return nullptr;
  }
  return &it->second;
}

std::shared_ptr<wick::Program> find_program(int handle) {
  auto it = programs().find(handle);
  if (it == programs().end()) {
    fail(wick::ErrorCode::kInvalidArgument,
         "program handle " + std::to_string(handle) + " is not loaded (deleted?)");
    return nullptr;
  }
  return it->second;
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* wick_last_error() { return last_error.c_str(); }

// Creates the WebGPU device (from Module.gpu or navigator.gpu) and registers the
// "VulkanBackend" delegate on it. f16_weights != 0: webgpu::BackendOptions::f16_weights
// (createExecuTorch({f16Weights: true})). 1 on success.
EMSCRIPTEN_KEEPALIVE int wick_init_webgpu(int f16_weights) {
#ifdef WICK_HAVE_WEBGPU_DELEGATE
  wick::webgpu::BackendOptions options;
  options.f16_weights = f16_weights != 0;
  wick::Status status = wick::webgpu::register_webgpu_backend(options);
  if (!status.ok()) return fail(status);
  vulkan_target = 1;
  return 1;
#else
  (void)f16_weights;
  return fail(wick::ErrorCode::kNotSupported, "this build of Wick has no WebGPU delegate");
#endif
}

// Who serves "VulkanBackend" delegates: 0 not chosen yet, 1 WebGPU, 2 the CPU executor
// of VK00 graphs. With 2, methods run without waiting on a GPU (api.js: synchronously).
EMSCRIPTEN_KEEPALIVE int wick_vulkan_target() { return vulkan_target; }

// Chooses it: preference 0 auto (WebGPU when an adapter opens, else the CPU), 1 WebGPU,
// 2 the CPU. The target chosen (1 or 2), or 0. Auto and WebGPU may wait on the GPU.
// f16_weights as wick_init_webgpu's (WebGPU only; the CPU computes in f32).
EMSCRIPTEN_KEEPALIVE int wick_use_backend(int preference, int f16_weights) {
#ifdef WICK_HAVE_VKCPU
  if (preference < 0 || preference > 2) {
    return fail(wick::ErrorCode::kInvalidArgument, "backend preference " + std::to_string(preference) +
                                                       " is not 0 (auto), 1 (webgpu) or 2 (cpu)");
  }
  const wick::DelegateTarget wanted = preference == 1   ? wick::DelegateTarget::kWebGpu
                                      : preference == 2 ? wick::DelegateTarget::kCpu
                                                        : wick::DelegateTarget::kAuto;
  wick::BackendChoiceOptions options;
  options.f16_weights = f16_weights != 0;
  auto choice = wick::use_backend(wanted, options);
  if (!choice.ok()) return fail(choice.status());
  vulkan_target = choice->target == wick::DelegateTarget::kWebGpu ? 1 : 2;
  return vulkan_target;
#else
  if (preference == 1) return wick_init_webgpu(f16_weights);
  return fail(wick::ErrorCode::kNotSupported,
              "this build of Wick has no CPU executor for VulkanBackend delegates");
#endif
}

// Threads the CPU kernels split work over (the caller's included): n >= 1 sets the count,
// 0 leaves it. Returns the count now in force. The single-threaded bundle always answers 1
// (thread_pool.cpp runs everything on the calling thread there); the -pthread bundle
// (wick-threads.js) starts with as many as api.js asks for (index.mjs: the cores, when the
// page is cross-origin isolated).
EMSCRIPTEN_KEEPALIVE int wick_cpu_threads(int n) {
  if (n > 256) n = 256;
  if (n >= 1) wick::cpu::set_num_threads(n);
  return wick::cpu::num_threads();
}

// Chunks of the CPU kernels' work that the pool's workers ran so far (0 in the
// single-threaded bundle): a double, since the count may pass 2^31.
EMSCRIPTEN_KEEPALIVE double wick_cpu_worker_chunks() { return static_cast<double>(wick::cpu::worker_chunks()); }

// {"adapter": {...}, "features": [...], "limits": {...}} of the backend's device.
EMSCRIPTEN_KEEPALIVE const char* wick_device_json() {
#ifndef WICK_HAVE_WEBGPU_DELEGATE
  fail(wick::ErrorCode::kNotSupported, "this build of Wick has no WebGPU delegate");
  return nullptr;
#else
  std::shared_ptr<wick::gpu::Device> device = wick::webgpu::backend_device();
  if (!device) {
    fail(wick::ErrorCode::kNotFound, "WebGPU is not initialised (call initWebGPU first)");
    return nullptr;
  }
  const wick::gpu::AdapterInfo& a = device->adapter_info();
  const wick::gpu::Limits& l = device->limits();
  json j;
  j["adapter"] = {{"vendor", a.vendor},           {"architecture", a.architecture},
                  {"device", a.device},           {"description", a.description},
                  {"backend", a.backend},         {"adapterType", a.adapter_type},
                  {"summary", a.summary()},       {"subgroupMinSize", a.subgroup_min_size},
                  {"subgroupMaxSize", a.subgroup_max_size}};
  j["features"] = device->feature_names();
  j["limits"] = {{"maxBufferSize", l.max_buffer_size},
                 {"maxStorageBufferBindingSize", l.max_storage_buffer_binding_size},
                 {"maxUniformBufferBindingSize", l.max_uniform_buffer_binding_size},
                 {"maxStorageBuffersPerShaderStage", l.max_storage_buffers_per_shader_stage},
                 {"maxUniformBuffersPerShaderStage", l.max_uniform_buffers_per_shader_stage},
                 {"maxBindGroups", l.max_bind_groups},
                 {"maxBindingsPerBindGroup", l.max_bindings_per_bind_group},
                 {"minStorageBufferOffsetAlignment", l.min_storage_buffer_offset_alignment},
                 {"minUniformBufferOffsetAlignment", l.min_uniform_buffer_offset_alignment},
                 {"maxComputeWorkgroupStorageSize", l.max_compute_workgroup_storage_size},
                 {"maxComputeInvocationsPerWorkgroup", l.max_compute_invocations_per_workgroup},
                 {"maxComputeWorkgroupSizeX", l.max_compute_workgroup_size_x},
                 {"maxComputeWorkgroupSizeY", l.max_compute_workgroup_size_y},
                 {"maxComputeWorkgroupSizeZ", l.max_compute_workgroup_size_z},
                 {"maxComputeWorkgroupsPerDimension", l.max_compute_workgroups_per_dimension}};
  return answer(j);
#endif
}

// The memory a wick_method_load may plan and take as inputs/outputs (MemoryLimits), in
// bytes; 0 keeps a limit as it is. Loads made before keep theirs. 1, or 0 for a negative
// or non-finite limit.
EMSCRIPTEN_KEEPALIVE int wick_set_memory_limits(double max_planned_bytes, double max_io_bytes) {
  for (double v : {max_planned_bytes, max_io_bytes}) {
    if (!(v >= 0 && v < 1.8e19)) {
      return fail(wick::ErrorCode::kInvalidArgument, "memory limit " + std::to_string(v) +
                                                         " is not a byte count");
    }
  }
  if (max_planned_bytes > 0) limits.max_planned_bytes = static_cast<uint64_t>(max_planned_bytes);
  if (max_io_bytes > 0) limits.max_io_bytes = static_cast<uint64_t>(max_io_bytes);
  return 1;
}

// Parses and verifies a .pte held in [bytes, bytes + size) (copied). A program handle.
EMSCRIPTEN_KEEPALIVE int wick_program_load(const uint8_t* bytes, size_t size, const char* name) {
  if (bytes == nullptr && size > 0) {
    return fail(wick::ErrorCode::kInvalidArgument, "wick_program_load: no bytes given for a size of " +
                                                       std::to_string(size));
  }
  if (wick::Status s = register_kernels_once(); !s.ok()) return fail(s);
  auto program = wick::Program::load_bytes(std::span<const uint8_t>(bytes, size), name ? name : "program");
  if (!program.ok()) return fail(program.status());
  const int handle = next_handle++;
  programs()[handle] = std::move(*program);
  return handle;
}

EMSCRIPTEN_KEEPALIVE void wick_program_free(int handle) { programs().erase(handle); }

EMSCRIPTEN_KEEPALIVE const char* wick_program_method_names(int handle) {
  auto program = find_program(handle);
  if (!program) return nullptr;
  return answer(json(program->method_names()));
}

// {name, inputs: [{tag, tensor?}], outputs, operators, backends, memoryPlannedBufferSizes,
//  numInstructions}
EMSCRIPTEN_KEEPALIVE const char* wick_method_meta(int handle, const char* method) {
  auto program = find_program(handle);
  if (!program) return nullptr;
  if (method == nullptr) {
    fail(wick::ErrorCode::kInvalidArgument, "wick_method_meta: no method name given");
    return nullptr;
  }
  auto meta = program->method_meta(method);
  if (!meta.ok()) {
    fail(meta.status());
    return nullptr;
  }
  json backends = json::array();
  for (const wick::DelegateMeta& d : meta->delegates) backends.push_back(d.backend_id);
  return answer(json{{"name", meta->name},
                     {"inputs", values_meta_json(meta->inputs)},
                     {"outputs", values_meta_json(meta->outputs)},
                     {"operators", meta->operators},
                     {"backends", backends},
                     {"memoryPlannedBufferSizes", meta->planned_buffer_sizes},
                     {"numInstructions", meta->num_instructions}});
}

// Resolves the kernels and initialises the delegates (compiling their shaders). A
// method handle.
EMSCRIPTEN_KEEPALIVE int wick_method_load(int program_handle, const char* name) {
  auto program = find_program(program_handle);
  if (!program) return 0;
  if (name == nullptr) return fail(wick::ErrorCode::kInvalidArgument, "wick_method_load: no method name given");
  auto method = program->load_method(name, limits);
  if (!method.ok()) return fail(method.status());
  const int handle = next_handle++;
  methods()[handle] = MethodSlot{program, std::move(*method), {}, {}};
  return handle;
}

EMSCRIPTEN_KEEPALIVE void wick_method_free(int handle) { methods().erase(handle); }

// Keeps input `index` (a view or a scalar) for the next execute, which checks it against
// the method. An index past the method's inputs fails here, with set_input's error.
int keep_input(MethodSlot* slot, int index, wick::Value v) {
  const size_t count = slot->method->meta().inputs.size();
  if (static_cast<size_t>(index) >= count) {
    wick::Status status = slot->method->set_input(static_cast<size_t>(index), v);
    return fail(status.ok() ? wick::Status(wick::ErrorCode::kInternal, "input index check") : status);
  }
  slot->inputs.resize(count);
  slot->inputs[static_cast<size_t>(index)] = std::move(v);
  return 1;
}

// Input `index` as a tensor: dtype (ScalarType number), shape (rank int32s), and
// nbytes of contiguous data, read by the next execute (the caller keeps them until then).
EMSCRIPTEN_KEEPALIVE int wick_method_set_tensor(int handle, int index, int dtype,
                                                const int32_t* sizes, int rank,
                                                const void* data, size_t nbytes) {
  MethodSlot* slot = find_method(handle);
  if (!slot) return 0;
  const std::string where = "input " + std::to_string(index);
  if (index < 0) return fail(wick::ErrorCode::kInvalidArgument, where + " does not exist");
  if (rank < 0 || rank > 16) {
    return fail(wick::ErrorCode::kInvalidArgument,
                where + ": rank " + std::to_string(rank) + " is out of range");
  }
  if (rank > 0 && sizes == nullptr) {
    return fail(wick::ErrorCode::kInvalidArgument, where + ": no sizes given for rank " +
                                                       std::to_string(rank));
  }
  if (!wick::is_valid_scalar_type(dtype)) {
    return fail(wick::ErrorCode::kInvalidArgument,
                where + ": dtype " + std::to_string(dtype) + " is not a ScalarType Wick knows");
  }
  const auto type = static_cast<wick::ScalarType>(dtype);
  std::vector<int64_t> shape(sizes, sizes + rank);
  // The byte count from the shape must be the one given before anything is allocated:
  // a hostile shape may ask for more memory than exists.
  const std::optional<uint64_t> need = wick::checked_nbytes(type, shape);
  if (!need) {
    return fail(wick::ErrorCode::kInvalidArgument,
                where + ": shape " + wick::shape_to_string(shape) + " has a negative size or " +
                    "more bytes than memory holds");
  }
  if (*need != nbytes || (nbytes > 0 && data == nullptr)) {
    return fail(wick::ErrorCode::kInvalidArgument,
                where + ": shape " + wick::shape_to_string(shape) + " of " + wick::dtype_name(type) +
                    " needs " + std::to_string(*need) + " bytes, given " + std::to_string(nbytes));
  }
  // A view of the caller's bytes, not a copy: execute's forward() checks dtype and shape
  // against the method before it copies them in or lends them to a delegate (allocating only
  // an unplanned input's storage, at its declared size, after those checks).
  wick::Tensor view;
  view.dtype = type;
  view.sizes = shape;
  view.max_sizes = shape;
  for (int d = 0; d < rank; ++d) view.dim_order.push_back(static_cast<uint8_t>(d));
  view.data = const_cast<void*>(data);
  view.capacity = nbytes;
  return keep_input(slot, index, wick::Value::make_tensor(std::move(view)));
}

// Input `index` as a scalar or None. kind: 0 None, 1 Int (lo, hi halves), 2 Double,
// 3 Bool (value != 0).
EMSCRIPTEN_KEEPALIVE int wick_method_set_scalar(int handle, int index, int kind, double value,
                                                uint32_t lo, int32_t hi) {
  MethodSlot* slot = find_method(handle);
  if (!slot) return 0;
  if (index < 0) {
    return fail(wick::ErrorCode::kInvalidArgument, "input " + std::to_string(index) + " does not exist");
  }
  wick::Value v;
  switch (kind) {
    case 0: break;
    case 1:
      v = wick::Value::make_int(static_cast<int64_t>((static_cast<uint64_t>(static_cast<uint32_t>(hi)) << 32) | lo));
      break;
    case 2: v = wick::Value::make_double(value); break;
    case 3: v = wick::Value::make_bool(value != 0); break;
    default:
      return fail(wick::ErrorCode::kInvalidArgument, "input " + std::to_string(index) +
                                                         ": unknown scalar kind " +
                                                         std::to_string(kind));
  }
  return keep_input(slot, index, std::move(v));
}

// Runs the method on the inputs set since the last execute (Method::forward: an input one
// delegate only reads is lent to it, an output one instruction writes lands straight in the
// storage kept here, since the last call's were dropped first) and keeps its outputs. The
// number of outputs, or -1. The inputs' views are dropped either way.
EMSCRIPTEN_KEEPALIVE int wick_method_execute(int handle) {
  MethodSlot* slot = find_method(handle);
  if (!slot) return -1;
  slot->outputs.clear();
  slot->inputs.resize(slot->method->meta().inputs.size());
  auto outs = slot->method->forward(slot->inputs);
  slot->inputs.clear();
  if (!outs.ok()) {
    fail(outs.status());
    return -1;
  }
  slot->outputs = std::move(*outs);
  return static_cast<int>(slot->outputs.size());
}

// Output `index` of the last execute: {tag, dtype, sizes, nbytes} for a tensor (data at
// wick_method_output_data), {tag, value} for a scalar ("value" of an Int is a string,
// so that int64 survives JSON).
EMSCRIPTEN_KEEPALIVE const char* wick_method_output(int handle, int index) {
  MethodSlot* slot = find_method(handle);
  if (!slot) return nullptr;
  if (index < 0 || static_cast<size_t>(index) >= slot->outputs.size()) {
    fail(wick::ErrorCode::kInvalidArgument, "output " + std::to_string(index) + " does not exist");
    return nullptr;
  }
  const wick::Value& v = slot->outputs[static_cast<size_t>(index)];
  json j{{"tag", wick::value_tag_name(v.tag)}};
  switch (v.tag) {
    case wick::ValueTag::kTensor:
      j["dtype"] = wick::dtype_name(v.tensor.dtype);
      j["scalarType"] = static_cast<int>(v.tensor.dtype);
      j["sizes"] = v.tensor.sizes;
      j["nbytes"] = v.tensor.nbytes();
      break;
    case wick::ValueTag::kInt: j["value"] = std::to_string(v.i); break;
    case wick::ValueTag::kDouble: j["value"] = v.d; break;
    case wick::ValueTag::kBool: j["value"] = v.b; break;
    default: break;
  }
  return answer(j);
}

EMSCRIPTEN_KEEPALIVE const void* wick_method_output_data(int handle, int index) {
  MethodSlot* slot = find_method(handle);
  if (!slot || index < 0 || static_cast<size_t>(index) >= slot->outputs.size()) return nullptr;
  return slot->outputs[static_cast<size_t>(index)].tensor.data;
}

}  // extern "C"
