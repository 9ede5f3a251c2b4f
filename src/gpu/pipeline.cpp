#include "gpu/pipeline.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "gpu/strings.h"
#include "gpu/object_counts.h"

namespace wick::gpu {

namespace {

uint64_t double_bits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

void hash_combine(size_t& seed, size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2);
}

std::string format_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The 1-based line `line` of `text`, without its newline.
std::string_view source_line(std::string_view text, uint64_t line) {
  size_t start = 0;
  for (uint64_t i = 1; i < line; ++i) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) return {};
    start = nl + 1;
  }
  size_t end = text.find('\n', start);
  return text.substr(start, end == std::string_view::npos ? text.size() - start : end - start);
}

const char* message_type_name(WGPUCompilationMessageType type) {
  switch (type) {
    case WGPUCompilationMessageType_Error: return "error";
    case WGPUCompilationMessageType_Warning: return "warning";
    default: return "info";
  }
}

}  // namespace

bool OverrideConstant::operator==(const OverrideConstant& other) const {
  return name == other.name && double_bits(value) == double_bits(other.value);
}

PipelineKey& PipelineKey::set(std::string_view name, double value) {
  auto it = std::lower_bound(constants.begin(), constants.end(), name,
                             [](const OverrideConstant& c, std::string_view n) { return c.name < n; });
  if (it != constants.end() && it->name == name) {
    it->value = value;
  } else {
    constants.insert(it, OverrideConstant{std::string(name), value});
  }
  return *this;
}

std::string PipelineKey::to_string() const {
  std::string out = shader + ":" + entry_point;
  if (!constants.empty()) {
    out += "{";
    for (size_t i = 0; i < constants.size(); ++i) {
      if (i) out += ",";
      out += constants[i].name + "=" + format_double(constants[i].value);
    }
    out += "}";
  }
  return out;
}

size_t PipelineKeyHash::operator()(const PipelineKey& key) const noexcept {
  std::hash<std::string> hs;
  size_t seed = hs(key.shader);
  hash_combine(seed, hs(key.entry_point));
  for (const OverrideConstant& c : key.constants) {
    hash_combine(seed, hs(c.name));
    hash_combine(seed, std::hash<uint64_t>{}(double_bits(c.value)));
  }
  return seed;
}

PipelineCache::PipelineCache(std::shared_ptr<Device> device, ShaderSource source)
    : device_(std::move(device)), source_(std::move(source)) {}

PipelineCache::~PipelineCache() = default;

Result<WGPUShaderModule> PipelineCache::module_for(const std::string& name,
                                                   std::string_view wgsl) {
  const size_t source_hash = std::hash<std::string_view>{}(wgsl);
  auto it = modules_.find(name);
  if (it != modules_.end()) {
    if (it->second.source_hash != source_hash) {
      return make_error(ErrorCode::kInvalidArgument,
                        "shader '" + name + "': given different WGSL text than before");
    }
    return it->second.handle.get();
  }

  WGPUShaderSourceWGSL wgsl_desc = WGPU_SHADER_SOURCE_WGSL_INIT;
  wgsl_desc.code = to_wgpu(wgsl);
  WGPUShaderModuleDescriptor desc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  desc.nextInChain = &wgsl_desc.chain;
  desc.label = to_wgpu(name);
  device_->push_error_scope();
  ShaderModuleHandle module(wgpuDeviceCreateShaderModule(device_->handle(), &desc));
  count_pipeline_created();
  Status scope = device_->pop_error_scope("shader '" + name + "'");

  // Tint's messages carry line and column; they say more than the error scope's text.
  struct Reply {
    std::string errors;
    int error_count = 0;
    std::string_view source;
    std::string name;
  } reply;
  reply.source = wgsl;
  reply.name = name;
  WGPUCompilationInfoCallbackInfo cb = WGPU_COMPILATION_INFO_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = [](WGPUCompilationInfoRequestStatus status, const WGPUCompilationInfo* info,
                   void* r, void*) {
    auto* reply = static_cast<Reply*>(r);
    if (status != WGPUCompilationInfoRequestStatus_Success || info == nullptr) return;
    for (size_t i = 0; i < info->messageCount; ++i) {
      const WGPUCompilationMessage& m = info->messages[i];
      if (m.type != WGPUCompilationMessageType_Error) continue;
      ++reply->error_count;
      reply->errors += "\n  " + reply->name + ".wgsl:" + std::to_string(m.lineNum) + ":" +
                       std::to_string(m.linePos) + ": " + message_type_name(m.type) + ": " +
                       from_wgpu(m.message);
      std::string_view line = source_line(reply->source, m.lineNum);
      if (m.lineNum > 0 && !line.empty()) {
        reply->errors += "\n    " + std::string(line);
        if (m.linePos > 0) reply->errors += "\n    " + std::string(m.linePos - 1, ' ') + "^";
      }
    }
  };
  cb.userdata1 = &reply;
  if (module) {
    WICK_RETURN_IF_ERROR(device_->wait(wgpuShaderModuleGetCompilationInfo(module.get(), cb),
                                       "shader '" + name + "': compilation info"));
  }
  if (reply.error_count > 0) {
    return make_error(ErrorCode::kInvalidArgument,
                      "shader '" + name + "': WGSL compilation failed:" + reply.errors);
  }
  if (!scope.ok()) return scope;
  if (!module) {
    return make_error(ErrorCode::kInternal, "shader '" + name + "': module creation failed");
  }
  WGPUShaderModule raw = module.get();
  modules_.emplace(name, Module{std::move(module), source_hash});
  return raw;
}

Status PipelineCache::prepare_shader(const std::string& name) {
  WICK_RETURN_IF_ERROR(device_->check().with_context("shader '" + name + "'"));
  std::string_view wgsl = source_ ? source_(name) : std::string_view{};
  if (wgsl.empty()) {
    return make_error(ErrorCode::kNotFound, "shader '" + name + "': no WGSL source");
  }
  return module_for(name, wgsl).status();
}

Result<std::shared_ptr<const ComputePipeline>> PipelineCache::get(const PipelineKey& key) {
  auto it = pipelines_.find(key);
  if (it != pipelines_.end()) return it->second;
  std::string_view wgsl = source_ ? source_(key.shader) : std::string_view{};
  if (wgsl.empty()) {
    return make_error(ErrorCode::kNotFound, "shader '" + key.shader + "': no WGSL source");
  }
  return get(key, wgsl);
}

Result<std::shared_ptr<const ComputePipeline>> PipelineCache::get(const PipelineKey& key,
                                                                  std::string_view wgsl) {
  auto it = pipelines_.find(key);
  if (it != pipelines_.end()) return it->second;
  WICK_RETURN_IF_ERROR(device_->check().with_context("pipeline " + key.to_string()));
  if (key.shader.empty()) {
    return make_error(ErrorCode::kInvalidArgument, "pipeline: empty shader name");
  }
  WICK_ASSIGN_OR_RETURN(WGPUShaderModule module, module_for(key.shader, wgsl));

  std::vector<WGPUConstantEntry> constants;
  constants.reserve(key.constants.size());
  for (const OverrideConstant& c : key.constants) {
    WGPUConstantEntry entry = WGPU_CONSTANT_ENTRY_INIT;
    entry.key = to_wgpu(c.name);
    entry.value = c.value;
    constants.push_back(entry);
  }
  const std::string label = key.to_string();
  WGPUComputePipelineDescriptor desc = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  desc.label = to_wgpu(label);
  desc.layout = nullptr;  // auto layout from the shader's bindings
  desc.compute.module = module;
  desc.compute.entryPoint = to_wgpu(key.entry_point);
  desc.compute.constantCount = constants.size();
  desc.compute.constants = constants.data();

  device_->push_error_scope();
  ComputePipelineHandle pipeline(wgpuDeviceCreateComputePipeline(device_->handle(), &desc));
  count_pipeline_created();
  BindGroupLayoutHandle layout;
  if (pipeline) layout = BindGroupLayoutHandle(wgpuComputePipelineGetBindGroupLayout(pipeline.get(), 0));
  WICK_RETURN_IF_ERROR(device_->pop_error_scope("pipeline " + label));
  if (!pipeline) return make_error(ErrorCode::kInternal, "pipeline " + label + ": creation failed");

  auto entry = std::make_shared<ComputePipeline>();
  entry->key_ = key;
  entry->pipeline_ = std::move(pipeline);
  entry->layout_ = std::move(layout);
  pipelines_.emplace(key, entry);
  return std::shared_ptr<const ComputePipeline>(entry);
}

}  // namespace wick::gpu
