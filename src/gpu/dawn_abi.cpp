#include "gpu/dawn_abi.h"

#ifndef __EMSCRIPTEN__
#include <dlfcn.h>
#endif

#include <cstdio>

namespace wick::gpu::dawn_abi {

namespace {

// The older WGPUInstanceDescriptor the legacy library reads.
struct LegacyInstanceCapabilities {
  WGPUChainedStruct* next_in_chain;
  WGPUBool timed_wait_any_enable;
  size_t timed_wait_any_max_count;
};
struct LegacyInstanceDescriptor {
  WGPUChainedStruct* next_in_chain;
  LegacyInstanceCapabilities capabilities;
};
static_assert(sizeof(void*) != 8 || sizeof(LegacyInstanceDescriptor) == 32, "x86-64/aarch64 layout");

struct FeatureEntry {
  const char* name;
  uint32_t legacy;   // the legacy library's number
  uint32_t current;  // webgpu.h's number
};

// The standard features; Dawn-only ones (0x5xxxx) are renumbered too and print as hex.
constexpr FeatureEntry kFeatures[] = {
    {"core-features-and-limits", 0x12, WGPUFeatureName_CoreFeaturesAndLimits},
    {"depth-clip-control", 0x01, WGPUFeatureName_DepthClipControl},
    {"depth32float-stencil8", 0x02, WGPUFeatureName_Depth32FloatStencil8},
    {"timestamp-query", 0x03, WGPUFeatureName_TimestampQuery},
    {"texture-compression-bc", 0x04, WGPUFeatureName_TextureCompressionBC},
    {"texture-compression-bc-sliced-3d", 0x05, WGPUFeatureName_TextureCompressionBCSliced3D},
    {"texture-compression-etc2", 0x06, WGPUFeatureName_TextureCompressionETC2},
    {"texture-compression-astc", 0x07, WGPUFeatureName_TextureCompressionASTC},
    {"texture-compression-astc-sliced-3d", 0x08, WGPUFeatureName_TextureCompressionASTCSliced3D},
    {"indirect-first-instance", 0x09, WGPUFeatureName_IndirectFirstInstance},
    {"shader-f16", 0x0A, WGPUFeatureName_ShaderF16},
    {"rg11b10ufloat-renderable", 0x0B, WGPUFeatureName_RG11B10UfloatRenderable},
    {"bgra8unorm-storage", 0x0C, WGPUFeatureName_BGRA8UnormStorage},
    {"float32-filterable", 0x0D, WGPUFeatureName_Float32Filterable},
    {"float32-blendable", 0x0E, WGPUFeatureName_Float32Blendable},
    {"clip-distances", 0x0F, WGPUFeatureName_ClipDistances},
    {"dual-source-blending", 0x10, WGPUFeatureName_DualSourceBlending},
    {"subgroups", 0x11, WGPUFeatureName_Subgroups},
    {"chromium-experimental-subgroup-matrix", 0x50037, WGPUFeatureName_ChromiumExperimentalSubgroupMatrix},
    // The same number in both (checked by writing a timestamp inside a pass on the legacy
    // library: Device::probe_feature).
    {"chromium-experimental-timestamp-query-inside-passes", 0x50003,
     WGPUFeatureName_ChromiumExperimentalTimestampQueryInsidePasses},
};

bool detect_legacy() {
#ifdef __EMSCRIPTEN__
  return false;  // webgpu.h is implemented in src/gpu/web against these very headers
#else
  // Symbols of the library already loaded into this process.
  const bool has_capabilities = dlsym(RTLD_DEFAULT, "wgpuGetInstanceCapabilities") != nullptr;
  const bool has_instance_features = dlsym(RTLD_DEFAULT, "wgpuGetInstanceFeatures") != nullptr;
  return has_capabilities && !has_instance_features;
#endif
}

}  // namespace

bool is_legacy() {
  static const bool legacy = detect_legacy();
  return legacy;
}

WGPUInstance create_instance(bool allow_unsafe_apis) {
  const char* enabled[] = {"allow_unsafe_apis"};
  WGPUDawnTogglesDescriptor toggles = WGPU_DAWN_TOGGLES_DESCRIPTOR_INIT;
  toggles.enabledToggleCount = 1;
  toggles.enabledToggles = enabled;
  WGPUChainedStruct* chain = allow_unsafe_apis ? &toggles.chain : nullptr;
  if (is_legacy()) {
    LegacyInstanceDescriptor desc = {};
    desc.next_in_chain = chain;
    desc.capabilities.timed_wait_any_enable = 1;
    return wgpuCreateInstance(reinterpret_cast<const WGPUInstanceDescriptor*>(&desc));
  }
  WGPUInstanceFeatureName features[] = {WGPUInstanceFeatureName_TimedWaitAny};
  WGPUInstanceDescriptor desc = WGPU_INSTANCE_DESCRIPTOR_INIT;
  desc.nextInChain = chain;
  desc.requiredFeatureCount = 1;
  desc.requiredFeatures = features;
  return wgpuCreateInstance(&desc);
}

WGPUFeatureName feature_value(Feature feature) {
  const char* name = feature_name(feature);
  for (const FeatureEntry& e : kFeatures) {
    if (std::string(e.name) == name) {
      return static_cast<WGPUFeatureName>(is_legacy() ? e.legacy : e.current);
    }
  }
  return WGPUFeatureName_Force32;
}

std::string feature_label(uint32_t value) {
  for (const FeatureEntry& e : kFeatures) {
    if ((is_legacy() ? e.legacy : e.current) == value) return e.name;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "feature-0x%x", value);
  return buf;
}

}  // namespace wick::gpu::dawn_abi
