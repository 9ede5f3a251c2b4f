#!/usr/bin/env bash
# Host time outside the delegate calls (the method's input and output copies) with
# Method::forward's borrowed inputs and in-place outputs (docs/gpu.md, "Outputs") against
# WICK_INPUT_IN_PLACE=0 WICK_OUTPUT_IN_PLACE=0, on the tiny Whisper encoder fixture
# (input [1, 80, 3000] 0.92 MB, output [1, 1500, 64] 0.37 MB), interleaved, `wick run
# --profile`'s median of 15 calls after the first. Host-side only: any adapter will do.
#
#   bash bench/host/io_copies.sh [ROUNDS] > bench/results/host_io_copies.txt
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/env.sh > /dev/null
D=../shared/fixtures/demos/whisper_tiny_encoder
echo "# $(git log -1 --format='%h %s' | cut -c1-80)"
echo "# $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
for r in $(seq "${1:-3}"); do
  for e in "WICK_INPUT_IN_PLACE=0 WICK_OUTPUT_IN_PLACE=0" "default"; do
    envs=(); [[ $e == default ]] || read -ra envs <<< "$e"
    line=$(env "${envs[@]}" build/wick run "$D/model.pte" --profile --profile-runs 15 \
      --input "$D/case0_input0.bin:float32:1,80,3000" --output-dir "$(mktemp -d)" 2>&1 | grep "host:" | tail -1)
    echo "$e: $(grep -o 'outside the calls [0-9.]* ms' <<< "$line")"
  done
done
