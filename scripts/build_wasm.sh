#!/usr/bin/env bash
# Builds the wasm bundles with Debian's Emscripten and copies them into the npm package
# folder (package/dist/):
#   build-wasm/          wick.js + wick.wasm                  one thread, any page
#   build-wasm-threads/  wick-threads.js + .wasm + .worker.js -pthread (Wasm threads:
#                        cross-origin-isolated pages and Node; package/index.mjs picks)
#   WICK_WASM_BUILD_TYPE   CMake build type (default Release)
#   WICK_WASM_VARIANTS     which to build (default "single threads")
#   WICK_WASM_FAST_LINK    1: wick.js links at -O1 and wasm-opt -O3 optimizes it after
#                          (cmake/wasm.cmake: ~90 s instead of 330-540 s, .wasm ~15%
#                          larger); scripts/test.sh sets it, the package build does not
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh
scripts/fetch_dawn.sh >/dev/null  # webgpu.h: the C API that src/gpu/web implements

build_variant() {  # DIR TARGET-FILES... ; extra cmake arguments in $extra
  local dir="$1"
  shift
  if [[ -f "$dir/CMakeCache.txt" ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; then
    rm -rf "$dir"
  fi
  # The emulator override: emcmake's default passes a flag Node 20 refuses (toolchain.md §7.6).
  emcmake cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="${WICK_WASM_BUILD_TYPE:-Release}" \
    -DWICK_BUILD_TESTS=OFF -DWICK_BUILD_EXAMPLES=OFF "${extra[@]}" \
    "-DCMAKE_CROSSCOMPILING_EMULATOR=$(command -v node);--no-experimental-fetch" >/dev/null
  cmake --build "$dir" -j "$WICK_JOBS" --target wick_wasm
  mkdir -p package/dist
  local f
  for f in "$@"; do cp "$dir/$f" package/dist/; done
}

build_named() {  # VARIANT
  case "$1" in
    single)
      extra=(-DWICK_WASM_THREADS=OFF "-DWICK_WASM_FAST_LINK=$([[ "${WICK_WASM_FAST_LINK:-0}" == 1 ]] && echo ON || echo OFF)")
      build_variant build-wasm wick.js wick.wasm
      ls -l package/dist/wick.js package/dist/wick.wasm
      ;;
    threads)
      # -pthread on every object: a shared memory links only objects built with atomics.
      # CPU only (cmake/wasm.cmake): without src/gpu and src/webgpu.
      extra=(-DWICK_WASM_THREADS=ON -DWICK_WEBGPU=OFF -DCMAKE_C_FLAGS=-pthread -DCMAKE_CXX_FLAGS=-pthread)
      build_variant build-wasm-threads wick-threads.js wick-threads.wasm wick-threads.worker.js
      ls -l package/dist/wick-threads.*
      ;;
    *)
      echo "build_wasm.sh: unknown variant '$1' (single, threads)" >&2
      return 2
      ;;
  esac
}

# The variants build side by side: the single bundle's link is mostly one long,
# single-threaded wasm-opt pass (Asyncify), which the threaded bundle's compile and link
# overlap instead of following.
pids=()
for variant in ${WICK_WASM_VARIANTS:-single threads}; do
  build_named "$variant" &
  pids+=("$!")
done
rc=0
for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
exit "$rc"
