#!/usr/bin/env bash
# Fetches Dawn (WebGPU's C API) from npm into third_party/npm/dawn/{lib,include}.
#
#   libwebgpu_wrapper.so  <- bun-webgpu-linux-x64   (Dawn built as one shared library, wgpu* exports)
#   include/webgpu/*.h    <- react-native-webgpu    (the matching webgpu.h / webgpu_cpp.h)
#
# Idempotent: the tarballs are kept in third_party/npm/ and checked against pinned sha256s;
# nothing is downloaded or extracted again when the stamp file says it is already in place.
# Needs: npm (only when a tarball is missing), tar, sha256sum.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NPM_DIR="$ROOT/third_party/npm"
DAWN_DIR="$NPM_DIR/dawn"

BUN_PKG="bun-webgpu-linux-x64"
BUN_VER="0.1.7"
BUN_SHA256="8badfecdad4e726ac12be4f29771f4cbd7ce7683b4418316a547c5bda94fb798"
RNW_PKG="react-native-webgpu"
RNW_VER="0.10.2"
RNW_SHA256="6bbccc00e30c51ae196f8024167a5fbd66382ffc6c5ab57a834ee64a970c037f"

STAMP="$DAWN_DIR/.stamp"
STAMP_TEXT="$BUN_PKG@$BUN_VER $BUN_SHA256 $RNW_PKG@$RNW_VER $RNW_SHA256"

if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$STAMP_TEXT" \
      && -f "$DAWN_DIR/lib/libwebgpu_wrapper.so" && -f "$DAWN_DIR/include/webgpu/webgpu.h" ]]; then
  echo "fetch_dawn: up to date ($DAWN_DIR)"
  exit 0
fi

mkdir -p "$NPM_DIR"

# fetch NAME VERSION SHA256 -> path of the verified tarball on stdout
fetch() {
  local name="$1" version="$2" want="$3"
  local tgz="$NPM_DIR/$name-$version.tgz"
  if [[ -f "$tgz" ]] && echo "$want  $tgz" | sha256sum --check --status; then
    echo "$tgz"
    return
  fi
  rm -f "$tgz"
  echo "fetch_dawn: npm pack $name@$version" >&2
  (cd "$NPM_DIR" && npm pack --silent "$name@$version" >/dev/null)
  if [[ ! -f "$tgz" ]]; then
    echo "fetch_dawn: npm pack did not produce $tgz" >&2
    exit 1
  fi
  local got
  got="$(sha256sum "$tgz" | cut -d' ' -f1)"
  if [[ "$got" != "$want" ]]; then
    echo "fetch_dawn: sha256 mismatch for $tgz: got $got, pinned $want" >&2
    rm -f "$tgz"
    exit 1
  fi
  echo "$tgz"
}

BUN_TGZ="$(fetch "$BUN_PKG" "$BUN_VER" "$BUN_SHA256")"
RNW_TGZ="$(fetch "$RNW_PKG" "$RNW_VER" "$RNW_SHA256")"

# Extract into a scratch dir, then move into place, so an interrupted run leaves no half tree.
TMP="$(mktemp -d "$NPM_DIR/.dawn.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
tar -xzf "$BUN_TGZ" -C "$TMP" package/libwebgpu_wrapper.so package/LICENSE
mkdir -p "$TMP/dawn/lib" "$TMP/dawn/include"
mv "$TMP/package/libwebgpu_wrapper.so" "$TMP/dawn/lib/"
mv "$TMP/package/LICENSE" "$TMP/dawn/LICENSE.bun-webgpu"
rm -rf "$TMP/package"
tar -xzf "$RNW_TGZ" -C "$TMP" package/cpp/webgpu package/LICENSE
mv "$TMP/package/cpp/webgpu" "$TMP/dawn/include/webgpu"
mv "$TMP/package/LICENSE" "$TMP/dawn/LICENSE.react-native-webgpu"
echo "$STAMP_TEXT" > "$TMP/dawn/.stamp"

rm -rf "$DAWN_DIR"
mv "$TMP/dawn" "$DAWN_DIR"
echo "fetch_dawn: Dawn in $DAWN_DIR"
