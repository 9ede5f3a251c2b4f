# Precompiled headers for the targets with the most sources (core, the reader, the runtime,
# the CPU kernels, the VK00 plan and its CPU executor, the LLM library, the CLI, the WebGPU
# delegate, the tests): the standard library (and, per target, gtest, nlohmann/json or
# flatbuffers) is most of what each of their files parses, about a second of its two to
# four to compile. Parsed once per target instead, a clean build (native, ASan and Wasm
# alike) saves several CPU-minutes, which the 2-core CI run spends on tests instead. Only
# system and third-party headers go in: the project's own stay where each file includes
# them, so a file still compiles without the PCH (-DWICK_PCH=OFF, e.g. to check that its
# includes are complete).
option(WICK_PCH "Precompile the standard and third-party headers of the largest targets" ON)

set(WICK_PCH_STD <algorithm> <array> <cmath> <cstddef> <cstdint> <cstdio> <cstring> <functional> <map>
                 <memory> <optional> <set> <span> <string> <string_view> <utility> <vector>)

# wick_precompile_headers(TARGET [HEADER...]): the standard headers above and HEADERs.
function(wick_precompile_headers target)
  if(WICK_PCH)
    target_precompile_headers(${target} PRIVATE ${WICK_PCH_STD} ${ARGN})
    # GCC 12 forgets, for code inlined from a precompiled header, that it came from a system
    # header, and so reports its known false positives in std::string's operator+ (the
    # memcpy in char_traits.h: "out of the bounds [0, 32]", "writing 66 bytes into a region
    # of size 16"), which it otherwise keeps quiet. Clang has no such reports.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-stringop-overflow -Wno-stringop-overread
                                               -Wno-restrict)
    endif()
  endif()
endfunction()
