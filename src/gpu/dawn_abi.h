// Where the Dawn library and the webgpu.h we compile against disagree.
//
// The pinned pair (scripts/fetch_dawn.sh) comes from two Dawn revisions: the library
// (npm bun-webgpu-linux-x64 0.1.7) predates the headers (npm react-native-webgpu 0.10.2)
// in two ways that matter here, both checked against the library itself:
//   - WGPUInstanceDescriptor: the library reads the older
//       { nextInChain, WGPUInstanceCapabilities{ nextInChain, timedWaitAnyEnable,
//         timedWaitAnyMaxCount } }
//     layout, not { nextInChain, requiredFeatureCount, requiredFeatures, requiredLimits }.
//   - WGPUFeatureName: the library numbers features without core-features-and-limits
//     first (timestamp-query = 3, shader-f16 = 10, subgroups = 17), the headers with it
//     (timestamp-query = 9, shader-f16 = 11, subgroups = 18); Dawn's own features differ
//     too (chromium-experimental-subgroup-matrix: 0x50037 against 0x50034, found by
//     requesting each value on a device and reading the name in Dawn's error message).
//     Struct sTypes agree (AdapterPropertiesSubgroupMatrixConfigs = 0x5003B in both).
// Callback signatures, limits and the other structs gpu/ uses match (checked by probing
// each callback's arguments). The library is recognised by what it exports
// (wgpuGetInstanceCapabilities, and no wgpuGetInstanceFeatures), so a matching pair
// takes the plain path. Internal to the native gpu/ implementation.
#pragma once

#include <webgpu/webgpu.h>

#include <cstdint>
#include <string>

#include "gpu/device.h"

namespace wick::gpu::dawn_abi {

// True when the loaded library uses the older instance and feature ABI described above.
bool is_legacy();

// An instance with timed waits enabled (wgpuInstanceWaitAny with a timeout), or null.
// allow_unsafe_apis: Dawn's toggle of that name, which exposes experimental features
// (chromium-experimental-subgroup-matrix).
WGPUInstance create_instance(bool allow_unsafe_apis = false);

// The library's value for a feature.
WGPUFeatureName feature_value(Feature feature);

// WebGPU's name for a library feature value ("shader-f16"); unknown ones as hex.
std::string feature_label(uint32_t value);

}  // namespace wick::gpu::dawn_abi
