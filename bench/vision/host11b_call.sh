#!/usr/bin/env bash
# host11b's branch on the H200 (for the coordinator; not run by host11b, which had no device
# time): SAM 2.1's encoder and decoder and D-FINE S through h200.sh with BEFORE_MODELS=1
# (this build against the one it started from: profile medians, first call, TFLOP/s of the
# largest layers, `wick bench`), then the readback A/B (one shared MapRead buffer, the
# default, against WICK_READBACK_STAGING=0: a buffer and a map per output), twice each.
#
#   BEFORE=<main's wick> bash bench/vision/prepare.sh /work/main/.dev/host11b
#   (prepare.sh copies env_ab.sh, run_env.sh and this script into the stage)
#   run (carry .gl and .dev/host11b): bash .dev/host11b/vision/host11b_call.sh
set -o pipefail
S=.dev/host11b
SKIP_FIXTURE=1 SKIP_TORCH=1 BEFORE_MODELS=1 WICK_SECONDS=3 ORT_SECONDS=3 DEADLINE=${DEADLINE:-330} \
  bash $S/vision/h200.sh sam2_1_hiera_tiny_encoder_1024 sam2_1_hiera_tiny_decoder_1click dfine_s_640 2>&1 | tee $OUT/h200.log
echo "[${SECONDS}s] readback A/B"
AB_SECONDS=3 timeout 150 bash $S/vision/env_ab.sh \
  sam2_1_hiera_tiny_encoder_1024:WICK_READBACK_STAGING=0,default,WICK_READBACK_STAGING=0,default \
  sam2_1_hiera_tiny_decoder_1click:WICK_READBACK_STAGING=0,default \
  dfine_s_640:WICK_READBACK_STAGING=0,default 2>&1 | tee $OUT/env_ab.log
echo "[${SECONDS}s] end"
