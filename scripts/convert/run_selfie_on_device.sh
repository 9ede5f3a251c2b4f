#!/usr/bin/env bash
# On the H200 machine (torch 2.x + ExecuTorch's toolchain in .et/), from the repository
# root: the selfie segmentation model from TF.js to selfie_256.pte and its reference, into
# OUTDIR.
#
#   bash scripts/convert/run_selfie_on_device.sh OUTDIR [DATA_DIR]
#
# DATA_DIR (default out/selfie_device; git-ignored, carry it) holds selfie.json and
# selfie.bin (fetch_human_models.sh), case0_input0.bin (selfie_input.py) and
# tfjs_output0.bin (tfjs_run.mjs): the device has no Node, no network and no photos.
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 OUTDIR [DATA_DIR]" >&2; exit 2; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$1"
data="${2:-out/selfie_device}"
[[ -f .et/env.sh ]] || { echo "no .et/env.sh here: copy ../shared/executorch to .et and carry it" >&2; exit 1; }
for f in selfie.json selfie.bin case0_input0.bin tfjs_output0.bin; do
  [[ -f "$data/$f" ]] || { echo "no $data/$f: carry that folder (README.md in $here)" >&2; exit 1; }
done
# shellcheck disable=SC1091
. .et/env.sh
mkdir -p "$out"
python3 "$here/tfjs_graph_model.py" "$data/selfie.json"
python3 "$here/selfie_tfjs.py" --model-dir "$data" --input "$data/case0_input0.bin" \
  --tfjs-output "$data/tfjs_output0.bin" --out "$out" 2>&1 | tee "$out/convert.log"
