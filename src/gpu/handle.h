// Owning wrapper for a WebGPU object handle (WGPUBuffer, WGPUDevice, ...): releases it once.
// WebGPU objects are reference counted by the implementation; Handle holds exactly one reference.
#pragma once

#include <webgpu/webgpu.h>

#include <utility>

namespace wick::gpu {

template <class T, void (*AddRef)(T), void (*Release)(T)>
class Handle {
 public:
  Handle() = default;
  // Takes over a reference the caller already owns (what wgpuDeviceCreate* returns).
  explicit Handle(T raw) : raw_(raw) {}
  ~Handle() { reset(); }

  Handle(const Handle& other) : raw_(other.raw_) {
    if (raw_) AddRef(raw_);
  }
  Handle& operator=(const Handle& other) {
    if (this != &other) {
      if (other.raw_) AddRef(other.raw_);
      reset();
      raw_ = other.raw_;
    }
    return *this;
  }
  Handle(Handle&& other) noexcept : raw_(std::exchange(other.raw_, nullptr)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      raw_ = std::exchange(other.raw_, nullptr);
    }
    return *this;
  }

  void reset() {
    if (raw_) Release(std::exchange(raw_, nullptr));
  }
  T get() const { return raw_; }
  explicit operator bool() const { return raw_ != nullptr; }

 private:
  T raw_ = nullptr;
};

using InstanceHandle = Handle<WGPUInstance, wgpuInstanceAddRef, wgpuInstanceRelease>;
using AdapterHandle = Handle<WGPUAdapter, wgpuAdapterAddRef, wgpuAdapterRelease>;
using DeviceHandle = Handle<WGPUDevice, wgpuDeviceAddRef, wgpuDeviceRelease>;
using QueueHandle = Handle<WGPUQueue, wgpuQueueAddRef, wgpuQueueRelease>;
using BufferHandle = Handle<WGPUBuffer, wgpuBufferAddRef, wgpuBufferRelease>;
using ShaderModuleHandle = Handle<WGPUShaderModule, wgpuShaderModuleAddRef, wgpuShaderModuleRelease>;
using ComputePipelineHandle =
    Handle<WGPUComputePipeline, wgpuComputePipelineAddRef, wgpuComputePipelineRelease>;
using BindGroupLayoutHandle =
    Handle<WGPUBindGroupLayout, wgpuBindGroupLayoutAddRef, wgpuBindGroupLayoutRelease>;
using BindGroupHandle = Handle<WGPUBindGroup, wgpuBindGroupAddRef, wgpuBindGroupRelease>;
using CommandEncoderHandle =
    Handle<WGPUCommandEncoder, wgpuCommandEncoderAddRef, wgpuCommandEncoderRelease>;
using CommandBufferHandle =
    Handle<WGPUCommandBuffer, wgpuCommandBufferAddRef, wgpuCommandBufferRelease>;
using ComputePassHandle =
    Handle<WGPUComputePassEncoder, wgpuComputePassEncoderAddRef, wgpuComputePassEncoderRelease>;
using QuerySetHandle = Handle<WGPUQuerySet, wgpuQuerySetAddRef, wgpuQuerySetRelease>;

}  // namespace wick::gpu
