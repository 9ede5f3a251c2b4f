// WGSL sources embedded into the binary at build time.
//
// cmake/webgpu.cmake (wick_embed_wgsl) turns every *.wgsl under src/gpu/ and src/webgpu/
// into a generated .cpp that defines these functions; a shader's name is its file stem
// (src/webgpu/ops/matmul/matmul_tiled.wgsl -> "matmul_tiled"), so stems must be unique.
#pragma once

#include <string_view>
#include <vector>

namespace wick::gpu {

// The WGSL text of the named shader, or an empty view when there is none.
std::string_view find_wgsl(std::string_view name);
// Every embedded shader's name, sorted.
std::vector<std::string_view> wgsl_names();

}  // namespace wick::gpu
