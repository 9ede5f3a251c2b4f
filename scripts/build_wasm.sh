#!/usr/bin/env bash
# Builds the wasm bundle (build-wasm/wick.js + wick.wasm) with Debian's Emscripten and
# copies it into the npm package folder (package/dist/).
#   WICK_WASM_BUILD_TYPE   CMake build type (default Release)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh
scripts/fetch_dawn.sh >/dev/null  # webgpu.h: the C API that src/gpu/web implements
if [[ -f build-wasm/CMakeCache.txt ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' build-wasm/CMakeCache.txt; then
  rm -rf build-wasm
fi
# The emulator override: emcmake's default passes a flag Node 20 refuses (toolchain.md §7.6).
emcmake cmake -S . -B build-wasm -G Ninja -DCMAKE_BUILD_TYPE="${WICK_WASM_BUILD_TYPE:-Release}" \
  -DWICK_BUILD_TESTS=OFF -DWICK_BUILD_EXAMPLES=OFF \
  "-DCMAKE_CROSSCOMPILING_EMULATOR=$(command -v node);--no-experimental-fetch" >/dev/null
cmake --build build-wasm -j "$WICK_JOBS" --target wick_wasm
mkdir -p package/dist
cp build-wasm/wick.js build-wasm/wick.wasm package/dist/
ls -l package/dist/wick.js package/dist/wick.wasm
