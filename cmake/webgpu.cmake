# WebGPU for Wick: Dawn (native), the gpu/ layer (wick_gpu) and WGSL embedding.
#
# Included by the top-level CMakeLists.txt after cmake/vkgraph.cmake. When Dawn is
# present (third_party/npm/dawn from scripts/fetch_dawn.sh, or -DWICK_DAWN_DIR=<dir> with
# lib/libwebgpu_wrapper.so and include/webgpu/webgpu.h) it defines:
#   wick_dawn           imported shared library (Dawn's C API, wgpu* functions)
#   wick_gpu            static library from src/gpu/*.cpp (on wick_core only; it embeds
#                       no shaders: each library above embeds its own)
#   wick_gpu_test_wgsl  the tests' own shaders (tests/gpu/wgsl), when tests are built
#   WICK_HAVE_WEBGPU    ON, and the compile definition WICK_HAVE_WEBGPU=1
# and always the function wick_embed_wgsl() (below).
#
# This file is also the script that generates the embedded-WGSL .cpp: the build runs it
# with `cmake -P` (see the CMAKE_SCRIPT_MODE_FILE branch right below).

# ---------------------------------------------------------------------------------------
# Script mode: WICK_WGSL_MANIFEST (one .wgsl path per line) -> WICK_WGSL_OUT (.cpp)
# defining, in namespace WICK_WGSL_NAMESPACE:
#   std::string_view find_wgsl(std::string_view name);   // name = file stem, "" if none
#   std::vector<std::string_view> wgsl_names();           // sorted
# Each shader is embedded with its `//#include "x.inc.wgsl"` lines expanded (see
# _wick_wgsl_expand below); a missing include or an include cycle fails the build.
# ---------------------------------------------------------------------------------------

# Include directories searched after the including file's own: WICK_WGSL_INCLUDE_DIRS
# (";"-separated, passed by wick_embed_wgsl).
#
# _wick_wgsl_expand(<path> <stack> <out_var>): the text of <path> with every line
#   //#include "name.inc.wgsl"
# replaced by that module's (expanded) text, once per shader: a module already pulled in
# by this shader expands to nothing the second time, so a module may include what it
# needs without the shader getting a declaration twice. <stack> is the chain of files
# being expanded, for the cycle check and the messages.
function(_wick_wgsl_expand path stack out_var)
  list(FIND stack "${path}" _on_stack)
  if(NOT _on_stack EQUAL -1)
    list(APPEND stack "${path}")
    list(JOIN stack " -> " _chain)
    message(FATAL_ERROR "wick_embed_wgsl: include cycle: ${_chain}")
  endif()
  list(APPEND stack "${path}")
  get_property(_done GLOBAL PROPERTY _WICK_WGSL_DONE)
  list(FIND _done "${path}" _seen)
  if(NOT _seen EQUAL -1)
    set(${out_var} "" PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY _WICK_WGSL_DONE "${path}")
  file(READ "${path}" _text)
  get_filename_component(_dir "${path}" DIRECTORY)
  set(_out "")
  set(_directive "//#include \"")
  string(LENGTH "${_directive}" _dlen)
  set(_more ON)  # script mode sets no policies, so no while(TRUE)
  while(_more)
    string(FIND "${_text}" "${_directive}" _at)
    if(_at EQUAL -1)
      string(APPEND _out "${_text}")
      break()
    endif()
    string(SUBSTRING "${_text}" 0 ${_at} _before)
    string(APPEND _out "${_before}")
    math(EXPR _name_at "${_at} + ${_dlen}")
    string(SUBSTRING "${_text}" ${_name_at} -1 _text)
    string(FIND "${_text}" "\"" _close)
    string(FIND "${_text}" "\n" _eol)
    if(_close EQUAL -1 OR (NOT _eol EQUAL -1 AND _eol LESS _close))
      message(FATAL_ERROR "wick_embed_wgsl: ${path}: an //#include line needs a \"name.inc.wgsl\"")
    endif()
    string(SUBSTRING "${_text}" 0 ${_close} _name)
    math(EXPR _after "${_close} + 1")
    string(SUBSTRING "${_text}" ${_after} -1 _text)
    if(NOT _name MATCHES "\\.inc\\.wgsl$")
      message(FATAL_ERROR "wick_embed_wgsl: ${path}: '${_name}': only *.inc.wgsl modules can be included")
    endif()
    set(_found "")
    foreach(_base IN ITEMS "${_dir}" ${WICK_WGSL_INCLUDE_DIRS})
      if(EXISTS "${_base}/${_name}")
        get_filename_component(_found "${_base}/${_name}" ABSOLUTE)
        break()
      endif()
    endforeach()
    if(NOT _found)
      list(JOIN WICK_WGSL_INCLUDE_DIRS ", " _dirs)
      message(FATAL_ERROR "wick_embed_wgsl: ${path}: include '${_name}' not found "
                          "(looked beside it and in: ${_dirs})")
    endif()
    _wick_wgsl_expand("${_found}" "${stack}" _inc)
    if(NOT _inc STREQUAL "")
      string(APPEND _out "// ---- ${_name}\n${_inc}// ---- end ${_name}")
    else()
      string(APPEND _out "// (${_name}: already included)")
    endif()
  endwhile()
  set(${out_var} "${_out}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  string(REPLACE "|" ";" WICK_WGSL_INCLUDE_DIRS "${WICK_WGSL_INCLUDE_DIRS}")
  file(STRINGS "${WICK_WGSL_MANIFEST}" _files)
  set(_keyed)
  foreach(_f IN LISTS _files)
    get_filename_component(_stem "${_f}" NAME_WLE)
    # "!" sorts before every identifier character, so "a!" < "a_b!" as "a" < "a_b" does for
    # the std::string_view lower_bound in find_wgsl ("|" sorted a_b before a and broke it).
    list(APPEND _keyed "${_stem}!${_f}")
  endforeach()
  list(SORT _keyed)
  set(_entries "")
  set(_names "")
  set(_count 0)
  foreach(_item IN LISTS _keyed)
    string(FIND "${_item}" "!" _bar)
    string(SUBSTRING "${_item}" 0 ${_bar} _stem)
    math(EXPR _path_start "${_bar} + 1")
    string(SUBSTRING "${_item}" ${_path_start} -1 _path)
    if(NOT _stem MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "wick_embed_wgsl: '${_path}': a shader name (file stem) must be a C identifier")
    endif()
    list(FIND _names "${_stem}" _seen)
    if(NOT _seen EQUAL -1)
      message(FATAL_ERROR "wick_embed_wgsl: two shaders named '${_stem}' (one is ${_path}); file stems must be unique")
    endif()
    list(APPEND _names "${_stem}")
    set_property(GLOBAL PROPERTY _WICK_WGSL_DONE "")
    _wick_wgsl_expand("${_path}" "" _text)
    string(FIND "${_text}" ")wgsl\"" _clash)
    if(NOT _clash EQUAL -1)
      message(FATAL_ERROR "wick_embed_wgsl: '${_path}' contains the raw-string delimiter )wgsl\"")
    endif()
    string(APPEND _entries "    Entry{\"${_stem}\", R\"wgsl(${_text})wgsl\"},\n")
    math(EXPR _count "${_count} + 1")
  endforeach()
  file(WRITE "${WICK_WGSL_OUT}"
"// Generated by cmake/webgpu.cmake (wick_embed_wgsl) from ${_count} .wgsl files. Do not edit.
#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

namespace ${WICK_WGSL_NAMESPACE} {

namespace {
struct Entry {
  std::string_view name;
  std::string_view text;
};
// Sorted by name.
constexpr std::array<Entry, ${_count}> kEntries = {
${_entries}};
}  // namespace

std::string_view find_wgsl(std::string_view name) {
  auto it = std::lower_bound(kEntries.begin(), kEntries.end(), name,
                             [](const Entry& e, std::string_view n) { return e.name < n; });
  if (it != kEntries.end() && it->name == name) return it->text;
  return {};
}

std::vector<std::string_view> wgsl_names() {
  std::vector<std::string_view> names;
  for (const Entry& e : kEntries) names.push_back(e.name);
  return names;
}

}  // namespace ${WICK_WGSL_NAMESPACE}
")
  return()
endif()

set(WICK_WEBGPU_CMAKE_FILE "${CMAKE_CURRENT_LIST_FILE}")
# The repository root, from this file's place (works when Wick is a subproject too).
get_filename_component(_wick_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
if(NOT WICK_GEN_DIR)
  set(WICK_GEN_DIR "${CMAKE_BINARY_DIR}/generated")
endif()

# _wick_wgsl_type_layout(<type> <size_var> <align_var>): WGSL's size and alignment of the
# host-shareable types a Params struct uses (scalars, vecN of 4-byte scalars, fixed arrays
# of those); both "" for any other type (its struct then gets no size constant).
function(_wick_wgsl_type_layout type size_var align_var)
  set(size "")
  set(align "")
  if(type MATCHES "^(u32|i32|f32)$")
    set(size 4)
    set(align 4)
  elseif(type MATCHES "^vec([234])<(u32|i32|f32)>$")
    set(n "${CMAKE_MATCH_1}")
    math(EXPR size "4 * ${n}")
    if(n EQUAL 2)
      set(align 8)
    else()
      set(align 16)
    endif()
  elseif(type MATCHES "^array<(.+), *([0-9]+)>$")
    set(count "${CMAKE_MATCH_2}")
    _wick_wgsl_type_layout("${CMAKE_MATCH_1}" esize ealign)
    if(esize)
      math(EXPR size "((${esize} + ${ealign} - 1) / ${ealign} * ${ealign}) * ${count}")
      set(align "${ealign}")
    endif()
  endif()
  set(${size_var} "${size}" PARENT_SCOPE)
  set(${align_var} "${align}" PARENT_SCOPE)
endfunction()

# _wick_wgsl_struct_sizes(<module.inc.wgsl> <out_var>): one C++ line per struct the module
# declares, `inline constexpr size_t <module>_<Struct> = <WGSL size in bytes>;`, so the
# C++ twin of a uniform can static_assert that it matches the WGSL one.
function(_wick_wgsl_struct_sizes path out_var)
  file(READ "${path}" text)
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  get_filename_component(module "${path}" NAME)
  string(REGEX REPLACE "\\.inc\\.wgsl$" "" module "${module}")
  set(lines "")
  string(REGEX MATCHALL "struct[ \t\n]+[A-Za-z_][A-Za-z0-9_]*[ \t\n]*{[^}]*}" structs "${text}")
  foreach(st IN LISTS structs)
    string(REGEX MATCH "struct[ \t\n]+([A-Za-z_][A-Za-z0-9_]*)" _ "${st}")
    set(name "${CMAKE_MATCH_1}")
    string(REGEX MATCHALL "[A-Za-z_][A-Za-z0-9_]*[ \t\n]*:[ \t\n]*(array<[a-z0-9<>]+, *[0-9]+>|[a-z0-9<>]+)"
           fields "${st}")
    set(offset 0)
    set(max_align 1)
    set(ok ON)
    foreach(field IN LISTS fields)
      string(REGEX REPLACE "^[A-Za-z_][A-Za-z0-9_]*[ \t\n]*:[ \t\n]*" "" type "${field}")
      string(REPLACE " " "" type "${type}")
      string(REPLACE "," ", " type "${type}")
      _wick_wgsl_type_layout("${type}" size align)
      if(NOT size)
        set(ok OFF)
        break()
      endif()
      math(EXPR offset "(${offset} + ${align} - 1) / ${align} * ${align} + ${size}")
      if(align GREATER max_align)
        set(max_align "${align}")
      endif()
    endforeach()
    if(ok AND fields)
      math(EXPR total "(${offset} + ${max_align} - 1) / ${max_align} * ${max_align}")
      string(APPEND lines "inline constexpr std::size_t ${module}_${name} = ${total};\n")
    endif()
  endforeach()
  set(${out_var} "${lines}" PARENT_SCOPE)
endfunction()

# wick_embed_wgsl(<target> <dir>... NAMESPACE <ns> [NAMES_NAMESPACE <ns2>] [HEADER_PREFIX <p>])
# Embeds every *.wgsl under the given directories (recursively; missing ones are skipped)
# into <target> as a generated .cpp holding each file as a raw string, plus
# `std::string_view <ns>::find_wgsl(std::string_view name)` (name = file stem) and
# `<ns>::wgsl_names()`, which the library declares in a header of its own (the WebGPU
# delegate's: src/webgpu/wgsl_shaders.h). One call per namespace in a binary. Editing,
# adding or removing a .wgsl file regenerates the .cpp at build time.
#
# Modules: *.inc.wgsl files are not shaders. A shader (or module) pulls one in with a line
#   //#include "name.inc.wgsl"
# looked up beside the including file, then in each <dir>/wgsl; each module is expanded
# at most once per shader. A missing module or an include cycle fails the build.
#
# Names: the header <WICK_GEN_DIR>/wgsl/<p>_shaders.h (written at configure time, from
# the file list; <p> defaults to <target>) holds `inline constexpr ShaderName
# <stem>{"<stem>"};` for each shader in namespace <ns2>::shaders (<ns2> defaults to <ns>),
# so C++ names shaders by constants the compiler checks; <p>_struct_sizes.h holds the
# modules' struct sizes in <ns2>::wgsl_size.
function(wick_embed_wgsl target)
  cmake_parse_arguments(ARG "" "NAMESPACE;NAMES_NAMESPACE;HEADER_PREFIX" "" ${ARGN})
  if(NOT ARG_NAMESPACE)
    message(FATAL_ERROR "wick_embed_wgsl(${target}): NAMESPACE is required")
  endif()
  if(NOT ARG_NAMES_NAMESPACE)
    set(ARG_NAMES_NAMESPACE "${ARG_NAMESPACE}")
  endif()
  if(NOT ARG_HEADER_PREFIX)
    set(ARG_HEADER_PREFIX "${target}")
  endif()
  set(files)
  set(modules)
  set(include_dirs)
  foreach(dir IN LISTS ARG_UNPARSED_ARGUMENTS)
    if(IS_DIRECTORY "${dir}")
      file(GLOB_RECURSE found CONFIGURE_DEPENDS "${dir}/*.wgsl")
      foreach(f IN LISTS found)
        if(f MATCHES "\\.inc\\.wgsl$")
          list(APPEND modules "${f}")
        else()
          list(APPEND files "${f}")
        endif()
      endforeach()
      list(APPEND include_dirs "${dir}/wgsl")
    endif()
  endforeach()
  list(SORT files)
  set(out_dir "${WICK_GEN_DIR}/wgsl")
  set(manifest "${out_dir}/${target}_wgsl.txt")
  set(out "${out_dir}/${target}_wgsl.cpp")
  list(JOIN files "\n" manifest_text)
  list(JOIN include_dirs "|" include_arg)
  file(MAKE_DIRECTORY "${out_dir}")
  file(CONFIGURE OUTPUT "${manifest}" CONTENT "${manifest_text}\n" @ONLY)

  set(names "")
  foreach(f IN LISTS files)
    get_filename_component(stem "${f}" NAME_WLE)
    if(stem MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")  # the script reports a bad one
      string(APPEND names "inline constexpr ::wick::gpu::ShaderName ${stem}{\"${stem}\"};\n")
    endif()
  endforeach()
  file(CONFIGURE OUTPUT "${out_dir}/${ARG_HEADER_PREFIX}_shaders.h" CONTENT
"// Generated by cmake/webgpu.cmake (wick_embed_wgsl) for ${target}. Do not edit.
// One constant per embedded shader: PipelineKey(shaders::name) in C++.
#pragma once

#include \"gpu/wgsl_registry.h\"

namespace ${ARG_NAMES_NAMESPACE}::shaders {
${names}}  // namespace ${ARG_NAMES_NAMESPACE}::shaders
" @ONLY)

  # Struct sizes of the modules, read at configure time: editing a module re-runs CMake.
  set(sizes "")
  foreach(m IN LISTS modules)
    _wick_wgsl_struct_sizes("${m}" m_sizes)
    string(APPEND sizes "${m_sizes}")
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${modules})
  file(CONFIGURE OUTPUT "${out_dir}/${ARG_HEADER_PREFIX}_struct_sizes.h" CONTENT
"// Generated by cmake/webgpu.cmake (wick_embed_wgsl) for ${target}. Do not edit.
// The size in bytes, by WGSL's layout rules, of each struct a module (*.inc.wgsl)
// declares: <module>_<Struct>. The C++ twin of a uniform static_asserts against it.
#pragma once

#include <cstddef>

namespace ${ARG_NAMES_NAMESPACE}::wgsl_size {
${sizes}}  // namespace ${ARG_NAMES_NAMESPACE}::wgsl_size
" @ONLY)

  add_custom_command(
    OUTPUT "${out}"
    COMMAND "${CMAKE_COMMAND}" "-DWICK_WGSL_MANIFEST=${manifest}" "-DWICK_WGSL_OUT=${out}"
            "-DWICK_WGSL_NAMESPACE=${ARG_NAMESPACE}" "-DWICK_WGSL_INCLUDE_DIRS=${include_arg}"
            -P "${WICK_WEBGPU_CMAKE_FILE}"
    DEPENDS ${files} ${modules} "${manifest}" "${WICK_WEBGPU_CMAKE_FILE}"
    COMMENT "Embedding WGSL for ${target}"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()

# The module step itself (missing module, cycle, once per shader): cmake -P, no GPU.
if(WICK_BUILD_TESTS AND EXISTS "${_wick_root}/tests/cmake/wgsl_modules_test.cmake")
  add_test(NAME wgsl_modules
           COMMAND "${CMAKE_COMMAND}" "-DWICK_WEBGPU_CMAKE=${WICK_WEBGPU_CMAKE_FILE}"
                   "-DWORK=${CMAKE_BINARY_DIR}/wgsl_modules_test"
                   -P "${_wick_root}/tests/cmake/wgsl_modules_test.cmake")
endif()
# No two .wgsl files declare the same struct or helper (they share it through a module).
find_program(WICK_PYTHON3 python3)
if(WICK_BUILD_TESTS AND WICK_PYTHON3 AND EXISTS "${_wick_root}/scripts/wgsl_duplicates.py")
  add_test(NAME wgsl_no_duplicates
           COMMAND "${WICK_PYTHON3}" "${_wick_root}/scripts/wgsl_duplicates.py" "${_wick_root}")
endif()

# ---------------------------------------------------------------------------------------
# Dawn
# ---------------------------------------------------------------------------------------
set(WICK_DAWN_DIR "" CACHE PATH
    "Dawn with lib/libwebgpu_wrapper.so and include/webgpu/webgpu.h (default: third_party/npm/dawn)")
set(WICK_HAVE_WEBGPU OFF)
# OFF builds the runtime, CLI and tests without the GPU parts: the ASan/UBSan build does,
# since the prebuilt Dawn and SwiftShader are not instrumented.
option(WICK_WEBGPU "Build the WebGPU layer and delegate (needs Dawn)" ON)

set(_wick_dawn_dir "${WICK_DAWN_DIR}")
if(NOT _wick_dawn_dir AND EXISTS "${_wick_root}/third_party/npm/dawn")
  set(_wick_dawn_dir "${_wick_root}/third_party/npm/dawn")
endif()

if(NOT WICK_WEBGPU)
  message(STATUS "WebGPU: off (WICK_WEBGPU=OFF)")
elseif(EMSCRIPTEN)
  # The browser's WebGPU: src/gpu compiles unchanged against the same webgpu.h, whose
  # functions src/gpu/web implements on the JavaScript API (a --js-library).
  if(NOT EXISTS "${_wick_dawn_dir}/include/webgpu/webgpu.h")
    message(FATAL_ERROR "WebGPU (wasm): no webgpu.h under '${_wick_dawn_dir}' (run scripts/fetch_dawn.sh)")
  endif()
  message(STATUS "WebGPU: Emscripten build, webgpu.h from ${_wick_dawn_dir}/include on JavaScript")
  # Dawn's webgpu.h refuses __EMSCRIPTEN__ (it points at Emdawnwebgpu, which Debian's
  # Emscripten 3.1.6 lacks). The build uses a copy without that guard; the API is the same.
  set(_wick_web_include "${CMAKE_BINARY_DIR}/webgpu_include")
  file(MAKE_DIRECTORY "${_wick_web_include}/webgpu")
  file(READ "${_wick_dawn_dir}/include/webgpu/webgpu.h" _wick_header)
  string(REPLACE "#ifdef __EMSCRIPTEN__\n#error" "#if 0\n#error" _wick_header "${_wick_header}")
  file(WRITE "${_wick_web_include}/webgpu/webgpu.h.new" "${_wick_header}")
  file(COPY_FILE "${_wick_web_include}/webgpu/webgpu.h.new" "${_wick_web_include}/webgpu/webgpu.h"
       ONLY_IF_DIFFERENT)
  file(GLOB WICK_GPU_SOURCES CONFIGURE_DEPENDS "${_wick_root}/src/gpu/*.cpp" "${_wick_root}/src/gpu/web/*.cpp")
  add_library(wick_gpu STATIC ${WICK_GPU_SOURCES})
  target_include_directories(wick_gpu PUBLIC "${_wick_root}/src" "${WICK_GEN_DIR}"
                                              "${_wick_web_include}")
  target_link_libraries(wick_gpu PUBLIC wick_core)
  target_link_options(wick_gpu INTERFACE "SHELL:--js-library ${_wick_root}/src/gpu/web/webgpu_js.js")
  set_property(TARGET wick_gpu APPEND PROPERTY INTERFACE_LINK_DEPENDS "${_wick_root}/src/gpu/web/webgpu_js.js")
  set(WICK_HAVE_WEBGPU ON)
  add_compile_definitions(WICK_HAVE_WEBGPU=1)
elseif(NOT _wick_dawn_dir)
  message(STATUS "WebGPU: Dawn not found, gpu/ not built (run scripts/fetch_dawn.sh)")
elseif(NOT EXISTS "${_wick_dawn_dir}/lib/libwebgpu_wrapper.so"
       OR NOT EXISTS "${_wick_dawn_dir}/include/webgpu/webgpu.h")
  message(WARNING "WebGPU: ${_wick_dawn_dir} lacks lib/libwebgpu_wrapper.so or "
                  "include/webgpu/webgpu.h; gpu/ not built (run scripts/fetch_dawn.sh)")
else()
  message(STATUS "WebGPU: Dawn from ${_wick_dawn_dir}")
  add_library(wick_dawn SHARED IMPORTED GLOBAL)
  set_target_properties(wick_dawn PROPERTIES
    IMPORTED_LOCATION "${_wick_dawn_dir}/lib/libwebgpu_wrapper.so"
    # The library has no SONAME: link it as -lwebgpu_wrapper so binaries record the bare
    # name (found through their RPATH) rather than this absolute path.
    IMPORTED_NO_SONAME TRUE
    INTERFACE_INCLUDE_DIRECTORIES "${_wick_dawn_dir}/include"
    # Binaries in the build tree find the .so where it lies.
    INTERFACE_LINK_OPTIONS "LINKER:-rpath,${_wick_dawn_dir}/lib")

  file(GLOB WICK_GPU_SOURCES CONFIGURE_DEPENDS "${_wick_root}/src/gpu/*.cpp")
  add_library(wick_gpu STATIC ${WICK_GPU_SOURCES})
  target_include_directories(wick_gpu PUBLIC "${_wick_root}/src" "${WICK_GEN_DIR}")
  target_link_libraries(wick_gpu PUBLIC wick_core wick_dawn ${CMAKE_DL_LIBS})

  set(WICK_HAVE_WEBGPU ON)
  add_compile_definitions(WICK_HAVE_WEBGPU=1)

  # Test-only shaders (tests/gpu/wgsl) get a registry of their own, in wick::gpu::test, so
  # they never reach the delegate's; tests/CMakeLists.txt links it into wick_gpu_tests.
  if(WICK_BUILD_TESTS AND IS_DIRECTORY "${_wick_root}/tests/gpu/wgsl")
    add_library(wick_gpu_test_wgsl STATIC)
    target_link_libraries(wick_gpu_test_wgsl PUBLIC wick_gpu)
    wick_embed_wgsl(wick_gpu_test_wgsl "${_wick_root}/tests/gpu/wgsl"
                    NAMESPACE wick::gpu::test)
  endif()

  if(EXISTS "${_wick_root}/bench/gpu_dispatch_bench.cpp")
    add_executable(wick_gpu_bench EXCLUDE_FROM_ALL "${_wick_root}/bench/gpu_dispatch_bench.cpp")
    target_link_libraries(wick_gpu_bench PRIVATE wick_gpu)
    add_dependencies(benches wick_gpu_bench)
  endif()
  # Kernel research benches (bench/kernels/README.md).
  if(EXISTS "${_wick_root}/bench/kernels/CMakeLists.txt")
    include("${_wick_root}/bench/kernels/CMakeLists.txt")
  endif()
endif()
