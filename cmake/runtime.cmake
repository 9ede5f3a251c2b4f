# The bottom four layers, one library each, every one linking only the layers below it:
#   wick_core         src/core          Status/Result, dtypes, tensors, UTF-8
#   wick_format       src/format        the .pte/.ptd reader and the named-data interface
#   wick_runtime      src/runtime       Program/Method, values, memory plan, delegate and
#                                       kernel registries (names no kernel library)
#   wick_kernels_cpu  src/kernels/cpu   the portable CPU kernels, which the entry points
#                                       register into the runtime's kernel registry
# Included first by the top-level CMakeLists.txt.
file(GLOB WICK_CORE_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/core/*.cpp)
add_library(wick_core STATIC ${WICK_CORE_SOURCES})
target_include_directories(wick_core PUBLIC ${CMAKE_SOURCE_DIR}/src ${WICK_GEN_DIR})
wick_precompile_headers(wick_core)
# The CPU kernels' thread pool and the registries' locks use std::thread and std::mutex
# natively; the Wasm build without pthreads runs the pool on the calling thread.
if(NOT EMSCRIPTEN)
  find_package(Threads REQUIRED)
  target_link_libraries(wick_core PUBLIC Threads::Threads)
endif()

file(GLOB WICK_FORMAT_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/format/*.cpp)
add_library(wick_format STATIC ${WICK_FORMAT_SOURCES})
add_dependencies(wick_format wick_schemas)  # program_generated.h, flat_tensor_generated.h
target_link_libraries(wick_format PUBLIC wick_core)
wick_precompile_headers(wick_format <flatbuffers/flatbuffers.h>)

file(GLOB WICK_RUNTIME_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/runtime/*.cpp)
add_library(wick_runtime STATIC ${WICK_RUNTIME_SOURCES})
target_link_libraries(wick_runtime PUBLIC wick_format)
wick_precompile_headers(wick_runtime <flatbuffers/flatbuffers.h>)

file(GLOB WICK_KERNELS_CPU_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/kernels/cpu/*.cpp)
add_library(wick_kernels_cpu STATIC ${WICK_KERNELS_CPU_SOURCES})
target_link_libraries(wick_kernels_cpu PUBLIC wick_runtime)
wick_precompile_headers(wick_kernels_cpu)
# The heavy kernels are plain loops written for the compiler to vectorize, which -O2's
# cheap cost model leaves scalar where it needs an aliasing check.
if(NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  set_source_files_properties(
    ${CMAKE_SOURCE_DIR}/src/kernels/cpu/conv.cpp ${CMAKE_SOURCE_DIR}/src/kernels/cpu/linear_algebra.cpp
    ${CMAKE_SOURCE_DIR}/src/kernels/cpu/quantized.cpp ${CMAKE_SOURCE_DIR}/src/kernels/cpu/llm_ops.cpp
    ${CMAKE_SOURCE_DIR}/src/kernels/cpu/sgemm_tile.cpp ${CMAKE_SOURCE_DIR}/src/kernels/cpu/conv_gemm.cpp
    ${CMAKE_SOURCE_DIR}/src/kernels/cpu/conv_depthwise.cpp ${CMAKE_SOURCE_DIR}/src/kernels/cpu/linear_gemm.cpp
    ${CMAKE_SOURCE_DIR}/src/kernels/cpu/conv_narrow.cpp ${CMAKE_SOURCE_DIR}/src/kernels/cpu/unary.cpp
    PROPERTIES COMPILE_OPTIONS -O3)
endif()
