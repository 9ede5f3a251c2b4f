# The VK00 plan (src/vkgraph: the Vulkan delegate blob read into plain values, shared by
# both executors) and the CPU executor of VK00 graphs (src/vkcpu: the "VulkanBackend"
# served on the portable CPU kernels when there is no WebGPU adapter). Neither needs a
# GPU, so both are in every build (ASan and Wasm included).
file(GLOB WICK_VKGRAPH_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/vkgraph/*.cpp)
add_library(wick_vkgraph STATIC ${WICK_VKGRAPH_SOURCES})
add_dependencies(wick_vkgraph wick_schemas)
target_link_libraries(wick_vkgraph PUBLIC wick_runtime)

file(GLOB WICK_VKCPU_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/vkcpu/*.cpp)
if(WICK_VKCPU_SOURCES)
  add_library(wick_vkcpu STATIC ${WICK_VKCPU_SOURCES})
  target_link_libraries(wick_vkcpu PUBLIC wick_vkgraph wick_runtime)
  target_compile_definitions(wick_vkcpu PUBLIC WICK_HAVE_VKCPU=1)
endif()

# wick_backends (src/backends: which executor serves "VulkanBackend") needs the WebGPU
# delegate when the build has one, which cmake/webgpu_delegate.cmake defines after this
# file: it is made once every part is included, and linked into the programs that choose.
function(_wick_finish_vkgraph)
  add_library(wick_backends STATIC ${PROJECT_SOURCE_DIR}/src/backends/choice.cpp)
  target_link_libraries(wick_backends PUBLIC wick_vkcpu)
  if(TARGET wick_webgpu)
    target_link_libraries(wick_backends PUBLIC wick_webgpu)
  endif()
  foreach(_t wick wick_tests wick_gpu_tests wick_upscale)
    if(TARGET ${_t})
      target_link_libraries(${_t} PRIVATE wick_backends)
    endif()
  endforeach()
  # The wasm bundle is made by a deferred call of its own, after this one.
  cmake_language(DEFER CALL _wick_link_backends_wasm)
endfunction()
function(_wick_link_backends_wasm)
  if(TARGET wick_wasm)
    target_link_libraries(wick_wasm PRIVATE wick_backends)
  endif()
endfunction()
cmake_language(DEFER CALL _wick_finish_vkgraph)

# The CPU kernels' thread pool (src/kernels/cpu/thread_pool.cpp) uses std::thread natively;
# the Wasm build without pthreads runs it on the calling thread.
if(NOT EMSCRIPTEN)
  find_package(Threads REQUIRED)
  target_link_libraries(wick_runtime PUBLIC Threads::Threads)
endif()

# The heavy kernels are plain loops written for the compiler to vectorize, which -O2's
# cheap cost model leaves scalar where it needs an aliasing check.
if(NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  set_source_files_properties(
    ${CMAKE_SOURCE_DIR}/src/kernels/cpu/conv.cpp ${CMAKE_SOURCE_DIR}/src/kernels/cpu/linear_algebra.cpp
    ${CMAKE_SOURCE_DIR}/src/kernels/cpu/quantized.cpp ${CMAKE_SOURCE_DIR}/src/kernels/cpu/llm_ops.cpp
    ${CMAKE_SOURCE_DIR}/src/kernels/cpu/sgemm_tile.cpp ${CMAKE_SOURCE_DIR}/src/kernels/cpu/conv_gemm.cpp
    ${CMAKE_SOURCE_DIR}/src/kernels/cpu/conv_depthwise.cpp ${CMAKE_SOURCE_DIR}/src/kernels/cpu/linear_gemm.cpp
    ${CMAKE_SOURCE_DIR}/src/kernels/cpu/conv_narrow.cpp ${CMAKE_SOURCE_DIR}/src/kernels/cpu/unary.cpp
    TARGET_DIRECTORY wick_runtime PROPERTIES COMPILE_OPTIONS -O3)
endif()
