# Image IO (src/image, libpng) and the examples (examples/CMakeLists.txt).
#
# Defines wick_image (PNG read/write as wick::Status, overlapped tiling) and links it into wick_tests. The
# examples link ${WICK_EXTRA_LIBS}, which cmake/webgpu*.cmake fill in after this file (the
# parts are included alphabetically), and wick_tests is created after every part; so both
# are wired up by a call deferred to the end of the top-level CMakeLists.txt, which
# include()s examples/CMakeLists.txt (deferred calls may not add subdirectories). A
# top-level `add_subdirectory(examples)` at the very end works too: the deferred call
# then skips it.
option(WICK_BUILD_EXAMPLES "Build the examples (wick_upscale)" ON)
if(EMSCRIPTEN)
  return()  # libpng and the native examples are not part of the wasm build
endif()

find_package(PNG REQUIRED)
add_library(wick_image STATIC ${CMAKE_CURRENT_LIST_DIR}/../src/image/png_io.cpp
                             ${CMAKE_CURRENT_LIST_DIR}/../src/image/tiling.cpp)
target_link_libraries(wick_image PUBLIC wick_runtime PNG::PNG)

function(_wick_finish_image_and_examples)
  if(TARGET wick_tests)
    target_link_libraries(wick_tests PRIVATE wick_image)
  endif()
  if(TARGET wick_gpu_tests)  # the tiled upscale on the WebGPU delegate
    target_link_libraries(wick_gpu_tests PRIVATE wick_image)
  endif()
  if(WICK_BUILD_EXAMPLES AND NOT TARGET wick_upscale)
    include(${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt)
  endif()
endfunction()
cmake_language(DEFER CALL _wick_finish_image_and_examples)
