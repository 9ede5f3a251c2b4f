#!/usr/bin/env bash
# convt11's device call (fast transposed convs, issue 11): the conv_transposed kernel bench
# (while the models export) and SAM 2.1's decoder and Depth Anything V2 Small at 518 on
# this branch's wick and on main's (wick_before), with ORT, no PyTorch. Staged by
#   BEFORE=/work/main/build/wick KBENCH=conv_transposed bash bench/vision/prepare.sh /work/main/.dev/convt11 build
# plus this script copied to /work/main/.dev/convt11/; run with carry [".gl", ".dev/convt11"].
set -o pipefail
S=.dev/convt11
FIRST="sam2_1_hiera_tiny_decoder_1click depth_anything_v2_small_518" BEFORE_MODELS=1 SKIP_FIXTURE=1 SKIP_TORCH=1 \
  KERNEL_BENCH=conv_transposed WICK_SECONDS=3 ORT_SECONDS=3 DEADLINE=${DEADLINE:-175} bash $S/vision/h200.sh \
  sam2_1_hiera_tiny_decoder_1click depth_anything_v2_small_518 2>&1 | tee $OUT/h200.log
cat $OUT/kernel_bench_conv_transposed.txt 2>/dev/null
# The transposed convs' dispatches in the profiles (both binaries).
mkdir -p /tmp/cl && tar -xzf $OUT/logs.tar.gz -C /tmp/cl 2>/dev/null
grep -H -i "transposed\|convolution" /tmp/cl/logs/wick*_profile_*.txt 2>/dev/null | head -40
echo "[${SECONDS}s] end"
