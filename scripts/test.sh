#!/usr/bin/env bash
# The one test command: builds and runs every test, printing the time of each stage.
#
#   deps        ./setup.sh --deps-only (a quick no-op when everything is in place)
#   build       build/ (RelWithDebInfo): runtime, CLI, examples, tests
#   unit        the GoogleTest suite of build/, through ctest
#   e2e         build/wick_upscale on the bundled photo, checked against reference_output.png
#   asan-build  build-asan/ (clang, -DWICK_SANITIZE=address,undefined -DWICK_FUZZ=ON
#               -DWICK_WEBGPU=OFF), the one sanitizer build: compiled in the background
#               from the start of ctest, at nice 19; the stage waits for it
#   asan        build-asan/'s wick_tests, every test that needs no GPU (the GPU ones are
#               wick_gpu_tests, not built there), in four shards, $WICK_JOBS at a time
#   fuzz        the same build-asan/: pte_reader_fuzzer and c_api_fuzzer side by side,
#               WICK_FUZZ_SECONDS each, on seeds copied from the fixtures' small .pte files
#   wasm        build-wasm/ (scripts/build_wasm.sh, Emscripten): the bundles in package/dist/
#               that the node tests load; built in the background from the start (after
#               deps), alongside the native and sanitizer stages; the stage waits for it.
#               WICK_WASM_FAST_LINK=1 unless set: Asyncify's link in 90 s, not 330-540
#               (cmake/wasm.cmake), for a wick.wasm ~15% larger than the package build's
#   node        node --test tests/js/*.test.mjs, $WICK_JOBS files at a time (skipped when
#               there are none)
#
# Every stage runs even when an earlier one failed (stages that need a failed build are
# skipped); the exit status is 0 only when all passed.
#
# Environment:
#   WICK_SKIP="fuzz asan"      stages to skip
#   WICK_FUZZ_SECONDS=30       fuzzing time
#   WICK_ASAN_GTEST_FILTER     gtest filter for the ASan run (default: every test)
#   WICK_CTEST_ARGS            extra ctest arguments, e.g. "-R PngIo"
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh

FUZZ_SECONDS="${WICK_FUZZ_SECONDS:-30}"
ASAN_FILTER="${WICK_ASAN_GTEST_FILTER:-*}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

skipped() { [[ " ${WICK_SKIP:-} " == *" $1 "* ]]; }
FAILED=0
declare -A OK=()

# stage KEY NEEDS NAME CMD...: runs the stage unless it is skipped or a stage it needs
# (NEEDS: comma-separated keys, or -) did not pass.
stage() {
  local key="$1" needs="$2" name="$3" k
  shift 3
  local why=""
  if skipped "$key"; then
    why="skipped (WICK_SKIP)"
  elif [[ "$needs" != - ]]; then
    for k in ${needs//,/ }; do
      [[ -n "${OK[$k]:-}" ]] || why="skipped (needs '$k', which did not pass)"
    done
  fi
  if [[ -n "$why" ]]; then
    echo; echo "=== $name: $why"
    WICK_STAGE_NAMES+=("$name") WICK_STAGE_SECONDS+=("-") WICK_STAGE_RESULTS+=("$why")
    [[ "$why" == "skipped (WICK_SKIP)" ]] || FAILED=1
    return 0
  fi
  # Not `if wick_stage ...`: bash ignores errexit inside anything called from a condition.
  wick_stage "$name" "$@"
  if [[ $? -eq 0 ]]; then OK[$key]=1; else FAILED=1; fi
}

deps() { ./setup.sh --deps-only; }

build_main() {
  # The GPU tests as one ctest test, one process, not one process per test
  # (tests/CMakeLists.txt): the tests of a process share one device and its pipeline cache,
  # and compiling pipelines is most of their time on SwiftShader. Measured on 2 idle cores
  # (bench/results/ci_time.md): one process 285 s wall, 335 CPU s; two shards side by side
  # 225 s, 436 CPU s; four (as before) ~860 s of shard time in CI's ctest. One process uses
  # about one core; ctest runs the lavapipe tests and the CPU tests on the other.
  wick_configure_main -DWICK_GPU_TEST_SHARDS=1
  cmake --build build -j "$WICK_JOBS"
}

unit() {
  # shellcheck disable=SC2086
  ctest --test-dir build -j "$WICK_JOBS" --output-on-failure --timeout 600 ${WICK_CTEST_ARGS:-}
}

e2e() {
  mkdir -p out
  build/wick_upscale examples/esrgan/input.png out/esrgan_x4.png --reference examples/esrgan/reference_output.png
}

build_asan() {
  # One sanitizer build for the tests and the fuzzers, so the library is compiled once:
  # clang, since libFuzzer is clang's (its -fsanitize=undefined has float-cast-overflow,
  # the double -> int conversions out of range that a hostile file's doubles reach).
  # Without WebGPU: the prebuilt Dawn and SwiftShader are not instrumented, so the GPU code
  # and its tests (wick_gpu_tests) are left out rather than built and filtered out; the
  # C API fuzzer then runs the Vulkan delegates on the CPU executor.
  # -O1: asserts stay on (no NDEBUG, in the fuzzers too) and the fixture tests stay fast
  # enough. -g1 (line tables) is all a sanitizer report needs, and compiles a third faster
  # than -g. (asan_build_start empties a build-asan/ that GCC configured.)
  wick_configure build-asan -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DWICK_SANITIZE=address,undefined \
    -DWICK_FUZZ=ON -DWICK_WEBGPU=OFF -DWICK_BUILD_EXAMPLES=OFF
  cmake --build build-asan -j "$WICK_JOBS" --target wick_tests pte_reader_fuzzer c_api_fuzzer
}

# The ASan build runs in the background from the start of ctest, at the lowest CPU priority,
# and the asan-build stage waits for what is left of it: ctest's longest test is the
# SwiftShader shard (one process, about one core), and the other core runs out of tests
# well before it ends (bench/results/ci_time.md); the niced compiles take that idle time
# and yield whenever a test wants the core. Output in build-asan/build_asan.log, exit
# status in build-asan/build_asan.rc.
asan_build_start() {
  # A build-asan/ left by GCC (before the fuzzers moved here) starts afresh.
  if [[ -f build-asan/CMakeCache.txt ]] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang++$' build-asan/CMakeCache.txt; then
    echo "build-asan/ was configured with another compiler; starting it afresh"
    rm -rf build-asan
  fi
  background_start build-asan/build_asan 19 "the ASan build" build_asan
  ASAN_BUILD_PID=$BACKGROUND_PID
}

# asan_shard INDEX: one of ASAN_SHARDS parts of wick_tests (GoogleTest sharding), its output
# in build-asan/asan_shard_INDEX.log and its exit status in build-asan/asan_shard_INDEX.rc.
ASAN_SHARDS=4
asan_shard() {
  local rc=0
  GTEST_TOTAL_SHARDS="$ASAN_SHARDS" GTEST_SHARD_INDEX="$1" \
    build-asan/tests/wick_tests --gtest_filter="$ASAN_FILTER" >"build-asan/asan_shard_$1.log" 2>&1 || rc=$?
  echo "$rc" >"build-asan/asan_shard_$1.rc"
}

run_asan() {
  echo "gtest filter: $ASAN_FILTER"
  # The run is one thread: $WICK_JOBS shards at a time, four in all, so that the few slow
  # tests (fixtures of whole models, the real tokenizers) spread over the cores. Not
  # --gtest_brief: a sanitizer stops the run mid-test, and only the "[ RUN ]" line before
  # its report says which test (and which fixture) it was; so a failed shard's whole log
  # is printed.
  export -f asan_shard
  export ASAN_SHARDS ASAN_FILTER
  rm -f build-asan/asan_shard_*.rc
  seq 0 $((ASAN_SHARDS - 1)) | xargs -P "$WICK_JOBS" -I{} bash -c 'asan_shard {}'
  local i rc failed=0
  for ((i = 0; i < ASAN_SHARDS; i++)); do
    rc="$(cat "build-asan/asan_shard_$i.rc" 2>/dev/null || echo missing)"
    if [[ "$rc" == 0 ]]; then
      echo "--- shard $i of $ASAN_SHARDS: passed"
      grep -E '^\[(==========|  PASSED  |  SKIPPED )\]' "build-asan/asan_shard_$i.log" || true
    else
      echo "--- shard $i of $ASAN_SHARDS: FAILED (exit $rc)"
      cat "build-asan/asan_shard_$i.log"
      failed=1
    fi
  done
  [[ $failed -eq 0 ]]
}

# fuzz_target NAME SECONDS CORPUS: runs build-asan/fuzz/NAME on a copy of CORPUS; the end
# of its output goes to build-asan/fuzz_NAME.log.
fuzz_target() {
  local name="$1" seconds="$2" seeds="$3" corpus artifacts log rc=0
  corpus="$(mktemp -d "${TMPDIR:-/tmp}/wick-fuzz-corpus.XXXXXX")"
  cp "$seeds"/* "$corpus"/
  artifacts="build-asan/artifacts/$name"
  log="build-asan/fuzz_$name.log"
  rm -rf "$artifacts" && mkdir -p "$artifacts"
  echo "--- $name: ${seconds} s" >"$log"
  build-asan/fuzz/"$name" "$corpus" -dict=build-asan/kernels.dict -max_total_time="$seconds" \
    -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" 2>&1 | tail -80 >>"$log" || rc=$?
  rm -rf "$corpus"
  if [[ $rc -ne 0 ]] || [[ -n "$(ls -A "$artifacts")" ]]; then
    echo "$name found a problem (exit $rc); reproduce with:" >>"$log"
    for f in "$artifacts"/*; do [[ -e "$f" ]] && echo "  build-asan/fuzz/$name $f" >>"$log"; done
    return 1
  fi
}

run_fuzz() {
  local seeds n rc=0
  seeds="$(mktemp -d "${TMPDIR:-/tmp}/wick-fuzz-seeds.XXXXXX")"
  # Seeds: every .pte under 64 KiB in the fixtures (the single ops and the samples) and the
  # CPU programs (about 105 KiB each; most of the other seeds stop at their missing GPU
  # delegate, these run several kernels), copied so that the fuzzer's additions never land
  # in the fixtures.
  find "$WICK_FIXTURES_DIR" -name '*.pte' \( -size -64k -o -path '*/cpu/*' \) -print0 |
    while IFS= read -r -d '' f; do
      cp "$f" "$seeds/$(echo "${f#"$WICK_FIXTURES_DIR"/}" | tr '/' '_')"
    done
  n="$(find "$seeds" -type f | wc -l)"
  echo "seed corpus: $n files"
  [[ "$n" -gt 0 ]] || { echo "no seeds found under $WICK_FIXTURES_DIR" >&2; rm -rf "$seeds"; return 1; }
  # A dictionary of every kernel name, so that mutations can turn one operator into another.
  grep -o '{"[^"]*::[^"]*"' src/kernels/cpu/registry.cpp | cut -c2- >build-asan/kernels.dict
  # Side by side, each for the whole time (a fuzzer is one thread, CI has two cores): the
  # reader and method builder, and the C API of the JavaScript API (c_api.cpp), on the same
  # seeds. Their logs are printed after both ended.
  local pid
  fuzz_target pte_reader_fuzzer "$FUZZ_SECONDS" "$seeds" &
  pid=$!
  fuzz_target c_api_fuzzer "$FUZZ_SECONDS" "$seeds" || rc=1
  wait "$pid" || rc=1
  cat build-asan/fuzz_pte_reader_fuzzer.log build-asan/fuzz_c_api_fuzzer.log
  rm -rf "$seeds"
  return $rc
}

# The Wasm bundles build in the background from the start (right after deps), while the
# native, ASan and fuzz stages run: their link is one long single-threaded wasm-opt pass
# (Asyncify) that would otherwise hold the whole run with one core idle. Output in
# build-wasm/build_wasm.log, exit status in build-wasm/build_wasm.rc; the wasm stage waits
# for it and prints the log, so its stage time is what was left to wait.
# background_start PREFIX NICE WHAT CMD...: runs CMD in the background at niceness NICE,
# its output and then its time in PREFIX.log, its exit status in PREFIX.rc; its pid in
# BACKGROUND_PID.
background_start() {
  local prefix="$1" niceness="$2" what="$3"
  shift 3
  mkdir -p "$(dirname "$prefix")"
  rm -f "$prefix.rc"
  ( [[ "$niceness" == 0 ]] || renice -n "$niceness" -p "$BASHPID" >/dev/null 2>&1 || true
    t0="$(wick_now)"; rc=0
    (set -e; "$@") >"$prefix.log" 2>&1 || rc=$?
    awk -v a="$t0" -v b="$(wick_now)" -v w="$what" 'BEGIN { printf "%s took %.1f s in the background\n", w, b - a }' >>"$prefix.log"
    echo "$rc" >"$prefix.rc" ) &
  BACKGROUND_PID=$!
}
# background_wait PID PREFIX WHAT: waits for background_start's run, prints its log, and
# passes if it did. Polled, not `wait`ed: stages run in a subshell, of which the build is
# not a child.
background_wait() {
  [[ -n "$1" ]] || { echo "the background $3 was not started" >&2; return 1; }
  while [[ ! -f "$2.rc" ]] && kill -0 "$1" 2>/dev/null; do sleep 2; done
  cat "$2.log"
  [[ "$(cat "$2.rc" 2>/dev/null || echo missing)" == 0 ]]
}

WASM_PID=""
ASAN_BUILD_PID=""
wasm_build() { WICK_WASM_FAST_LINK="${WICK_WASM_FAST_LINK:-1}" scripts/build_wasm.sh; }
wasm_start() {
  background_start build-wasm/build_wasm 0 build_wasm.sh wasm_build
  WASM_PID=$BACKGROUND_PID
}
wasm_wait() { background_wait "$WASM_PID" build-wasm/build_wasm "Wasm build"; }
asan_build_wait() { background_wait "$ASAN_BUILD_PID" build-asan/build_asan "ASan build"; }
# A run cut short leaves no Wasm or ASan build behind.
background_stop() {  # PID RC-FILE
  [[ -n "$1" && ! -f "$2" ]] || return 0
  pkill -TERM -P "$1" 2>/dev/null || true
  kill -- "$1" 2>/dev/null || true
}
background_builds_stop() {
  background_stop "$WASM_PID" build-wasm/build_wasm.rc
  background_stop "$ASAN_BUILD_PID" build-asan/build_asan.rc
}

node_tests() {
  local files=()
  shopt -s nullglob
  files=(tests/js/*.test.mjs)
  if [[ ${#files[@]} -eq 0 ]]; then
    echo "no tests/js/*.test.mjs yet"
    return 0
  fi
  # As many files at once as there are cores ($WICK_JOBS; node's own default is one fewer,
  # so one at a time on CI's two): a file spends much of its time starting Chromium or a
  # runtime and waiting on the GPU process, which the other file's work fills.
  node --test --test-concurrency="$WICK_JOBS" "${files[@]}"
}

trap 'background_builds_stop; wick_stage_summary' EXIT
stage deps - "deps (setup.sh --deps-only)" deps
skipped wasm || wasm_start
stage build - "build/: configure + build" build_main
skipped asan-build || asan_build_start
stage unit build "build/: unit tests (ctest)" unit
stage e2e build "build/: upscale the bundled photo" e2e
stage py - "scripts/convert: model converter tests (python3 unittest)" python3 -m unittest discover -s scripts/convert -p 'test_*.py'
stage asan-build - "build-asan/: configure + build wick_tests and the fuzzers (since ctest)" asan_build_wait
stage asan asan-build "build-asan/: tests under ASan+UBSan" run_asan
stage fuzz asan-build "build-asan/: fuzz the .pte reader and the C API (${FUZZ_SECONDS} s)" run_fuzz
# The node tests load package/dist/wick.js, which only the wasm stage writes (it is not
# checked in): a fresh clone has none.
stage wasm - "build-wasm/: wasm bundles (scripts/build_wasm.sh, since deps)" wasm_wait
stage node wasm "node tests" node_tests
exit $FAILED
