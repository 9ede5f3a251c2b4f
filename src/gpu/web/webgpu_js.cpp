// webgpu.h for the wasm build: the C API that src/gpu calls, implemented on the
// JavaScript WebGPU API (webgpu_js.js) so that src/gpu compiles for the browser
// unchanged.
//
// Only what src/gpu uses is here; a call to anything else fails at link time. Every
// struct is read on this side, so the JavaScript half only sees numbers and strings.
// Handles are indices into the JavaScript object table. Callbacks run inside
// wgpuInstanceWaitAny (the only mode src/gpu asks for, WaitAnyOnly), and device events
// (loss, uncaptured errors) are delivered after each wait and in ProcessEvents.
#include <webgpu/webgpu.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

extern "C" {
void wickgpu_add_ref(uint32_t id);
void wickgpu_release(uint32_t id);
uint32_t wickgpu_create_instance();
uint32_t wickgpu_request_adapter(uint32_t instance, int high_performance);
char* wickgpu_adapter_info(uint32_t adapter);
double wickgpu_limit(uint32_t id, const char* name);
int wickgpu_has_feature(uint32_t id, const char* name);
void wickgpu_require_limit(const char* name, double value);
uint32_t wickgpu_request_device(uint32_t adapter, const char* features, const char* label,
                                size_t label_len);
char* wickgpu_next_event(int32_t* out);
uint32_t wickgpu_device_queue(uint32_t device);
void wickgpu_push_error_scope(uint32_t device, int filter);
uint32_t wickgpu_pop_error_scope(uint32_t device);
uint32_t wickgpu_create_buffer(uint32_t device, double size, uint32_t usage, int mapped,
                               const char* label, size_t label_len);
uint32_t wickgpu_create_query_set(uint32_t device, uint32_t count, const char* label,
                                  size_t label_len);
uint32_t wickgpu_create_shader_module(uint32_t device, const char* code, size_t code_len,
                                      const char* label, size_t label_len);
uint32_t wickgpu_compilation_info(uint32_t module);
uint32_t wickgpu_create_compute_pipeline(uint32_t device, uint32_t module, const char* entry,
                                         size_t entry_len, const char* constants,
                                         const char* label, size_t label_len);
uint32_t wickgpu_pipeline_bind_group_layout(uint32_t pipeline, uint32_t group);
void wickgpu_bind_group_entry(uint32_t binding, uint32_t buffer, double offset, double size);
uint32_t wickgpu_create_bind_group(uint32_t device, uint32_t layout, const char* label,
                                   size_t label_len);
uint32_t wickgpu_create_command_encoder(uint32_t device);
void wickgpu_copy_buffer(uint32_t encoder, uint32_t src, double src_offset, uint32_t dst,
                         double dst_offset, double size);
uint32_t wickgpu_begin_compute_pass(uint32_t encoder, uint32_t query_set, int begin, int end);
void wickgpu_pass_set_pipeline(uint32_t pass, uint32_t pipeline);
void wickgpu_pass_set_bind_group(uint32_t pass, uint32_t index, uint32_t group);
void wickgpu_pass_dispatch(uint32_t pass, uint32_t x, uint32_t y, uint32_t z);
void wickgpu_pass_end(uint32_t pass);
void wickgpu_resolve_query_set(uint32_t encoder, uint32_t query_set, uint32_t first,
                               uint32_t count, uint32_t dst, double dst_offset);
uint32_t wickgpu_encoder_finish(uint32_t encoder);
void wickgpu_queue_submit(uint32_t queue, uint32_t command_buffer);
void wickgpu_queue_write_buffer(uint32_t queue, uint32_t buffer, double offset, const void* data,
                                size_t size);
uint32_t wickgpu_queue_work_done(uint32_t queue);
uint32_t wickgpu_buffer_map_read(uint32_t buffer, double offset, double size);
void* wickgpu_buffer_mapped_range(uint32_t buffer, double offset, double size);
void wickgpu_buffer_unmap(uint32_t buffer);
int wickgpu_wait(uint32_t future, double timeout_ms);
void wickgpu_yield();
int wickgpu_future_int(uint32_t future, int field);
char* wickgpu_future_message(uint32_t future, int index, int32_t* out);
void wickgpu_future_forget(uint32_t future);
}

namespace {

template <class T>
uint32_t id_of(T handle) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(handle));
}
template <class T>
T as_handle(uint32_t id) {
  return reinterpret_cast<T>(static_cast<uintptr_t>(id));
}

std::string text(WGPUStringView s) {
  if (s.data == nullptr) return {};
  if (s.length == WGPU_STRLEN) return std::string(s.data);
  return std::string(s.data, s.length);
}

// Takes a malloc'd string from JavaScript.
std::string take(char* s) {
  std::string out = s ? s : "";
  std::free(s);
  return out;
}

// WebGPU's names for webgpu.h's feature values.
struct FeatureName {
  WGPUFeatureName value;
  const char* name;
};
constexpr FeatureName kFeatureNames[] = {
    {WGPUFeatureName_CoreFeaturesAndLimits, "core-features-and-limits"},
    {WGPUFeatureName_DepthClipControl, "depth-clip-control"},
    {WGPUFeatureName_Depth32FloatStencil8, "depth32float-stencil8"},
    {WGPUFeatureName_TextureCompressionBC, "texture-compression-bc"},
    {WGPUFeatureName_TextureCompressionBCSliced3D, "texture-compression-bc-sliced-3d"},
    {WGPUFeatureName_TextureCompressionETC2, "texture-compression-etc2"},
    {WGPUFeatureName_TextureCompressionASTC, "texture-compression-astc"},
    {WGPUFeatureName_TextureCompressionASTCSliced3D, "texture-compression-astc-sliced-3d"},
    {WGPUFeatureName_TimestampQuery, "timestamp-query"},
    {WGPUFeatureName_IndirectFirstInstance, "indirect-first-instance"},
    {WGPUFeatureName_ShaderF16, "shader-f16"},
    {WGPUFeatureName_RG11B10UfloatRenderable, "rg11b10ufloat-renderable"},
    {WGPUFeatureName_BGRA8UnormStorage, "bgra8unorm-storage"},
    {WGPUFeatureName_Float32Filterable, "float32-filterable"},
    {WGPUFeatureName_Float32Blendable, "float32-blendable"},
    {WGPUFeatureName_ClipDistances, "clip-distances"},
    {WGPUFeatureName_DualSourceBlending, "dual-source-blending"},
    {WGPUFeatureName_Subgroups, "subgroups"},
};

const char* feature_name(WGPUFeatureName value) {
  for (const FeatureName& f : kFeatureNames) {
    if (f.value == value) return f.name;
  }
  return nullptr;
}

// The WGPULimits fields that WebGPU's JavaScript limits share (same names).
struct LimitField {
  const char* name;
  bool wide;  // uint64_t
  size_t offset;
};
#define WICK_LIMIT(field, wide) {#field, wide, offsetof(WGPULimits, field)}
constexpr LimitField kLimitFields[] = {
    WICK_LIMIT(maxTextureDimension1D, false), WICK_LIMIT(maxTextureDimension2D, false),
    WICK_LIMIT(maxTextureDimension3D, false), WICK_LIMIT(maxTextureArrayLayers, false),
    WICK_LIMIT(maxBindGroups, false), WICK_LIMIT(maxBindGroupsPlusVertexBuffers, false),
    WICK_LIMIT(maxBindingsPerBindGroup, false),
    WICK_LIMIT(maxDynamicUniformBuffersPerPipelineLayout, false),
    WICK_LIMIT(maxDynamicStorageBuffersPerPipelineLayout, false),
    WICK_LIMIT(maxSampledTexturesPerShaderStage, false),
    WICK_LIMIT(maxSamplersPerShaderStage, false),
    WICK_LIMIT(maxStorageBuffersPerShaderStage, false),
    WICK_LIMIT(maxStorageTexturesPerShaderStage, false),
    WICK_LIMIT(maxUniformBuffersPerShaderStage, false),
    WICK_LIMIT(maxUniformBufferBindingSize, true), WICK_LIMIT(maxStorageBufferBindingSize, true),
    WICK_LIMIT(minUniformBufferOffsetAlignment, false),
    WICK_LIMIT(minStorageBufferOffsetAlignment, false), WICK_LIMIT(maxVertexBuffers, false),
    WICK_LIMIT(maxBufferSize, true), WICK_LIMIT(maxVertexAttributes, false),
    WICK_LIMIT(maxVertexBufferArrayStride, false),
    WICK_LIMIT(maxInterStageShaderVariables, false), WICK_LIMIT(maxColorAttachments, false),
    WICK_LIMIT(maxColorAttachmentBytesPerSample, false),
    WICK_LIMIT(maxComputeWorkgroupStorageSize, false),
    WICK_LIMIT(maxComputeInvocationsPerWorkgroup, false),
    WICK_LIMIT(maxComputeWorkgroupSizeX, false), WICK_LIMIT(maxComputeWorkgroupSizeY, false),
    WICK_LIMIT(maxComputeWorkgroupSizeZ, false),
    WICK_LIMIT(maxComputeWorkgroupsPerDimension, false),
};
#undef WICK_LIMIT

WGPUStatus read_limits(uint32_t id, WGPULimits* limits) {
  if (limits == nullptr) return WGPUStatus_Error;
  auto* base = reinterpret_cast<uint8_t*>(limits);
  for (const LimitField& f : kLimitFields) {
    const double v = wickgpu_limit(id, f.name);
    if (v < 0) continue;
    if (f.wide) {
      const uint64_t x = static_cast<uint64_t>(v);
      std::memcpy(base + f.offset, &x, sizeof x);
    } else {
      const uint32_t x = static_cast<uint32_t>(std::fmin(v, 4294967295.0));
      std::memcpy(base + f.offset, &x, sizeof x);
    }
  }
  return WGPUStatus_Success;
}

// --- futures: the callback each one runs once its JavaScript promise has settled ---

std::map<uint32_t, std::function<void(uint32_t)>>& pending_callbacks() {
  static auto* callbacks = new std::map<uint32_t, std::function<void(uint32_t)>>();
  return *callbacks;
}

WGPUFuture track(uint32_t future, std::function<void(uint32_t)> on_done) {
  pending_callbacks()[future] = std::move(on_done);
  return WGPUFuture{future};
}

bool future_failed(uint32_t future) { return wickgpu_future_int(future, 1) != 0; }
std::string future_message(uint32_t future) {
  return take(wickgpu_future_message(future, -1, nullptr));
}

// --- devices: their loss and uncaptured-error callbacks, by device id ---

struct DeviceCallbacks {
  WGPUDeviceLostCallbackInfo lost;
  WGPUUncapturedErrorCallbackInfo uncaptured;
};

std::map<uint32_t, DeviceCallbacks>& device_callbacks() {
  static auto* callbacks = new std::map<uint32_t, DeviceCallbacks>();
  return *callbacks;
}

std::map<uint32_t, int>& device_refs() {  // to forget callbacks when a device goes
  static auto* refs = new std::map<uint32_t, int>();
  return *refs;
}

WGPUErrorType error_type(int js_type) {
  switch (js_type) {
    case 0: return WGPUErrorType_NoError;
    case 1: return WGPUErrorType_Validation;
    case 2: return WGPUErrorType_OutOfMemory;
    case 3: return WGPUErrorType_Internal;
  }
  return WGPUErrorType_Unknown;
}

void deliver_device_events() {
  int32_t info[3] = {0, 0, 0};
  while (char* raw = wickgpu_next_event(info)) {
    const std::string message = take(raw);
    auto it = device_callbacks().find(static_cast<uint32_t>(info[1]));
    if (it == device_callbacks().end()) continue;  // released: its owner is gone
    const WGPUDevice device = as_handle<WGPUDevice>(info[1]);
    const WGPUStringView view{message.data(), message.size()};
    if (info[0] == 0) {
      // Our own release unregisters the device before destroying it, so a "destroyed"
      // loss seen here came from outside (the page called device.destroy()).
      const DeviceCallbacks cb = it->second;
      device_callbacks().erase(it);
      if (cb.lost.callback) {
        cb.lost.callback(&device, WGPUDeviceLostReason_Unknown, view, cb.lost.userdata1,
                         cb.lost.userdata2);
      }
    } else if (it->second.uncaptured.callback) {
      it->second.uncaptured.callback(&device, error_type(info[2]), view,
                                     it->second.uncaptured.userdata1,
                                     it->second.uncaptured.userdata2);
    }
  }
}

}  // namespace

extern "C" {

// --- reference counting ---

#define WICK_REFCOUNTED(Type, name)                                                  \
  void wgpu##Type##AddRef(WGPU##Type h) { wickgpu_add_ref(id_of(h)); }               \
  void wgpu##Type##Release(WGPU##Type h) { wickgpu_release(id_of(h)); }
WICK_REFCOUNTED(Instance, instance)
WICK_REFCOUNTED(Adapter, adapter)
WICK_REFCOUNTED(Queue, queue)
WICK_REFCOUNTED(Buffer, buffer)
WICK_REFCOUNTED(ShaderModule, shader_module)
WICK_REFCOUNTED(ComputePipeline, compute_pipeline)
WICK_REFCOUNTED(BindGroupLayout, bind_group_layout)
WICK_REFCOUNTED(BindGroup, bind_group)
WICK_REFCOUNTED(CommandEncoder, command_encoder)
WICK_REFCOUNTED(CommandBuffer, command_buffer)
WICK_REFCOUNTED(ComputePassEncoder, compute_pass_encoder)
WICK_REFCOUNTED(QuerySet, query_set)
#undef WICK_REFCOUNTED

void wgpuDeviceAddRef(WGPUDevice device) {
  ++device_refs()[id_of(device)];
  wickgpu_add_ref(id_of(device));
}

void wgpuDeviceRelease(WGPUDevice device) {
  const uint32_t id = id_of(device);
  if (--device_refs()[id] <= 0) {
    device_refs().erase(id);
    device_callbacks().erase(id);
  }
  wickgpu_release(id);
}

// --- instance ---

WGPUInstance wgpuCreateInstance(const WGPUInstanceDescriptor*) {
  return as_handle<WGPUInstance>(wickgpu_create_instance());
}

void wgpuInstanceProcessEvents(WGPUInstance) { deliver_device_events(); }

WGPUWaitStatus wgpuInstanceWaitAny(WGPUInstance, size_t count, WGPUFutureWaitInfo* futures,
                                   uint64_t timeout_ns) {
  const double timeout_ms =
      timeout_ns == UINT64_MAX ? -1.0 : static_cast<double>(timeout_ns) / 1e6;
  bool any = false;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t id = static_cast<uint32_t>(futures[i].future.id);
    if (!wickgpu_wait(id, timeout_ms)) continue;
    auto it = pending_callbacks().find(id);
    if (it != pending_callbacks().end()) {
      auto callback = std::move(it->second);
      pending_callbacks().erase(it);
      callback(id);
    }
    wickgpu_future_forget(id);
    futures[i].completed = true;
    any = true;
  }
  deliver_device_events();
  return any || count == 0 ? WGPUWaitStatus_Success : WGPUWaitStatus_TimedOut;
}

WGPUFuture wgpuInstanceRequestAdapter(WGPUInstance instance,
                                      const WGPURequestAdapterOptions* options,
                                      WGPURequestAdapterCallbackInfo cb) {
  const bool high = !options || options->powerPreference != WGPUPowerPreference_LowPower;
  return track(wickgpu_request_adapter(id_of(instance), high ? 1 : 0), [cb](uint32_t f) {
    if (future_failed(f)) {
      const std::string m = future_message(f);
      cb.callback(WGPURequestAdapterStatus_Unavailable, nullptr, {m.data(), m.size()},
                  cb.userdata1, cb.userdata2);
      return;
    }
    cb.callback(WGPURequestAdapterStatus_Success,
                as_handle<WGPUAdapter>(wickgpu_future_int(f, 0)), {nullptr, 0}, cb.userdata1,
                cb.userdata2);
  });
}

// --- adapter ---

WGPUStatus wgpuAdapterGetInfo(WGPUAdapter adapter, WGPUAdapterInfo* info) {
  const std::string all = take(wickgpu_adapter_info(id_of(adapter)));
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= all.size(); ++i) {
    if (i == all.size() || all[i] == '\n') {
      parts.push_back(all.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.resize(7);
  auto copy = [](const std::string& s) {
    char* p = static_cast<char*>(std::malloc(s.size() + 1));
    std::memcpy(p, s.c_str(), s.size() + 1);
    return WGPUStringView{p, s.size()};
  };
  info->vendor = copy(parts[0]);
  info->architecture = copy(parts[1]);
  info->device = copy(parts[2]);
  info->description = copy(parts[3]);
  info->backendType = WGPUBackendType_WebGPU;
  info->adapterType = parts[4] == "1" ? WGPUAdapterType_CPU : WGPUAdapterType_Unknown;
  info->vendorID = 0;
  info->deviceID = 0;
  info->subgroupMinSize = static_cast<uint32_t>(std::atoi(parts[5].c_str()));
  info->subgroupMaxSize = static_cast<uint32_t>(std::atoi(parts[6].c_str()));
  return WGPUStatus_Success;
}

void wgpuAdapterInfoFreeMembers(WGPUAdapterInfo info) {
  std::free(const_cast<char*>(info.vendor.data));
  std::free(const_cast<char*>(info.architecture.data));
  std::free(const_cast<char*>(info.device.data));
  std::free(const_cast<char*>(info.description.data));
}

WGPUStatus wgpuAdapterGetLimits(WGPUAdapter adapter, WGPULimits* limits) {
  return read_limits(id_of(adapter), limits);
}

WGPUBool wgpuAdapterHasFeature(WGPUAdapter adapter, WGPUFeatureName feature) {
  const char* name = feature_name(feature);
  return name && wickgpu_has_feature(id_of(adapter), name);
}

WGPUFuture wgpuAdapterRequestDevice(WGPUAdapter adapter, const WGPUDeviceDescriptor* desc,
                                    WGPURequestDeviceCallbackInfo cb) {
  std::string features;
  DeviceCallbacks callbacks = {};
  std::string label;
  if (desc) {
    for (size_t i = 0; i < desc->requiredFeatureCount; ++i) {
      if (const char* name = feature_name(desc->requiredFeatures[i])) {
        if (!features.empty()) features += ',';
        features += name;
      }
    }
    if (desc->requiredLimits) {
      const auto* base = reinterpret_cast<const uint8_t*>(desc->requiredLimits);
      for (const LimitField& f : kLimitFields) {
        double v;
        if (f.wide) {
          uint64_t x;
          std::memcpy(&x, base + f.offset, sizeof x);
          if (x == WGPU_LIMIT_U64_UNDEFINED) continue;
          v = static_cast<double>(x);
        } else {
          uint32_t x;
          std::memcpy(&x, base + f.offset, sizeof x);
          if (x == WGPU_LIMIT_U32_UNDEFINED) continue;
          v = x;
        }
        wickgpu_require_limit(f.name, v);
      }
    }
    callbacks.lost = desc->deviceLostCallbackInfo;
    callbacks.uncaptured = desc->uncapturedErrorCallbackInfo;
    label = text(desc->label);
  }
  const uint32_t future =
      wickgpu_request_device(id_of(adapter), features.c_str(), label.data(), label.size());
  return track(future, [cb, callbacks](uint32_t f) {
    if (future_failed(f)) {
      const std::string m = future_message(f);
      cb.callback(WGPURequestDeviceStatus_Error, nullptr, {m.data(), m.size()}, cb.userdata1,
                  cb.userdata2);
      return;
    }
    const uint32_t id = static_cast<uint32_t>(wickgpu_future_int(f, 0));
    device_callbacks()[id] = callbacks;
    device_refs()[id] = 1;
    cb.callback(WGPURequestDeviceStatus_Success, as_handle<WGPUDevice>(id), {nullptr, 0},
                cb.userdata1, cb.userdata2);
  });
}

// --- device ---

WGPUQueue wgpuDeviceGetQueue(WGPUDevice device) {
  return as_handle<WGPUQueue>(wickgpu_device_queue(id_of(device)));
}

WGPUStatus wgpuDeviceGetLimits(WGPUDevice device, WGPULimits* limits) {
  return read_limits(id_of(device), limits);
}

void wgpuDeviceGetFeatures(WGPUDevice device, WGPUSupportedFeatures* features) {
  std::vector<WGPUFeatureName> found;
  for (const FeatureName& f : kFeatureNames) {
    if (wickgpu_has_feature(id_of(device), f.name)) found.push_back(f.value);
  }
  auto* out = static_cast<WGPUFeatureName*>(std::malloc(sizeof(WGPUFeatureName) * (found.size() + 1)));
  std::copy(found.begin(), found.end(), out);
  features->featureCount = found.size();
  features->features = out;
}

void wgpuSupportedFeaturesFreeMembers(WGPUSupportedFeatures features) {
  std::free(const_cast<WGPUFeatureName*>(features.features));
}

void wgpuDevicePushErrorScope(WGPUDevice device, WGPUErrorFilter filter) {
  const int index = filter == WGPUErrorFilter_OutOfMemory ? 1
                    : filter == WGPUErrorFilter_Internal  ? 2
                                                          : 0;
  wickgpu_push_error_scope(id_of(device), index);
}

WGPUFuture wgpuDevicePopErrorScope(WGPUDevice device, WGPUPopErrorScopeCallbackInfo cb) {
  return track(wickgpu_pop_error_scope(id_of(device)), [cb](uint32_t f) {
    const std::string m = future_message(f);
    if (future_failed(f)) {
      cb.callback(WGPUPopErrorScopeStatus_Error, WGPUErrorType_Unknown, {m.data(), m.size()},
                  cb.userdata1, cb.userdata2);
      return;
    }
    cb.callback(WGPUPopErrorScopeStatus_Success, error_type(wickgpu_future_int(f, 2)),
                {m.data(), m.size()}, cb.userdata1, cb.userdata2);
  });
}

WGPUBuffer wgpuDeviceCreateBuffer(WGPUDevice device, const WGPUBufferDescriptor* desc) {
  const std::string label = text(desc->label);
  return as_handle<WGPUBuffer>(wickgpu_create_buffer(
      id_of(device), static_cast<double>(desc->size), static_cast<uint32_t>(desc->usage),
      desc->mappedAtCreation ? 1 : 0, label.data(), label.size()));
}

WGPUQuerySet wgpuDeviceCreateQuerySet(WGPUDevice device, const WGPUQuerySetDescriptor* desc) {
  const std::string label = text(desc->label);
  return as_handle<WGPUQuerySet>(
      wickgpu_create_query_set(id_of(device), desc->count, label.data(), label.size()));
}

WGPUShaderModule wgpuDeviceCreateShaderModule(WGPUDevice device,
                                              const WGPUShaderModuleDescriptor* desc) {
  std::string code;
  for (const WGPUChainedStruct* c = desc->nextInChain; c; c = c->next) {
    if (c->sType == WGPUSType_ShaderSourceWGSL) {
      code = text(reinterpret_cast<const WGPUShaderSourceWGSL*>(c)->code);
    }
  }
  const std::string label = text(desc->label);
  return as_handle<WGPUShaderModule>(wickgpu_create_shader_module(
      id_of(device), code.data(), code.size(), label.data(), label.size()));
}

WGPUFuture wgpuShaderModuleGetCompilationInfo(WGPUShaderModule module,
                                              WGPUCompilationInfoCallbackInfo cb) {
  return track(wickgpu_compilation_info(id_of(module)), [cb](uint32_t f) {
    if (future_failed(f)) {
      cb.callback(WGPUCompilationInfoRequestStatus_CallbackCancelled, nullptr, cb.userdata1,
                  cb.userdata2);
      return;
    }
    const int count = wickgpu_future_int(f, 3);
    std::vector<std::string> texts(count);
    std::vector<WGPUCompilationMessage> messages(count, WGPU_COMPILATION_MESSAGE_INIT);
    for (int i = 0; i < count; ++i) {
      int32_t info[3] = {0, 0, 0};
      texts[i] = take(wickgpu_future_message(f, i, info));
      messages[i].message = {texts[i].data(), texts[i].size()};
      messages[i].type = static_cast<WGPUCompilationMessageType>(info[0]);
      messages[i].lineNum = static_cast<uint64_t>(info[1]);
      messages[i].linePos = static_cast<uint64_t>(info[2]);
    }
    WGPUCompilationInfo info = WGPU_COMPILATION_INFO_INIT;
    info.messageCount = messages.size();
    info.messages = messages.data();
    cb.callback(WGPUCompilationInfoRequestStatus_Success, &info, cb.userdata1, cb.userdata2);
  });
}

WGPUComputePipeline wgpuDeviceCreateComputePipeline(WGPUDevice device,
                                                    const WGPUComputePipelineDescriptor* desc) {
  std::string constants;
  for (size_t i = 0; i < desc->compute.constantCount; ++i) {
    char value[40];
    std::snprintf(value, sizeof value, "%.17g", desc->compute.constants[i].value);
    constants += text(desc->compute.constants[i].key) + "=" + value + "\n";
  }
  const std::string entry = text(desc->compute.entryPoint);
  const std::string label = text(desc->label);
  return as_handle<WGPUComputePipeline>(wickgpu_create_compute_pipeline(
      id_of(device), id_of(desc->compute.module), entry.data(), entry.size(), constants.c_str(),
      label.data(), label.size()));
}

WGPUBindGroupLayout wgpuComputePipelineGetBindGroupLayout(WGPUComputePipeline pipeline,
                                                          uint32_t group) {
  return as_handle<WGPUBindGroupLayout>(wickgpu_pipeline_bind_group_layout(id_of(pipeline), group));
}

WGPUBindGroup wgpuDeviceCreateBindGroup(WGPUDevice device, const WGPUBindGroupDescriptor* desc) {
  for (size_t i = 0; i < desc->entryCount; ++i) {
    const WGPUBindGroupEntry& e = desc->entries[i];
    wickgpu_bind_group_entry(e.binding, id_of(e.buffer), static_cast<double>(e.offset),
                             e.size == WGPU_WHOLE_SIZE ? -1.0 : static_cast<double>(e.size));
  }
  const std::string label = text(desc->label);
  return as_handle<WGPUBindGroup>(
      wickgpu_create_bind_group(id_of(device), id_of(desc->layout), label.data(), label.size()));
}

WGPUCommandEncoder wgpuDeviceCreateCommandEncoder(WGPUDevice device,
                                                  const WGPUCommandEncoderDescriptor*) {
  return as_handle<WGPUCommandEncoder>(wickgpu_create_command_encoder(id_of(device)));
}

// --- commands ---

void wgpuCommandEncoderCopyBufferToBuffer(WGPUCommandEncoder encoder, WGPUBuffer src,
                                          uint64_t src_offset, WGPUBuffer dst,
                                          uint64_t dst_offset, uint64_t size) {
  wickgpu_copy_buffer(id_of(encoder), id_of(src), static_cast<double>(src_offset), id_of(dst),
                      static_cast<double>(dst_offset), static_cast<double>(size));
}

WGPUComputePassEncoder wgpuCommandEncoderBeginComputePass(WGPUCommandEncoder encoder,
                                                          const WGPUComputePassDescriptor* desc) {
  uint32_t query_set = 0;
  int begin = -1, end = -1;
  if (desc && desc->timestampWrites) {
    const WGPUPassTimestampWrites& w = *desc->timestampWrites;
    query_set = id_of(w.querySet);
    if (w.beginningOfPassWriteIndex != WGPU_QUERY_SET_INDEX_UNDEFINED) {
      begin = static_cast<int>(w.beginningOfPassWriteIndex);
    }
    if (w.endOfPassWriteIndex != WGPU_QUERY_SET_INDEX_UNDEFINED) {
      end = static_cast<int>(w.endOfPassWriteIndex);
    }
  }
  return as_handle<WGPUComputePassEncoder>(
      wickgpu_begin_compute_pass(id_of(encoder), query_set, begin, end));
}

void wgpuComputePassEncoderSetPipeline(WGPUComputePassEncoder pass, WGPUComputePipeline p) {
  wickgpu_pass_set_pipeline(id_of(pass), id_of(p));
}

void wgpuComputePassEncoderSetBindGroup(WGPUComputePassEncoder pass, uint32_t index,
                                        WGPUBindGroup group, size_t, const uint32_t*) {
  wickgpu_pass_set_bind_group(id_of(pass), index, id_of(group));
}

void wgpuComputePassEncoderDispatchWorkgroups(WGPUComputePassEncoder pass, uint32_t x,
                                              uint32_t y, uint32_t z) {
  wickgpu_pass_dispatch(id_of(pass), x, y, z);
}

void wgpuComputePassEncoderEnd(WGPUComputePassEncoder pass) { wickgpu_pass_end(id_of(pass)); }

void wgpuCommandEncoderResolveQuerySet(WGPUCommandEncoder encoder, WGPUQuerySet query_set,
                                       uint32_t first, uint32_t count, WGPUBuffer dst,
                                       uint64_t dst_offset) {
  wickgpu_resolve_query_set(id_of(encoder), id_of(query_set), first, count, id_of(dst),
                            static_cast<double>(dst_offset));
}

WGPUCommandBuffer wgpuCommandEncoderFinish(WGPUCommandEncoder encoder,
                                           const WGPUCommandBufferDescriptor*) {
  return as_handle<WGPUCommandBuffer>(wickgpu_encoder_finish(id_of(encoder)));
}

// --- queue ---

void wgpuQueueSubmit(WGPUQueue queue, size_t count, const WGPUCommandBuffer* commands) {
  for (size_t i = 0; i < count; ++i) wickgpu_queue_submit(id_of(queue), id_of(commands[i]));
}

void wgpuQueueWriteBuffer(WGPUQueue queue, WGPUBuffer buffer, uint64_t offset, const void* data,
                          size_t size) {
  wickgpu_queue_write_buffer(id_of(queue), id_of(buffer), static_cast<double>(offset), data, size);
}

WGPUFuture wgpuQueueOnSubmittedWorkDone(WGPUQueue queue, WGPUQueueWorkDoneCallbackInfo cb) {
  return track(wickgpu_queue_work_done(id_of(queue)), [cb](uint32_t f) {
    const std::string m = future_message(f);
    cb.callback(future_failed(f) ? WGPUQueueWorkDoneStatus_Error : WGPUQueueWorkDoneStatus_Success,
                {m.data(), m.size()}, cb.userdata1, cb.userdata2);
  });
}

// --- buffer mapping (reads only: src/gpu never maps for writing) ---

WGPUFuture wgpuBufferMapAsync(WGPUBuffer buffer, WGPUMapMode mode, size_t offset, size_t size,
                              WGPUBufferMapCallbackInfo cb) {
  if (mode != WGPUMapMode_Read) {
    static const char kReadOnly[] = "the wasm build maps buffers for reading only";
    cb.callback(WGPUMapAsyncStatus_Error, {kReadOnly, sizeof kReadOnly - 1}, cb.userdata1,
                cb.userdata2);
    return WGPUFuture{0};
  }
  const uint32_t future = wickgpu_buffer_map_read(id_of(buffer), static_cast<double>(offset),
                                                  static_cast<double>(size));
  return track(future, [cb](uint32_t f) {
    const std::string m = future_message(f);
    cb.callback(future_failed(f) ? WGPUMapAsyncStatus_Error : WGPUMapAsyncStatus_Success,
                {m.data(), m.size()}, cb.userdata1, cb.userdata2);
  });
}

const void* wgpuBufferGetConstMappedRange(WGPUBuffer buffer, size_t offset, size_t size) {
  return wickgpu_buffer_mapped_range(id_of(buffer), static_cast<double>(offset),
                                     static_cast<double>(size));
}

void wgpuBufferUnmap(WGPUBuffer buffer) { wickgpu_buffer_unmap(id_of(buffer)); }

}  // extern "C"
