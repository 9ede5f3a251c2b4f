# The wasm build (Emscripten): wick.js + wick.wasm, the runtime behind an
# ExecuTorch-compatible JavaScript API (src/wasm). Configure with
#   emcmake cmake -S . -B build-wasm -G Ninja -DWICK_BUILD_TESTS=OFF
# (scripts/build_wasm.sh does it). The bundle works in a page, a worker and Node.
#
# Two variants, each from its own build folder (every object of the threaded one is
# compiled with -pthread: shared memory needs atomics in all of them):
#   build-wasm/          wick.js         one thread, any page
#   build-wasm-threads/  wick-threads.js -pthread: the CPU kernels' pool (thread_pool.cpp)
#       on Web Workers; configured with -DWICK_WASM_THREADS=ON and -pthread in
#       CMAKE_C_FLAGS/CMAKE_CXX_FLAGS. Needs SharedArrayBuffer, so a cross-origin-isolated
#       page (COOP/COEP headers) or Node; package/index.mjs picks it there.
option(WICK_WASM_THREADS "wasm: build the -pthread bundle (wick-threads.js)" OFF)
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
# A target option, not a per-file one, so that the target's precompiled header
# (cmake/pch.cmake) is built with it too: clang refuses a PCH built without a target
# feature that the file has.
target_compile_options(wick_kernels_cpu PRIVATE -msimd128)

# Included by the top-level CMakeLists.txt after every layer's library is defined. The
# threaded bundle is CPU only (below): configured with -DWICK_WEBGPU=OFF, it skips src/gpu
# and src/webgpu, 44% of the compile.
if(TARGET wick_webgpu OR WICK_WASM_THREADS)
  set(_dir "${PROJECT_SOURCE_DIR}/src/wasm")
  # c_api_llm.cpp + llm.js: the LLM layer (src/llm) behind et.LLM.
  add_executable(wick_wasm "${_dir}/c_api.cpp" "${_dir}/c_api_llm.cpp")
  target_link_libraries(wick_wasm PRIVATE wick_llm wick_backends wick_kernels_cpu)
  if(WICK_WASM_THREADS)
    if(NOT CMAKE_CXX_FLAGS MATCHES "-pthread")
      message(FATAL_ERROR "wasm: WICK_WASM_THREADS needs -pthread in CMAKE_CXX_FLAGS and CMAKE_C_FLAGS")
    endif()
    # The CPU only: package/index.mjs takes this bundle where the delegates run on the
    # CPU, and threads_pre.js refuses WebGPU. So no Asyncify (nothing waits on a GPU):
    # its link is a third of the other's, and its code is not instrumented.
    # Its own factory name, so that both bundles can be loaded in one page; the pool's
    # workers (wick-threads.worker.js) import this file and call it too. They start with
    # the runtime (threads_pre.js says how many): a worker made later would start only
    # once the page's thread returns to its event loop.
    set_target_properties(wick_wasm PROPERTIES OUTPUT_NAME wick-threads SUFFIX ".js")
    target_link_options(wick_wasm PRIVATE -pthread -sEXPORT_NAME=createExecuTorchThreads
      -sPTHREAD_POOL_SIZE=Module.wickPoolSize "SHELL:--pre-js ${_dir}/threads_pre.js"
      "SHELL:--extern-post-js ${_dir}/export_global_threads.js")
    set_property(TARGET wick_wasm APPEND PROPERTY LINK_DEPENDS
      "${_dir}/threads_pre.js" "${_dir}/threads_post.js" "${_dir}/export_global_threads.js")
  else()
    set_target_properties(wick_wasm PROPERTIES OUTPUT_NAME wick SUFFIX ".js")
    target_link_options(wick_wasm PRIVATE -sEXPORT_NAME=createExecuTorch
      # WebGPU's promises are awaited inside C++ calls (src/gpu/web): Asyncify unwinds
      # the wasm stack there. Its save area must hold the deepest stack that waits.
      -sASYNCIFY=1 "-sASYNCIFY_IMPORTS=[wickgpu_wait,wickgpu_yield]" -sASYNCIFY_STACK_SIZE=262144
      # Functions that never wait on the GPU, left uninstrumented: the Asyncify pass is
      # most of the link's time, and instrumented code runs slower. asyncify_remove.txt
      # names (demangled, * a wildcard, one a line) the CPU kernels (wick::cpu), the JSON
      # and flatbuffer readers, the VK00 plan reader and the tokenizer: none calls into a
      # delegate, an LLM step or src/gpu, and Asyncify, which cannot see through their
      # function pointers and std::function, would otherwise instrument them all. A
      # function listed there must never be on the stack of a wait. No '<' in a line:
      # binaryen 108 splits the list at commas outside brackets, and fails on an unclosed one.
      "-sASYNCIFY_REMOVE=@${_dir}/asyncify_remove.txt"
      "SHELL:--extern-post-js ${_dir}/export_global.js")
    set_property(TARGET wick_wasm APPEND PROPERTY LINK_DEPENDS
      "${_dir}/export_global.js" "${_dir}/asyncify_remove.txt")
    # Emscripten runs Asyncify inside wasm-opt's -O3 pipeline, and at -O1 or above the
    # pass re-optimizes every function it instruments (1,700 here, half the code) with
    # passes of its own: 330-540 s of one core, where -O3 alone takes 50. With
    # WICK_WASM_FAST_LINK the bundle links at -O1, where emcc instruments without
    # optimizing (4 s), and wasm-opt -O3 then optimizes the instrumented module as a whole
    # (80 s). The same functions are instrumented and the JS is the same apart from -O1's
    # unminified names; the .wasm comes out ~15% larger (bench/results/ci_time.md).
    # scripts/test.sh builds this way; the package build does not.
    option(WICK_WASM_FAST_LINK "wasm: Asyncify without its own optimization, then wasm-opt -O3 (faster link, larger bundle)" OFF)
    if(WICK_WASM_FAST_LINK)
      find_program(WICK_WASM_OPT wasm-opt REQUIRED)
      target_link_options(wick_wasm PRIVATE -O1)
      # The flags emcc's own -O3 run passes, less Asyncify's (already applied).
      add_custom_command(TARGET wick_wasm POST_BUILD
        COMMAND "${WICK_WASM_OPT}" --post-emscripten -O3 --low-memory-unused --zero-filled-memory
                --strip-debug --strip-producers --mvp-features --enable-simd
                "$<TARGET_FILE_DIR:wick_wasm>/wick.wasm" -o "$<TARGET_FILE_DIR:wick_wasm>/wick.wasm"
        VERBATIM)
    endif()
  endif()
  target_link_options(wick_wasm PRIVATE
    -msimd128 -sMODULARIZE=1 -sENVIRONMENT=web,worker,node
    -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=64MB -sMAXIMUM_MEMORY=4GB
    -sFORCE_FILESYSTEM=1 "-sEXPORTED_FUNCTIONS=[_malloc,_free]"
    # ENV: the environment getenv() sees, so a page or bench can set the WICK_* switches
    # (docs/gpu.md) before the runtime starts: createExecuTorch({preRun: [(M) => M.ENV.X = ...]}).
    "-sEXPORTED_RUNTIME_METHODS=[ccall,cwrap,UTF8ToString,FS,ENV]"
    # A library must not take over the host's process: with these on, any uncaught
    # error of a Node app that imports the package printed the whole bundle and exit 7.
    -sNODEJS_CATCH_EXIT=0 -sNODEJS_CATCH_REJECTION=0
    # Lines kept: Node shows the source line of an uncaught error, which minified is
    # the whole bundle (gzip makes the difference small).
    "SHELL:--minify 0"
    "SHELL:--post-js ${_dir}/tensor_data.js" "SHELL:--post-js ${_dir}/runtime_calls.js"
    "SHELL:--post-js ${_dir}/api.js"
    "SHELL:--post-js ${_dir}/llm.js")
  set_property(TARGET wick_wasm APPEND PROPERTY LINK_DEPENDS
    "${_dir}/tensor_data.js" "${_dir}/runtime_calls.js" "${_dir}/api.js" "${_dir}/llm.js")
  if(WICK_WASM_THREADS)  # after api.js, whose export it calls
    target_link_options(wick_wasm PRIVATE "SHELL:--post-js ${_dir}/threads_post.js")
  endif()
else()
  message(FATAL_ERROR "wasm: the WebGPU delegate (wick_webgpu) was not configured")
endif()
