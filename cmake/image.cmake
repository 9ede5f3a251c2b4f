# Image IO (src/image, libpng): wick_image, PNG read/write as wick::Status and overlapped
# tiling, for the examples and their tests. Not part of the Wasm build.
option(WICK_BUILD_EXAMPLES "Build the examples (wick_upscale)" ON)
if(NOT EMSCRIPTEN)
  find_package(PNG REQUIRED)
  add_library(wick_image STATIC ${CMAKE_SOURCE_DIR}/src/image/png_io.cpp
                               ${CMAKE_SOURCE_DIR}/src/image/tiling.cpp)
  target_link_libraries(wick_image PUBLIC wick_format PNG::PNG)
endif()
