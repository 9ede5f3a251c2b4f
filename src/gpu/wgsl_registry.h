// Shader names, and how a library's WGSL is embedded into the binary at build time.
//
// cmake/webgpu.cmake (wick_embed_wgsl) turns every *.wgsl under a library's source folder
// into a generated .cpp of that library, which defines, in the namespace the library
// chooses,
//   std::string_view find_wgsl(std::string_view name);   // "" when there is none
//   std::vector<std::string_view> wgsl_names();           // sorted
// The WebGPU delegate's shaders (src/webgpu) are in wick_webgpu as webgpu::find_wgsl
// (webgpu/wgsl_shaders.h), the tests' own in wick_gpu_test_wgsl as gpu::test::find_wgsl:
// gpu/ embeds none, so no shader of a layer above lives in this one. A PipelineCache is
// given the registry to read (gpu/pipeline.h, ShaderSource).
//
// A shader's name is its file stem (src/webgpu/ops/matmul/matmul_tiled.wgsl ->
// "matmul_tiled"), so stems must be unique. Files named *.inc.wgsl are not shaders: they
// are modules that shaders pull in with a `//#include "name.inc.wgsl"` line, expanded at
// embed time (docs/gpu.md, "Shared WGSL: modules").
//
// The same step writes, at configure time, a header of one constant per shader
// ("wgsl/<prefix>_shaders.h"; the delegate's is wgsl/wick_gpu_shaders.h):
//   wick::gpu::shaders::matmul_tiled   // a ShaderName; a misspelt name does not compile
#pragma once

#include <string_view>

namespace wick::gpu {

// A shader's registry name, made only by the generated shader-name headers (and tests):
// PipelineKey takes one, so a kernel names its shader by a constant the compiler checks.
struct ShaderName {
  std::string_view name;
};

}  // namespace wick::gpu
