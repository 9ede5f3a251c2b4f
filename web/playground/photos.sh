#!/usr/bin/env bash
# The playground's sample photos, from Debian's python3-skimage (pinned; downloaded with
# apt-get download, not installed): astronaut.png (public domain), chelsea.png and
# coffee.png (CC0), checked by sha256 and put in web/playground/photos/ (not in git).
# scripts/serve.mjs serves them at /photos/. Without them the page offers the 64x64 cat
# face of examples/esrgan and any file you pick.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
VERSION=0.19.3-8
declare -A SHA=(
  [astronaut.png]=88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5
  [chelsea.png]=596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb
  [coffee.png]=cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7
)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download "python3-skimage=$VERSION" >/dev/null 2>&1) || {
  echo "photos.sh: apt-get download python3-skimage=$VERSION failed (is the Debian archive reachable?)" >&2
  exit 1
}
dpkg-deb -x "$tmp"/python3-skimage_*.deb "$tmp/x"
mkdir -p photos
for f in "${!SHA[@]}"; do
  src="$tmp/x/usr/lib/python3/dist-packages/skimage/data/$f"
  got="$(sha256sum "$src" | cut -d' ' -f1)"
  if [[ "$got" != "${SHA[$f]}" ]]; then
    echo "photos.sh: $f has sha256 $got, expected ${SHA[$f]}" >&2
    exit 1
  fi
  cp "$src" "photos/$f"
done
ls -l photos
