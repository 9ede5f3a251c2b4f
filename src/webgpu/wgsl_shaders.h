// The WebGPU delegate's shaders: every *.wgsl under src/webgpu, embedded into wick_webgpu
// at build time (cmake/webgpu_delegate.cmake, wick_embed_wgsl; gpu/wgsl_registry.h says
// how). The delegate's PipelineCache reads them through find_wgsl.
#pragma once

#include <string_view>
#include <vector>

namespace wick::webgpu {

// The WGSL text of the named shader (with its modules expanded), or an empty view.
std::string_view find_wgsl(std::string_view name);
// Every embedded shader's name, sorted.
std::vector<std::string_view> wgsl_names();

}  // namespace wick::webgpu
