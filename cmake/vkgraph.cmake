# The VK00 plan (src/vkgraph: the Vulkan delegate blob read into plain values, shared by
# both executors) and the CPU executor of VK00 graphs (src/vkcpu: the "VulkanBackend"
# served on the portable CPU kernels when there is no WebGPU adapter). Neither needs a
# GPU, so both are in every build (ASan and Wasm included). After cmake/runtime.cmake.
file(GLOB WICK_VKGRAPH_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/vkgraph/*.cpp)
add_library(wick_vkgraph STATIC ${WICK_VKGRAPH_SOURCES})
add_dependencies(wick_vkgraph wick_schemas)  # vk00_generated.h
target_link_libraries(wick_vkgraph PUBLIC wick_runtime)
wick_precompile_headers(wick_vkgraph <flatbuffers/flatbuffers.h>)

file(GLOB WICK_VKCPU_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/vkcpu/*.cpp)
add_library(wick_vkcpu STATIC ${WICK_VKCPU_SOURCES})
target_link_libraries(wick_vkcpu PUBLIC wick_vkgraph wick_kernels_cpu)
wick_precompile_headers(wick_vkcpu)
target_compile_definitions(wick_vkcpu PUBLIC WICK_HAVE_VKCPU=1)
