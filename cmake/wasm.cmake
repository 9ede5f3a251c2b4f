# The wasm build (Emscripten): wick.js + wick.wasm, the runtime behind an
# ExecuTorch-compatible JavaScript API (src/wasm). Configure with
#   emcmake cmake -S . -B build-wasm -G Ninja -DWICK_BUILD_TESTS=OFF
# (scripts/build_wasm.sh does it). The bundle works in a page, a worker and Node.
if(NOT EMSCRIPTEN)
  return()
endif()

# Header-only host libraries (flatbuffers, nlohmann-json) are used from Debian's
# /usr/include, which cannot be put on the include path whole (glibc's headers would
# shadow Emscripten's): each is reached through a symlink in a folder of its own.
set(_wick_host_headers "${CMAKE_BINARY_DIR}/host_headers")
file(MAKE_DIRECTORY "${_wick_host_headers}")
foreach(_lib flatbuffers nlohmann)
  if(NOT EXISTS "/usr/include/${_lib}")
    message(FATAL_ERROR "wasm: /usr/include/${_lib} is missing (setup.sh installs it)")
  endif()
  file(CREATE_LINK "/usr/include/${_lib}" "${_wick_host_headers}/${_lib}" SYMBOLIC)
endforeach()
target_include_directories(wick_core SYSTEM PUBLIC "${_wick_host_headers}")

# Wasm SIMD128 for the CPU kernels (every current browser and Node runs it): clang turns
# their blocked loops (convolution, linear, 4-bit linear, elementwise) into f32x4
# operations. Appended, after cmake/runtime.cmake set -O3 on the hot files. The bundle is
# linked with it too, so that wasm-opt accepts the SIMD instructions.
file(GLOB _wick_kernel_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/kernels/cpu/*.cpp")
set_property(SOURCE ${_wick_kernel_sources} APPEND PROPERTY COMPILE_OPTIONS -msimd128)

# Included by the top-level CMakeLists.txt after every layer's library is defined.
if(TARGET wick_webgpu)
  set(_dir "${PROJECT_SOURCE_DIR}/src/wasm")
  # c_api_llm.cpp + llm.js: the LLM layer (src/llm) behind et.LLM.
  add_executable(wick_wasm "${_dir}/c_api.cpp" "${_dir}/c_api_llm.cpp")
  set_target_properties(wick_wasm PROPERTIES OUTPUT_NAME wick SUFFIX ".js")
  target_link_libraries(wick_wasm PRIVATE wick_llm wick_backends wick_kernels_cpu)
  target_link_options(wick_wasm PRIVATE
    -msimd128 -sMODULARIZE=1 -sEXPORT_NAME=createExecuTorch -sENVIRONMENT=web,worker,node
    -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=64MB -sMAXIMUM_MEMORY=4GB
    # WebGPU's promises are awaited inside C++ calls (src/gpu/web): Asyncify unwinds
    # the wasm stack there. Its save area must hold the deepest stack that waits.
    -sASYNCIFY=1 "-sASYNCIFY_IMPORTS=[wickgpu_wait,wickgpu_yield]" -sASYNCIFY_STACK_SIZE=262144
    -sFORCE_FILESYSTEM=1 "-sEXPORTED_FUNCTIONS=[_malloc,_free]"
    "-sEXPORTED_RUNTIME_METHODS=[ccall,cwrap,UTF8ToString,FS]"
    # A library must not take over the host's process: with these on, any uncaught
    # error of a Node app that imports the package printed the whole bundle and exit 7.
    -sNODEJS_CATCH_EXIT=0 -sNODEJS_CATCH_REJECTION=0
    # Lines kept: Node shows the source line of an uncaught error, which minified is
    # the whole bundle (gzip makes the difference small).
    "SHELL:--minify 0"
    "SHELL:--post-js ${_dir}/tensor_data.js" "SHELL:--post-js ${_dir}/runtime_calls.js"
    "SHELL:--post-js ${_dir}/api.js"
    "SHELL:--post-js ${_dir}/llm.js"
    "SHELL:--extern-post-js ${_dir}/export_global.js")
  set_property(TARGET wick_wasm APPEND PROPERTY LINK_DEPENDS
    "${_dir}/tensor_data.js" "${_dir}/runtime_calls.js" "${_dir}/api.js" "${_dir}/llm.js" "${_dir}/export_global.js")
else()
  message(FATAL_ERROR "wasm: the WebGPU delegate (wick_webgpu) was not configured")
endif()
