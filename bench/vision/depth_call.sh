#!/usr/bin/env bash
# One device call (2026-12-07 night): two K tiles of global loads in flight in the vec4 GEMM
# tiles (GraphOptions::gemm_depth, WICK_GEMM_DEPTH=2: matmul_large_tile.inc.wgsl's DEPTH, two
# staging register sets, so each tile's loads have two steps of FMAs to arrive instead of
# one). The kernel benches first, while D-FINE S and Whisper base export: conv_pw v21 / v22
# against v36 / v37, matmul v34 / v41 / v32 / v35 against v56-v59 (conv_pw twice: a cold GPU's
# first rows run slow). Then both models' table rows, profiles and an end-to-end A/B with and
# without the setting, and Wick/ORT rounds timing Wick both ways. Stage with
# `KBENCH="conv_pw matmul" SKIP_FIXTURE=1 bash bench/vision/prepare.sh`; run with OUT set
# (ab_call.sh).
D2=WICK_GEMM_DEPTH=2
KERNEL_BENCH="${KERNEL_BENCH:-conv_pw conv_pw matmul}" KBENCH_ARGS_conv_pw="${KBENCH_ARGS_conv_pw:-21 36 22 37}" \
  KBENCH_TIMEOUT_conv_pw=80 KBENCH_ARGS_matmul="${KBENCH_ARGS_matmul:---large 34 56 41 57 32 58 35 59}" KBENCH_TIMEOUT_matmul=90 \
  PROFILES="${PROFILES:-dfine_s_640:default,$D2 whisper_base_encoder_30s:default,$D2}" \
  AB_AFTER="${AB_AFTER:-dfine_s_640:$D2,default,$D2,default whisper_base_encoder_30s:$D2,default,$D2,default}" \
  WICK_SETTINGS="${WICK_SETTINGS:-default $D2}" SKIP_TORCH=${SKIP_TORCH:-1} \
  DEADLINE=${DEADLINE:-240} exec bash "$(dirname "$0")/ab_call.sh"
