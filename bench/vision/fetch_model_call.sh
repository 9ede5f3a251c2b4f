#!/usr/bin/env bash
# Exports benchmark models on the device machine and brings them home, for debugging on this
# machine (SwiftShader, lavapipe, the Wasm bundle) what only a real-size export shows. One
# device call, carrying the staged toolchain (prepare.sh's et.tar.xz and vision/; the export
# needs no GPU, so no Vulkan loader):
#
#   bash .dev/bench/vision/fetch_model_call.sh MODEL...
#
# $OUT gets MODEL.tar split into parts of 15 MB (the device tool brings back files of 16 MB at
# most): `cat MODEL.tar.part* | tar -x` gives MODEL/ with model.pte, input_I.bin, ref_I.bin
# and meta.json (export.py's layout). Used for the SAM 2.1 decoder whose Wasm output differs
# (bench/results/vision_h200.md).
set -eu
VISION=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STAGE=$(dirname "$VISION")
W=${W:-/tmp/vb}
mkdir -p "$W/models"
tar -xJf "$STAGE/et.tar.xz" -C "$W"
export EXPORT_THREADS=4 PYTHONUNBUFFERED=1
for m in "$@"; do
  (. "$W/et/env.sh" && timeout 300 python3 "$VISION/export.py" "$m" "$W/models" pte) 2>&1 | grep -v Warning | tail -3
  (cd "$W/models" && tar -cf - "$m" | split -b 15M -d - "$OUT/$m.tar.part")
  ls -la "$OUT"
done
