// The WebGPU device: instance + adapter + device + queue, and what the device can do.
//
// Every gpu/ object holds a shared_ptr<Device>. Errors that WebGPU reports out of band
// (a lost device, an uncaptured validation error) are recorded here and returned by the
// next call that checks the device, instead of crashing or being printed and forgotten.
//
// Not thread-safe: one thread drives a device (waits block that thread).
#pragma once

#include <webgpu/webgpu.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "gpu/handle.h"

namespace wick::gpu {

// Optional device features that kernels may branch on.
// kSubgroupMatrix: Dawn's experimental "chromium-experimental-subgroup-matrix" (WGSL
// subgroup_matrix_left/right/result; tensor cores through VK_KHR_cooperative_matrix on
// Vulkan). Dawn exposes it only with the allow_unsafe_apis toggle, so it is requested only
// when DeviceOptions::request_subgroup_matrix is set.
enum class Feature { kShaderF16, kTimestampQuery, kSubgroups, kSubgroupMatrix, kTimestampInsidePasses };
const char* feature_name(Feature feature);  // the WebGPU spelling: "shader-f16", ...

enum class Backend { kDefault, kVulkan, kMetal, kD3D12, kNull };

struct DeviceOptions {
  bool high_performance = true;        // powerPreference: high-performance vs low-power
  Backend backend = Backend::kDefault;
  // Dawn's Null backend accepts every call and runs nothing; it is refused unless asked for.
  bool allow_null_backend = false;
  // Optional features, requested only when the adapter has them.
  bool request_shader_f16 = true;
  bool request_timestamp_query = true;
  bool request_subgroups = true;
  // Off by default: it needs Dawn's allow_unsafe_apis toggle on the instance and device.
  bool request_subgroup_matrix = false;
  // Dawn's chromium-experimental-timestamp-query-inside-passes (timestamps between the
  // dispatches of one compute pass: the profiler's per-dispatch times then add up to the
  // GPU time of an unprofiled call). Off by default: it also needs allow_unsafe_apis, so
  // only profiling backends ask for it.
  bool request_timestamps_inside_passes = false;
  // Ask for the adapter's own limits rather than WebGPU's defaults (e.g. 1 GiB storage
  // bindings instead of 128 MiB).
  bool request_adapter_limits = true;
  // How long a blocking wait (map, queue done) may take before it is reported as an error.
  uint64_t wait_timeout_ns = UINT64_MAX;
  // Dawn's robustness: every run-time index into a buffer or workgroup array clamped, every
  // loop given a guard counter. Browsers always have it. Off (Dawn's disable_robustness
  // toggle, native only) the shaders run as written, which is how onnxruntime's WebGPU EP
  // creates its device in release builds; Wick's kernels keep every access in bounds
  // themselves (the tests run the fixtures both ways). WICK_ROBUSTNESS=0 or 1 in the
  // environment overrides this field.
  bool robust_buffer_access = true;
};

struct AdapterInfo {
  std::string vendor;
  std::string architecture;
  std::string device;       // e.g. "SwiftShader Device (Subzero)"
  std::string description;
  std::string backend;      // "Vulkan", "Metal", "D3D12", "Null", ...
  std::string adapter_type; // "discrete GPU", "integrated GPU", "CPU", "unknown"
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t subgroup_min_size = 0;
  uint32_t subgroup_max_size = 0;
  // The subgroup-matrix shapes the adapter offers (empty unless request_subgroup_matrix
  // was set and the adapter has the feature): C[MxN] (result) += A[MxK] * B[KxN].
  struct SubgroupMatrixConfig {
    std::string component;  // "f16", "f32", "i8", ...
    std::string result;
    uint32_t m = 0, n = 0, k = 0;
  };
  std::vector<SubgroupMatrixConfig> subgroup_matrix_configs;

  // One line for logs: "SwiftShader Device (Subzero) [google swiftshader, Vulkan, CPU]"
  std::string summary() const;
};

// The limits kernels and planners need (a subset of WGPULimits).
struct Limits {
  uint64_t max_buffer_size = 0;
  uint64_t max_storage_buffer_binding_size = 0;
  uint64_t max_uniform_buffer_binding_size = 0;
  uint32_t max_storage_buffers_per_shader_stage = 0;
  uint32_t max_uniform_buffers_per_shader_stage = 0;
  uint32_t max_bind_groups = 0;
  uint32_t max_bindings_per_bind_group = 0;
  uint32_t min_storage_buffer_offset_alignment = 0;
  uint32_t min_uniform_buffer_offset_alignment = 0;
  uint32_t max_compute_workgroup_storage_size = 0;
  uint32_t max_compute_invocations_per_workgroup = 0;
  uint32_t max_compute_workgroup_size_x = 0;
  uint32_t max_compute_workgroup_size_y = 0;
  uint32_t max_compute_workgroup_size_z = 0;
  uint32_t max_compute_workgroups_per_dimension = 0;
};

class Device {
 public:
  // Fails with kNotFound "no WebGPU adapter found (...)" when there is no usable adapter.
  static Result<std::shared_ptr<Device>> create(const DeviceOptions& options = {});
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const AdapterInfo& adapter_info() const { return adapter_info_; }
  const Limits& limits() const { return limits_; }
  const DeviceOptions& options() const { return options_; }
  // Requested, granted, and seen to work (a timestamp query set, an `enable f16;` shader...).
  bool has_feature(Feature feature) const;
  // Every feature the device was created with, spelled as WebGPU does ("shader-f16", ...).
  std::vector<std::string> feature_names() const;

  // kDeviceLost (with Dawn's reason) once the device is lost, for ever after; otherwise
  // the first uncaptured WebGPU error since the previous check (then cleared); else ok.
  Status check();
  bool is_lost() const;

  // Blocks until `future` completes. `what` names the operation in error messages.
  Status wait(WGPUFuture future, std::string_view what);
  // Blocks until all work submitted so far has finished on the GPU.
  Status wait_idle();
  // Maps [map_offset, map_offset + map_size) of a MapRead buffer for reading and blocks until
  // it is mapped (after the submitted work that writes it); the caller unmaps it. `what`
  // names the read in error messages.
  Status map_for_read(WGPUBuffer mappable, uint64_t map_offset, uint64_t map_size, std::string_view what);
  // Maps [map_offset, map_offset + map_size) of a MapRead buffer, copies `bytes` from `skip`
  // bytes into that range to dst, and unmaps. `what` names the read in error messages.
  Status read_mapped(WGPUBuffer mappable, uint64_t map_offset, uint64_t map_size, void* dst, uint64_t skip,
                     uint64_t bytes, const std::string& what);

  // Error scopes: errors raised between push and pop are returned by pop (naming `what`)
  // instead of going to the uncaptured-error record. Scopes nest.
  void push_error_scope();
  Status pop_error_scope(std::string_view what);

  WGPUInstance instance() const { return instance_.get(); }
  WGPUAdapter adapter() const { return adapter_.get(); }
  WGPUDevice handle() const { return device_.get(); }
  WGPUQueue queue() const { return queue_.get(); }

 private:
  struct ErrorRecord;
  Device();
  bool probe_feature(Feature feature);

  DeviceOptions options_;
  InstanceHandle instance_;
  AdapterHandle adapter_;
  DeviceHandle device_;
  QueueHandle queue_;
  AdapterInfo adapter_info_;
  Limits limits_;
  std::vector<uint32_t> features_;  // the library's WGPUFeatureName values
  uint32_t working_features_ = 0;   // bit per Feature that passed probe_feature
  std::unique_ptr<ErrorRecord> errors_;  // callbacks write here; outlives device_ (see ~Device)

  // Host-readable staging that Buffer::read() reuses (reads block, one at a time), grown to
  // the largest read so far: creating and zero-filling one per read costs more than the copy.
  friend class Buffer;
  BufferHandle readback_;
  uint64_t readback_size_ = 0;
};

}  // namespace wick::gpu
