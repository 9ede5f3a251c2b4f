#include "gpu/device.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "gpu/dawn_abi.h"
#include "gpu/strings.h"

namespace wick::gpu {

namespace {

#ifdef __EMSCRIPTEN__
constexpr const char* kNoAdapterHint = "no WebGPU adapter found";
#else
constexpr const char* kNoAdapterHint =
    "no WebGPU adapter found (is VK_ICD_FILENAMES set to SwiftShader? "
    "e.g. VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json)";
#endif

WGPUBackendType to_wgpu(Backend backend) {
  switch (backend) {
    case Backend::kDefault: return WGPUBackendType_Undefined;
    case Backend::kVulkan: return WGPUBackendType_Vulkan;
    case Backend::kMetal: return WGPUBackendType_Metal;
    case Backend::kD3D12: return WGPUBackendType_D3D12;
    case Backend::kNull: return WGPUBackendType_Null;
  }
  return WGPUBackendType_Undefined;
}

const char* backend_name(WGPUBackendType type) {
  switch (type) {
    case WGPUBackendType_Null: return "Null";
    case WGPUBackendType_WebGPU: return "WebGPU";
    case WGPUBackendType_D3D11: return "D3D11";
    case WGPUBackendType_D3D12: return "D3D12";
    case WGPUBackendType_Metal: return "Metal";
    case WGPUBackendType_Vulkan: return "Vulkan";
    case WGPUBackendType_OpenGL: return "OpenGL";
    case WGPUBackendType_OpenGLES: return "OpenGLES";
    default: return "unknown";
  }
}

const char* adapter_type_name(WGPUAdapterType type) {
  switch (type) {
    case WGPUAdapterType_DiscreteGPU: return "discrete GPU";
    case WGPUAdapterType_IntegratedGPU: return "integrated GPU";
    case WGPUAdapterType_CPU: return "CPU";
    default: return "unknown";
  }
}

Limits to_limits(const WGPULimits& l) {
  Limits out;
  out.max_buffer_size = l.maxBufferSize;
  out.max_storage_buffer_binding_size = l.maxStorageBufferBindingSize;
  out.max_uniform_buffer_binding_size = l.maxUniformBufferBindingSize;
  out.max_storage_buffers_per_shader_stage = l.maxStorageBuffersPerShaderStage;
  out.max_uniform_buffers_per_shader_stage = l.maxUniformBuffersPerShaderStage;
  out.max_bind_groups = l.maxBindGroups;
  out.max_bindings_per_bind_group = l.maxBindingsPerBindGroup;
  out.min_storage_buffer_offset_alignment = l.minStorageBufferOffsetAlignment;
  out.min_uniform_buffer_offset_alignment = l.minUniformBufferOffsetAlignment;
  out.max_compute_workgroup_storage_size = l.maxComputeWorkgroupStorageSize;
  out.max_compute_invocations_per_workgroup = l.maxComputeInvocationsPerWorkgroup;
  out.max_compute_workgroup_size_x = l.maxComputeWorkgroupSizeX;
  out.max_compute_workgroup_size_y = l.maxComputeWorkgroupSizeY;
  out.max_compute_workgroup_size_z = l.maxComputeWorkgroupSizeZ;
  out.max_compute_workgroups_per_dimension = l.maxComputeWorkgroupsPerDimension;
  return out;
}

ErrorCode error_code_for(WGPUErrorType type) {
  switch (type) {
    case WGPUErrorType_OutOfMemory: return ErrorCode::kOutOfResources;
    default: return ErrorCode::kInternal;  // validation errors are bugs in how Wick uses WebGPU
  }
}

const char* error_type_name(WGPUErrorType type) {
  switch (type) {
    case WGPUErrorType_Validation: return "validation error";
    case WGPUErrorType_OutOfMemory: return "out of memory";
    case WGPUErrorType_Internal: return "internal error";
    default: return "unknown error";
  }
}

// What a request callback (adapter, device) hands back: the object on success, and
// the implementation's message either way.
template <class T>
struct RequestReply {
  T object = nullptr;
  std::string message;
};
template <auto kSuccess, class InfoT, class T>
void request_into(InfoT& info, RequestReply<T>& reply) {
  info.mode = WGPUCallbackMode_WaitAnyOnly;
  info.callback = [](decltype(kSuccess) status, T object, WGPUStringView message, void* r, void*) {
    auto* out = static_cast<RequestReply<T>*>(r);
    if (status == kSuccess) out->object = object;
    out->message = from_wgpu(message);
  };
  info.userdata1 = &reply;
}

const char* matrix_component_name(WGPUSubgroupMatrixComponentType t) {
  switch (t) {
    case WGPUSubgroupMatrixComponentType_F32: return "f32";
    case WGPUSubgroupMatrixComponentType_F16: return "f16";
    case WGPUSubgroupMatrixComponentType_U32: return "u32";
    case WGPUSubgroupMatrixComponentType_I32: return "i32";
    case WGPUSubgroupMatrixComponentType_U8: return "u8";
    case WGPUSubgroupMatrixComponentType_I8: return "i8";
    default: return "?";
  }
}

// The adapter's subgroup-matrix shapes (AdapterPropertiesSubgroupMatrixConfigs, chained on
// wgpuAdapterGetInfo); left empty if the library refuses the chain.
// Native only: the browser bridge (gpu/web) does not offer the feature.
void read_subgroup_matrix_configs(WGPUAdapter adapter, AdapterInfo& ai) {
#ifdef __EMSCRIPTEN__
  (void)adapter, (void)ai;
#else
  WGPUAdapterPropertiesSubgroupMatrixConfigs configs = WGPU_ADAPTER_PROPERTIES_SUBGROUP_MATRIX_CONFIGS_INIT;
  WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
  info.nextInChain = &configs.chain;
  if (wgpuAdapterGetInfo(adapter, &info) != WGPUStatus_Success) return;
  for (size_t i = 0; i < configs.configCount; ++i) {
    const WGPUSubgroupMatrixConfig& c = configs.configs[i];
    ai.subgroup_matrix_configs.push_back(
        {matrix_component_name(c.componentType), matrix_component_name(c.resultComponentType), c.M, c.N, c.K});
  }
  wgpuAdapterPropertiesSubgroupMatrixConfigsFreeMembers(configs);
  wgpuAdapterInfoFreeMembers(info);
#endif
}

}  // namespace

const char* feature_name(Feature feature) {
  switch (feature) {
    case Feature::kShaderF16: return "shader-f16";
    case Feature::kTimestampQuery: return "timestamp-query";
    case Feature::kSubgroups: return "subgroups";
    case Feature::kSubgroupMatrix: return "chromium-experimental-subgroup-matrix";
    case Feature::kTimestampInsidePasses: return "chromium-experimental-timestamp-query-inside-passes";
  }
  return "unknown";
}

std::string AdapterInfo::summary() const {
  std::string out = device.empty() ? description : device;
  out += " [";
  if (!vendor.empty()) out += vendor + " ";
  if (!architecture.empty()) out += architecture + ", ";
  out += backend + ", " + adapter_type + "]";
  return out;
}

// Written by Dawn's callbacks (possibly from another thread), read by check().
struct Device::ErrorRecord {
  std::mutex mutex;
  bool lost = false;
  std::string lost_message;
  std::optional<Status> pending;  // first uncaptured error not yet reported
  int dropped = 0;                // further uncaptured errors after `pending`

  static void on_lost(WGPUDevice const*, WGPUDeviceLostReason reason, WGPUStringView message,
                      void* self, void*) {
    // Destroyed / CallbackCancelled come from our own teardown: nothing to report.
    if (reason == WGPUDeviceLostReason_Destroyed ||
        reason == WGPUDeviceLostReason_CallbackCancelled) {
      return;
    }
    auto* record = static_cast<ErrorRecord*>(self);
    std::lock_guard<std::mutex> lock(record->mutex);
    record->lost = true;
    record->lost_message = from_wgpu(message);
  }

  static void on_uncaptured(WGPUDevice const*, WGPUErrorType type, WGPUStringView message,
                            void* self, void*) {
    auto* record = static_cast<ErrorRecord*>(self);
    std::lock_guard<std::mutex> lock(record->mutex);
    if (record->pending) {
      ++record->dropped;
      return;
    }
    record->pending = Status(error_code_for(type), std::string("WebGPU ") + error_type_name(type) +
                                                       ": " + from_wgpu(message));
  }
};

Device::Device() : errors_(std::make_unique<ErrorRecord>()) {}

Device::~Device() {
  // Drop the device before the error record: the lost callback (reason Destroyed) may
  // fire while the device is released and still points at errors_.
  readback_.reset();
  queue_.reset();
  device_.reset();
  if (instance_) wgpuInstanceProcessEvents(instance_.get());
  adapter_.reset();
  instance_.reset();
}

Result<std::shared_ptr<Device>> Device::create(const DeviceOptions& options) {
  std::shared_ptr<Device> self(new Device());
  self->options_ = options;
  // The environment decides for every caller alike (the runtime, tools, kernel benches), so an
  // A/B of robustness needs no rebuild.
  if (const char* v = std::getenv("WICK_ROBUSTNESS")) {
    self->options_.robust_buffer_access = std::string_view(v) != "0";
  }
#ifdef __EMSCRIPTEN__
  self->options_.robust_buffer_access = true;  // a browser's WebGPU always has it
#endif

  // Timed waits: every asynchronous WebGPU call here is waited on with wgpuInstanceWaitAny.
  // Dawn's experimental features (subgroup matrices, timestamps inside passes) are offered
  // only under its allow_unsafe_apis toggle, on the instance, adapter and device.
  const bool unsafe_apis = options.request_subgroup_matrix || options.request_timestamps_inside_passes;
  self->instance_ = InstanceHandle(dawn_abi::create_instance(unsafe_apis));
  if (!self->instance_) {
    return make_error(ErrorCode::kDeviceLost, "wgpuCreateInstance failed");
  }

  // --- adapter ---
  WGPURequestAdapterOptions adapter_options = WGPU_REQUEST_ADAPTER_OPTIONS_INIT;
  adapter_options.powerPreference = options.high_performance ? WGPUPowerPreference_HighPerformance
                                                             : WGPUPowerPreference_LowPower;
  adapter_options.backendType = to_wgpu(options.backend);
  // The adapter lists subgroup matrices (and their configs) only under the toggles the
  // device will need (below).
  const char* adapter_toggle_names[] = {"allow_unsafe_apis", "use_vulkan_memory_model"};
  WGPUDawnTogglesDescriptor adapter_toggles = WGPU_DAWN_TOGGLES_DESCRIPTOR_INIT;
  adapter_toggles.enabledToggleCount = 2;
  adapter_toggles.enabledToggles = adapter_toggle_names;
  if (unsafe_apis) adapter_options.nextInChain = &adapter_toggles.chain;
  RequestReply<WGPUAdapter> adapter_reply;
  WGPURequestAdapterCallbackInfo adapter_cb = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
  request_into<WGPURequestAdapterStatus_Success>(adapter_cb, adapter_reply);
  WICK_RETURN_IF_ERROR(self->wait(
      wgpuInstanceRequestAdapter(self->instance(), &adapter_options, adapter_cb),
      "request adapter"));
  if (!adapter_reply.object) {
    std::string msg = kNoAdapterHint;
    if (!adapter_reply.message.empty()) msg += ": " + adapter_reply.message;
    return make_error(ErrorCode::kNotFound, msg);
  }
  self->adapter_ = AdapterHandle(adapter_reply.object);

  WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
  if (wgpuAdapterGetInfo(self->adapter(), &info) != WGPUStatus_Success) {
    return make_error(ErrorCode::kInternal, "wgpuAdapterGetInfo failed");
  }
  AdapterInfo& ai = self->adapter_info_;
  ai.vendor = from_wgpu(info.vendor);
  ai.architecture = from_wgpu(info.architecture);
  ai.device = from_wgpu(info.device);
  ai.description = from_wgpu(info.description);
  ai.backend = backend_name(info.backendType);
  ai.adapter_type = adapter_type_name(info.adapterType);
  ai.vendor_id = info.vendorID;
  ai.device_id = info.deviceID;
  ai.subgroup_min_size = info.subgroupMinSize;
  ai.subgroup_max_size = info.subgroupMaxSize;
  const bool is_null = info.backendType == WGPUBackendType_Null;
  wgpuAdapterInfoFreeMembers(info);
  if (is_null && !(options.allow_null_backend || options.backend == Backend::kNull)) {
    return make_error(ErrorCode::kNotFound,
                      std::string(kNoAdapterHint) +
                          ": only Dawn's Null backend was offered, and it runs nothing");
  }

  // --- device ---
  std::vector<Feature> wanted;
  if (options.request_shader_f16) wanted.push_back(Feature::kShaderF16);
  if (options.request_timestamp_query) wanted.push_back(Feature::kTimestampQuery);
  if (options.request_subgroups) wanted.push_back(Feature::kSubgroups);
  if (options.request_subgroup_matrix) wanted.push_back(Feature::kSubgroupMatrix);
  if (options.request_timestamp_query && options.request_timestamps_inside_passes)
    wanted.push_back(Feature::kTimestampInsidePasses);
  std::vector<WGPUFeatureName> required;
  for (Feature f : wanted) {
    WGPUFeatureName value = dawn_abi::feature_value(f);
    if (wgpuAdapterHasFeature(self->adapter(), value)) required.push_back(value);
  }
  if (options.request_subgroup_matrix &&
      wgpuAdapterHasFeature(self->adapter(), dawn_abi::feature_value(Feature::kSubgroupMatrix))) {
    read_subgroup_matrix_configs(self->adapter(), ai);
  }

  WGPULimits adapter_limits = WGPU_LIMITS_INIT;
  const bool have_adapter_limits =
      wgpuAdapterGetLimits(self->adapter(), &adapter_limits) == WGPUStatus_Success;

  WGPUDeviceDescriptor device_desc = WGPU_DEVICE_DESCRIPTOR_INIT;
  device_desc.label = to_wgpu("wick");
  device_desc.requiredFeatureCount = required.size();
  device_desc.requiredFeatures = required.data();
  if (options.request_adapter_limits && have_adapter_limits) {
    device_desc.requiredLimits = &adapter_limits;
  }
  // Dawn rounds timestamps to 100 us unless told otherwise (a browser anti-fingerprinting
  // measure); per-dispatch profiling needs them exact.
  // On a CPU adapter, workgroup memory is zeroed by the shader itself (Tint's loop), not
  // through Vulkan's zero-initialization extension: SwiftShader compiles the extension's
  // zeroing as one store per element, 2-3 s of JIT for every 8 KiB of workgroup memory in
  // every pipeline (bench/results/ci_time.md). The memory is zeroed either way.
  const char* disabled_toggles[] = {"timestamp_quantization", "use_vulkan_zero_initialize_workgroup_memory_extension"};
  const size_t disabled_count = ai.adapter_type == "CPU" ? 2 : 1;
  // Experimental features only; on Vulkan, Dawn grants subgroup matrices only with the
  // Vulkan memory model on.
  std::vector<const char*> enabled_toggles;
  if (unsafe_apis) enabled_toggles = {"allow_unsafe_apis", "use_vulkan_memory_model"};
  if (!self->options_.robust_buffer_access) enabled_toggles.push_back("disable_robustness");
  // WICK_DUMP_SHADERS=1: Dawn prints each shader module's WGSL and what it hands the driver
  // (SPIR-V on Vulkan) through the device's log, here stderr: what robustness and Tint's
  // transforms add to a kernel (bench/kernels/robustness). Native only.
  const bool dump_shaders = std::getenv("WICK_DUMP_SHADERS") != nullptr;
  if (dump_shaders) {
    enabled_toggles.push_back("dump_shaders");
    enabled_toggles.push_back("disable_symbol_renaming");
  }
  WGPUDawnTogglesDescriptor toggles = WGPU_DAWN_TOGGLES_DESCRIPTOR_INIT;
  toggles.disabledToggleCount = disabled_count;
  toggles.disabledToggles = disabled_toggles;
  toggles.enabledToggleCount = enabled_toggles.size();
  toggles.enabledToggles = enabled_toggles.data();
  device_desc.nextInChain = &toggles.chain;

  device_desc.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  device_desc.deviceLostCallbackInfo.callback = &ErrorRecord::on_lost;
  device_desc.deviceLostCallbackInfo.userdata1 = self->errors_.get();
  device_desc.uncapturedErrorCallbackInfo.callback = &ErrorRecord::on_uncaptured;
  device_desc.uncapturedErrorCallbackInfo.userdata1 = self->errors_.get();

  RequestReply<WGPUDevice> device_reply;
  WGPURequestDeviceCallbackInfo device_cb = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  request_into<WGPURequestDeviceStatus_Success>(device_cb, device_reply);
  WICK_RETURN_IF_ERROR(self->wait(
      wgpuAdapterRequestDevice(self->adapter(), &device_desc, device_cb), "request device"));
  if (!device_reply.object) {
    return make_error(ErrorCode::kDeviceLost, "WebGPU device request failed on " +
                                                  self->adapter_info_.summary() + ": " +
                                                  device_reply.message);
  }
  self->device_ = DeviceHandle(device_reply.object);
  self->queue_ = QueueHandle(wgpuDeviceGetQueue(self->handle()));
#ifndef __EMSCRIPTEN__
  if (dump_shaders) {
    WGPULoggingCallbackInfo log = WGPU_LOGGING_CALLBACK_INFO_INIT;
    log.callback = [](WGPULoggingType, WGPUStringView message, void*, void*) {
      std::fwrite(message.data, 1, message.length == WGPU_STRLEN ? std::strlen(message.data) : message.length, stderr);
      std::fputc('\n', stderr);
    };
    wgpuDeviceSetLoggingCallback(self->handle(), log);
  }
#endif

  WGPULimits device_limits = WGPU_LIMITS_INIT;
  if (wgpuDeviceGetLimits(self->handle(), &device_limits) != WGPUStatus_Success) {
    return make_error(ErrorCode::kInternal, "wgpuDeviceGetLimits failed");
  }
  self->limits_ = to_limits(device_limits);

  WGPUSupportedFeatures features = {};
  wgpuDeviceGetFeatures(self->handle(), &features);
  self->features_.assign(features.features, features.features + features.featureCount);
  wgpuSupportedFeaturesFreeMembers(features);
  std::sort(self->features_.begin(), self->features_.end());
  for (Feature f : wanted) {
    const bool granted = std::binary_search(self->features_.begin(), self->features_.end(),
                                            static_cast<uint32_t>(dawn_abi::feature_value(f)));
    if (granted && self->probe_feature(f)) {
      self->working_features_ |= 1u << static_cast<unsigned>(f);
    }
  }
  WICK_RETURN_IF_ERROR(self->check());
  return self;
}

// Uses the feature once inside an error scope. A library that numbers features unlike
// webgpu.h (see dawn_abi.h) would otherwise make has_feature() say yes to the wrong thing.
bool Device::probe_feature(Feature feature) {
  push_error_scope();
  switch (feature) {
    case Feature::kTimestampQuery: {
      WGPUQuerySetDescriptor desc = WGPU_QUERY_SET_DESCRIPTOR_INIT;
      desc.type = WGPUQueryType_Timestamp;
      desc.count = 2;
      QuerySetHandle probe(wgpuDeviceCreateQuerySet(handle(), &desc));
      break;
    }
    case Feature::kSubgroupMatrix: {
      // Parsing the extension is enough to show the library knows the feature by this number.
      WGPUShaderSourceWGSL wgsl = WGPU_SHADER_SOURCE_WGSL_INIT;
      wgsl.code = to_wgpu(
          "enable chromium_experimental_subgroup_matrix;\n"
          "@compute @workgroup_size(1) fn main() {}");
      WGPUShaderModuleDescriptor desc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
      desc.nextInChain = &wgsl.chain;
      ShaderModuleHandle probe(wgpuDeviceCreateShaderModule(handle(), &desc));
      break;
    }
    case Feature::kTimestampInsidePasses: {
#ifdef __EMSCRIPTEN__
      (void)pop_error_scope("probe").ok();
      return false;  // the browser bridge (gpu/web) has no timestamps inside passes
#else
      // A timestamp written between dispatches: refused unless the feature is on.
      WGPUQuerySetDescriptor qdesc = WGPU_QUERY_SET_DESCRIPTOR_INIT;
      qdesc.type = WGPUQueryType_Timestamp;
      qdesc.count = 2;
      QuerySetHandle queries(wgpuDeviceCreateQuerySet(handle(), &qdesc));
      CommandEncoderHandle encoder(wgpuDeviceCreateCommandEncoder(handle(), nullptr));
      ComputePassHandle pass(wgpuCommandEncoderBeginComputePass(encoder.get(), nullptr));
      wgpuComputePassEncoderWriteTimestamp(pass.get(), queries.get(), 0);
      wgpuComputePassEncoderEnd(pass.get());
      CommandBufferHandle commands(wgpuCommandEncoderFinish(encoder.get(), nullptr));
      break;
#endif
    }
    case Feature::kShaderF16:
    case Feature::kSubgroups: {
      const char* code = feature == Feature::kShaderF16
                             ? "enable f16;\n"
                               "@compute @workgroup_size(1) fn main() { let h: f16 = 1.0h; _ = h; }"
                             : "enable subgroups;\n"
                               "@compute @workgroup_size(1)\n"
                               "fn main(@builtin(subgroup_size) n: u32) { _ = n; }";
      WGPUShaderSourceWGSL wgsl = WGPU_SHADER_SOURCE_WGSL_INIT;
      wgsl.code = to_wgpu(code);
      WGPUShaderModuleDescriptor desc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
      desc.nextInChain = &wgsl.chain;
      ShaderModuleHandle probe(wgpuDeviceCreateShaderModule(handle(), &desc));
      break;
    }
  }
  return pop_error_scope(feature_name(feature)).ok();
}

bool Device::has_feature(Feature feature) const {
  return (working_features_ >> static_cast<unsigned>(feature)) & 1u;
}

std::vector<std::string> Device::feature_names() const {
  std::vector<std::string> names;
  names.reserve(features_.size());
  for (uint32_t f : features_) names.push_back(dawn_abi::feature_label(f));
  return names;
}

bool Device::is_lost() const {
  std::lock_guard<std::mutex> lock(errors_->mutex);
  return errors_->lost;
}

Status Device::check() {
  std::lock_guard<std::mutex> lock(errors_->mutex);
  if (errors_->lost) {
    return make_error(ErrorCode::kDeviceLost, "WebGPU device lost: " + errors_->lost_message);
  }
  if (errors_->pending) {
    Status s = *errors_->pending;
    if (errors_->dropped > 0) {
      s = Status(s.code(), s.message() + " (and " + std::to_string(errors_->dropped) +
                               " more WebGPU errors)");
    }
    errors_->pending.reset();
    errors_->dropped = 0;
    return s;
  }
  return Status::ok_status();
}

Status Device::wait(WGPUFuture future, std::string_view what) {
  WGPUFutureWaitInfo info = {future, false};
  WGPUWaitStatus status = wgpuInstanceWaitAny(instance(), 1, &info, options_.wait_timeout_ns);
  if (status == WGPUWaitStatus_Success && info.completed) return Status::ok_status();
  std::string reason = status == WGPUWaitStatus_TimedOut ? "timed out" : "wait failed";
  return make_error(status == WGPUWaitStatus_TimedOut ? ErrorCode::kDeviceLost
                                                      : ErrorCode::kInternal,
                    std::string(what) + ": " + reason);
}

namespace {
// What a status callback (queue work done, buffer map) reports, and the callback info
// that writes it there once the future waited on completes.
template <class StatusT>
struct StatusReply {
  StatusT status;
  std::string message;
};
template <class InfoT, class StatusT>
void reply_into(InfoT& info, StatusReply<StatusT>& reply) {
  info.mode = WGPUCallbackMode_WaitAnyOnly;
  info.callback = [](StatusT status, WGPUStringView message, void* r, void*) {
    static_cast<StatusReply<StatusT>*>(r)->status = status;
    static_cast<StatusReply<StatusT>*>(r)->message = from_wgpu(message);
  };
  info.userdata1 = &reply;
}
}  // namespace

Status Device::wait_idle() {
  WICK_RETURN_IF_ERROR(check());
  StatusReply<WGPUQueueWorkDoneStatus> reply{WGPUQueueWorkDoneStatus_Error, {}};
  WGPUQueueWorkDoneCallbackInfo cb = WGPU_QUEUE_WORK_DONE_CALLBACK_INFO_INIT;
  reply_into(cb, reply);
  WICK_RETURN_IF_ERROR(wait(wgpuQueueOnSubmittedWorkDone(queue(), cb), "wait for queue"));
  WICK_RETURN_IF_ERROR(check());
  if (reply.status != WGPUQueueWorkDoneStatus_Success) {
    return make_error(ErrorCode::kDeviceLost, "wait for queue: " + reply.message);
  }
  return Status::ok_status();
}

Status Device::map_for_read(WGPUBuffer mappable, uint64_t map_offset, uint64_t map_size, std::string_view what) {
  StatusReply<WGPUMapAsyncStatus> reply{WGPUMapAsyncStatus_Error, {}};
  WGPUBufferMapCallbackInfo cb = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  reply_into(cb, reply);
  WICK_RETURN_IF_ERROR(wait(wgpuBufferMapAsync(mappable, WGPUMapMode_Read, map_offset, map_size, cb), what));
  WICK_RETURN_IF_ERROR(check().with_context(std::string(what)));
  if (reply.status != WGPUMapAsyncStatus_Success) {
    return make_error(ErrorCode::kDeviceLost, std::string(what) + ": map failed: " + reply.message);
  }
  return Status::ok_status();
}

Status Device::read_mapped(WGPUBuffer mappable, uint64_t map_offset, uint64_t map_size, void* dst, uint64_t skip,
                           uint64_t bytes, const std::string& what) {
  WICK_RETURN_IF_ERROR(map_for_read(mappable, map_offset, map_size, what));
  const void* mapped = wgpuBufferGetConstMappedRange(mappable, map_offset, map_size);
  if (mapped == nullptr) {
    wgpuBufferUnmap(mappable);
    return make_error(ErrorCode::kInternal, what + ": mapped range unavailable");
  }
  std::memcpy(dst, static_cast<const uint8_t*>(mapped) + skip, bytes);
  wgpuBufferUnmap(mappable);
  return Status::ok_status();
}

void Device::push_error_scope() {
  // Popped in reverse order by pop_error_scope.
  wgpuDevicePushErrorScope(handle(), WGPUErrorFilter_Internal);
  wgpuDevicePushErrorScope(handle(), WGPUErrorFilter_OutOfMemory);
  wgpuDevicePushErrorScope(handle(), WGPUErrorFilter_Validation);
}

Status Device::pop_error_scope(std::string_view what) {
  struct Reply {
    WGPUPopErrorScopeStatus status = WGPUPopErrorScopeStatus_Error;
    WGPUErrorType type = WGPUErrorType_NoError;
    std::string message;
  };
  Status first;
  for (int i = 0; i < 3; ++i) {
    Reply reply;
    WGPUPopErrorScopeCallbackInfo cb = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
    cb.mode = WGPUCallbackMode_WaitAnyOnly;
    cb.callback = [](WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message,
                     void* r, void*) {
      auto* reply = static_cast<Reply*>(r);
      reply->status = status;
      reply->type = type;
      reply->message = from_wgpu(message);
    };
    cb.userdata1 = &reply;
    Status waited = wait(wgpuDevicePopErrorScope(handle(), cb), what);
    if (!first.ok()) continue;  // keep popping so the scope stack stays balanced
    if (!waited.ok()) {
      first = waited;
    } else if (reply.status != WGPUPopErrorScopeStatus_Success) {
      first = make_error(ErrorCode::kDeviceLost,
                         std::string(what) + ": error scope lost: " + reply.message);
    } else if (reply.type != WGPUErrorType_NoError) {
      first = make_error(error_code_for(reply.type), std::string(what) + ": WebGPU " +
                                                         error_type_name(reply.type) + ": " +
                                                         reply.message);
    }
  }
  if (first.ok()) return check();
  return first;
}

}  // namespace wick::gpu
