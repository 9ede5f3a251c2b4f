// WGSL sources embedded into the binary at build time.
//
// cmake/webgpu.cmake (wick_embed_wgsl) turns every *.wgsl under src/gpu/ and src/webgpu/
// into a generated .cpp that defines these functions; a shader's name is its file stem
// (src/webgpu/ops/matmul/matmul_tiled.wgsl -> "matmul_tiled"), so stems must be unique.
// Files named *.inc.wgsl are not shaders: they are modules that shaders pull in with a
// `//#include "name.inc.wgsl"` line, expanded at embed time (docs/gpu.md, "Shared WGSL: modules").
//
// The same step writes, at configure time, a header of one constant per shader
// ("wgsl/<target>_shaders.h", e.g. wgsl/wick_gpu_shaders.h for the runtime's registry):
//   wick::gpu::shaders::matmul_tiled   // a ShaderName; a misspelt name does not compile
#pragma once

#include <string_view>
#include <vector>

namespace wick::gpu {

// A shader's registry name, made only by the generated shader-name headers (and tests):
// PipelineKey takes one, so a kernel names its shader by a constant the compiler checks.
struct ShaderName {
  std::string_view name;
};

// The WGSL text of the named shader, or an empty view when there is none.
std::string_view find_wgsl(std::string_view name);
// Every embedded shader's name, sorted.
std::vector<std::string_view> wgsl_names();

}  // namespace wick::gpu
