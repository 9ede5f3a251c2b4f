# Environment shared by setup.sh and scripts/test.sh. Source it, don't run it:
#   . scripts/env.sh
# Safe to source more than once. Works under `set -euo pipefail`.

WICK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export WICK_ROOT
# Shared fixtures live beside the repository and are read in place. The scripts use this
# (fuzz seeds); the tests get the same path at configure time (tests/CMakeLists.txt).
export WICK_FIXTURES_DIR="${WICK_FIXTURES_DIR:-$(cd "$WICK_ROOT/.." && pwd)/shared/fixtures}"
WICK_JOBS="${WICK_JOBS:-$(nproc 2>/dev/null || echo 2)}"
export WICK_JOBS

# A GPU for Dawn on machines without one: SwiftShader's Vulkan driver from Debian's
# chromium. Set VK_ICD_FILENAMES yourself to use a real GPU's Vulkan driver instead.
export VK_ICD_FILENAMES="${VK_ICD_FILENAMES:-/usr/lib/chromium/vk_swiftshader_icd.json}"
# Mesa's lavapipe (bookworm-backports' mesa-vulkan-drivers, setup.sh), the second CPU Vulkan
# driver: it has shader-f16 and subgroups, which SwiftShader lacks. The f16 GPU tests run on
# it (VK_ICD_FILENAMES="$WICK_LAVAPIPE_ICD"; tests/CMakeLists.txt reads this at configure time).
export WICK_LAVAPIPE_ICD="${WICK_LAVAPIPE_ICD:-/usr/share/vulkan/icd.d/lvp_icd.json}"

# SwiftShader prints "XDG_RUNTIME_DIR is invalid" unless it names a 0700 directory we own.
if [[ -z "${XDG_RUNTIME_DIR:-}" || ! -d "${XDG_RUNTIME_DIR}" || ! -O "${XDG_RUNTIME_DIR}" \
      || "$(stat -c %a "${XDG_RUNTIME_DIR}" 2>/dev/null)" != 700 ]]; then
  XDG_RUNTIME_DIR="${TMPDIR:-/tmp}/wick-xdg-$(id -u)"
  mkdir -p -m 700 "$XDG_RUNTIME_DIR"
  chmod 700 "$XDG_RUNTIME_DIR"
fi
export XDG_RUNTIME_DIR

# emcc at -O2 and above runs Debian's acorn under the nodesource node (toolchain.md §7.2).
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"

# --- stage timing -------------------------------------------------------------------
# wick_stage NAME CMD...   runs CMD (a command or a function) in a subshell, prints its
#                          wall time, records the result; returns CMD's exit status.
# wick_stage_summary       prints the table of stages.
WICK_STAGE_NAMES=()
WICK_STAGE_SECONDS=()
WICK_STAGE_RESULTS=()

wick_now() { date +%s.%N; }

wick_stage() {
  local name="$1"
  shift
  local t0 t1 rc=0
  echo
  echo "=== $name"
  t0="$(wick_now)"
  # A subshell with errexit on, run outside any `||`/`&&` (where bash would ignore -e in
  # every function it calls): a failing command ends the stage, not the script.
  local had_e=0
  [[ $- == *e* ]] && had_e=1
  set +e
  (set -e; "$@")
  rc=$?
  [[ $had_e -eq 1 ]] && set -e
  t1="$(wick_now)"
  local secs
  secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
  WICK_STAGE_NAMES+=("$name")
  WICK_STAGE_SECONDS+=("$secs")
  if [[ $rc -eq 0 ]]; then WICK_STAGE_RESULTS+=("ok"); else WICK_STAGE_RESULTS+=("FAILED (exit $rc)"); fi
  echo "=== $name: ${secs} s, ${WICK_STAGE_RESULTS[-1]}"
  return $rc
}

wick_stage_summary() {
  local i total=0
  echo
  echo "=== stage times"
  for i in "${!WICK_STAGE_NAMES[@]}"; do
    printf '  %8s s  %-44s %s\n' "${WICK_STAGE_SECONDS[$i]}" "${WICK_STAGE_NAMES[$i]}" "${WICK_STAGE_RESULTS[$i]}"
    [[ "${WICK_STAGE_SECONDS[$i]}" == - ]] && continue
    total="$(awk -v a="$total" -v b="${WICK_STAGE_SECONDS[$i]}" 'BEGIN { printf "%.1f", a + b }')"
  done
  printf '  %8s s  %s\n' "$total" "total"
}

# The main build (build/), shared by setup.sh and scripts/test.sh so that neither rebuilds
# what the other built. -g1 (line tables only) keeps backtraces and costs a third less
# compile time than -g.
wick_configure_main() {  # extra cmake arguments pass through
  wick_configure build -DCMAKE_BUILD_TYPE="${WICK_BUILD_TYPE:-RelWithDebInfo}" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" "$@"
}

# wick_configure BUILD_DIR [cmake args...]: configures BUILD_DIR with Ninja (again, if it
# exists: cheap, and it applies changed arguments). A build dir made by another generator
# is reset first, since CMake refuses to switch generators in place.
wick_configure() {
  local dir="$1"
  shift
  if [[ -f "$dir/CMakeCache.txt" ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; then
    echo "wick: $dir was configured with another generator; resetting its CMake cache"
    rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
  fi
  cmake -S "$WICK_ROOT" -B "$dir" -G Ninja "$@"
}
