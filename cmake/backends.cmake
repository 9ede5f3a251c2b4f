# wick_backends (src/backends): which executor serves "VulkanBackend" delegates, the
# WebGPU delegate when the build has one, else (and as `auto`'s fallback) the CPU
# executor. After cmake/vkgraph.cmake and cmake/webgpu_delegate.cmake.
add_library(wick_backends STATIC ${CMAKE_SOURCE_DIR}/src/backends/choice.cpp)
target_link_libraries(wick_backends PUBLIC wick_vkcpu)
if(TARGET wick_webgpu)
  target_link_libraries(wick_backends PUBLIC wick_webgpu)
endif()
