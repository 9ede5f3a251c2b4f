# The WebGPU delegate (src/webgpu): VK00 graphs as WGSL compute dispatches. After
# cmake/webgpu.cmake (wick_gpu, wick_embed_wgsl) and cmake/vkgraph.cmake.
#
# It embeds its own shaders (every *.wgsl under src/webgpu) as webgpu::find_wgsl
# (src/webgpu/wgsl_shaders.h). The generated name and struct-size headers keep the paths
# and namespace the op files use, wgsl/wick_gpu_shaders.h with gpu::shaders::<stem> and
# wgsl/wick_gpu_struct_sizes.h with gpu::wgsl_size::<module>_<Struct>, so that operator
# branches written against them merge unchanged; rename both to wick_webgpu / webgpu:: in
# one commit once no such branch is open.
if(WICK_HAVE_WEBGPU)
  file(GLOB_RECURSE WICK_WEBGPU_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/webgpu/*.cpp)
  add_library(wick_webgpu STATIC ${WICK_WEBGPU_SOURCES})
  add_dependencies(wick_webgpu wick_schemas)
  target_link_libraries(wick_webgpu PUBLIC wick_gpu wick_vkgraph)
  target_compile_definitions(wick_webgpu PUBLIC WICK_HAVE_WEBGPU_DELEGATE=1)
  wick_precompile_headers(wick_webgpu <flatbuffers/flatbuffers.h>)
  wick_embed_wgsl(wick_webgpu "${CMAKE_SOURCE_DIR}/src/webgpu"
                  NAMESPACE wick::webgpu NAMES_NAMESPACE wick::gpu HEADER_PREFIX wick_gpu)
endif()
