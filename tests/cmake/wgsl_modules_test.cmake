# The WGSL module step of cmake/webgpu.cmake on small shader trees (cmake -P, no GPU):
# a module is expanded once per shader, and a missing module or an include cycle fails
# with a message naming the files.
#   cmake -DWICK_WEBGPU_CMAKE=<cmake/webgpu.cmake> -DWORK=<scratch dir> -P this file
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/lib")

# Runs the embed step on <shader>; sets rc/out/err in the caller.
function(embed shader)
  file(WRITE "${WORK}/manifest.txt" "${WORK}/${shader}\n")
  execute_process(
    COMMAND "${CMAKE_COMMAND}" "-DWICK_WGSL_MANIFEST=${WORK}/manifest.txt"
            "-DWICK_WGSL_OUT=${WORK}/out.cpp" "-DWICK_WGSL_NAMESPACE=t"
            "-DWICK_WGSL_INCLUDE_DIRS=${WORK}/lib" -P "${WICK_WEBGPU_CMAKE}"
    RESULT_VARIABLE r OUTPUT_VARIABLE o ERROR_VARIABLE e)
  set(rc "${r}" PARENT_SCOPE)
  string(REGEX REPLACE "[ \n]+" " " e "${e}")  # CMake wraps long messages
  set(err "${e}" PARENT_SCOPE)
endfunction()

# expect(<message> <condition>...)
function(expect what)
  if(NOT (${ARGN}))
    message(FATAL_ERROR "wgsl_modules_test: ${what}")
  endif()
endfunction()

# Found in the include dir; the shared module (included twice) is expanded once.
file(WRITE "${WORK}/lib/base.inc.wgsl" "fn base_fn() -> u32 { return 1u; }\n")
file(WRITE "${WORK}/lib/mid.inc.wgsl" "//#include \"base.inc.wgsl\"\nfn mid_fn() -> u32 { return base_fn(); }\n")
file(WRITE "${WORK}/ok.wgsl" "//#include \"mid.inc.wgsl\"\n//#include \"base.inc.wgsl\"\n@compute @workgroup_size(1) fn main() {}\n")
embed(ok.wgsl)
expect("ok.wgsl did not embed: ${err}" rc EQUAL 0)
file(READ "${WORK}/out.cpp" text)
string(REGEX MATCHALL "fn base_fn" copies "${text}")
list(LENGTH copies n)
expect("base.inc.wgsl expanded ${n} times, want 1" n EQUAL 1)
string(FIND "${text}" "fn mid_fn" at)
expect("mid.inc.wgsl not expanded" NOT at EQUAL -1)

# A missing module.
file(WRITE "${WORK}/missing.wgsl" "//#include \"nope.inc.wgsl\"\n")
embed(missing.wgsl)
expect("a missing module embedded" NOT rc EQUAL 0)
string(FIND "${err}" "include 'nope.inc.wgsl' not found" at)
expect("missing-module message: ${err}" NOT at EQUAL -1)

# A cycle through two modules.
file(WRITE "${WORK}/lib/a.inc.wgsl" "//#include \"b.inc.wgsl\"\n")
file(WRITE "${WORK}/lib/b.inc.wgsl" "//#include \"a.inc.wgsl\"\n")
file(WRITE "${WORK}/cycle.wgsl" "//#include \"a.inc.wgsl\"\n")
embed(cycle.wgsl)
expect("an include cycle embedded" NOT rc EQUAL 0)
string(FIND "${err}" "include cycle" at)
expect("cycle message: ${err}" NOT at EQUAL -1)

# Only modules can be included.
file(WRITE "${WORK}/notmod.wgsl" "//#include \"ok.wgsl\"\n")
embed(notmod.wgsl)
expect("a shader was included" NOT rc EQUAL 0)
message(STATUS "wgsl_modules_test: ok")
