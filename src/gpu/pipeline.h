// Compute pipelines from WGSL, cached by a hashed key struct.
//
// A key is (shader name, entry point, pipeline-override constants). Workgroup sizes and
// flags go in as override constants (`override wg_size: u32 = 64;`), never by editing the
// WGSL text, so one shader module serves every variant.
#pragma once

#include <webgpu/webgpu.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "gpu/device.h"
#include "gpu/handle.h"
#include "gpu/wgsl_registry.h"

namespace wick::gpu {

struct OverrideConstant {
  std::string name;
  double value = 0;
  bool operator==(const OverrideConstant& other) const;  // bit-exact on value
};

struct PipelineKey {
  std::string shader;               // name in the WGSL registry (the file stem)
  std::string entry_point = "main";
  std::vector<OverrideConstant> constants;  // kept sorted by name: use set()

  PipelineKey() = default;
  explicit PipelineKey(std::string shader_name, std::string entry = "main")
      : shader(std::move(shader_name)), entry_point(std::move(entry)) {}
  // From a generated constant (wgsl/wick_gpu_shaders.h): the way kernels name shaders.
  explicit PipelineKey(ShaderName shader_name, std::string entry = "main")
      : shader(shader_name.name), entry_point(std::move(entry)) {}
  // Sets (or replaces) an override constant. Returns *this for chaining.
  PipelineKey& set(std::string_view name, double value);

  bool operator==(const PipelineKey& other) const = default;
  // For messages: "axpb:main{wg_size=64}".
  std::string to_string() const;
};

struct PipelineKeyHash {
  size_t operator()(const PipelineKey& key) const noexcept;
};

class ComputePipeline {
 public:
  const PipelineKey& key() const { return key_; }
  WGPUComputePipeline handle() const { return pipeline_.get(); }
  // Layout of @group(0), derived from the shader (auto layout).
  WGPUBindGroupLayout bind_group_layout() const { return layout_.get(); }

 private:
  friend class PipelineCache;
  PipelineKey key_;
  ComputePipelineHandle pipeline_;
  BindGroupLayoutHandle layout_;
};

// Where WGSL text comes from for a shader name: the embedded registry of the library that
// owns the shaders (the WebGPU delegate's is webgpu::find_wgsl, webgpu/wgsl_shaders.h).
// Without one, only get(key, wgsl) finds a shader.
using ShaderSource = std::function<std::string_view(std::string_view name)>;

// Not thread-safe. Holds its shader modules and pipelines until it is destroyed.
class PipelineCache {
 public:
  explicit PipelineCache(std::shared_ptr<Device> device, ShaderSource source = nullptr);
  ~PipelineCache();
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  // The pipeline for `key`, compiled on first use; WGSL looked up by key.shader.
  Result<std::shared_ptr<const ComputePipeline>> get(const PipelineKey& key);
  // Same with the WGSL given here. A name must always be given the same text.
  Result<std::shared_ptr<const ComputePipeline>> get(const PipelineKey& key,
                                                     std::string_view wgsl);

  // Compiles (and keeps) the named shader's module without building a pipeline: for
  // warming up at load time, and for checking that every embedded shader compiles.
  Status prepare_shader(const std::string& name);

  size_t pipeline_count() const { return pipelines_.size(); }
  size_t shader_module_count() const { return modules_.size(); }
  Device& device() const { return *device_; }

 private:
  struct Module {
    ShaderModuleHandle handle;
    size_t source_hash = 0;
  };
  Result<WGPUShaderModule> module_for(const std::string& name, std::string_view wgsl);

  std::shared_ptr<Device> device_;
  ShaderSource source_;
  std::unordered_map<std::string, Module> modules_;
  std::unordered_map<PipelineKey, std::shared_ptr<const ComputePipeline>, PipelineKeyHash>
      pipelines_;
};

}  // namespace wick::gpu
