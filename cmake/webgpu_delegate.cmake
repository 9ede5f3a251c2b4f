# The WebGPU delegate (src/webgpu): VK00 graphs as WGSL compute dispatches.
# Needs wick_gpu (cmake/webgpu.cmake, included just before this file).
if(WICK_HAVE_WEBGPU)
  file(GLOB_RECURSE WICK_WEBGPU_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/webgpu/*.cpp)
  add_library(wick_webgpu STATIC ${WICK_WEBGPU_SOURCES})
  add_dependencies(wick_webgpu wick_schemas)
  target_link_libraries(wick_webgpu PUBLIC wick_gpu wick_vkgraph wick_runtime)
  target_compile_definitions(wick_webgpu PUBLIC WICK_HAVE_WEBGPU_DELEGATE=1)
  list(APPEND WICK_EXTRA_LIBS wick_webgpu)
endif()

# The in-memory VK00 graph builder used by the per-operator tests.
if(WICK_HAVE_WEBGPU)
  set(WICK_TEST_EXTRA_SOURCES ${CMAKE_SOURCE_DIR}/tests/webgpu/single_op.cpp)
endif()
