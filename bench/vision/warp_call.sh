#!/usr/bin/env bash
# One device call (2026-12-07 night): the GEMM tiles' warp shape (GraphOptions::gemm_warp_rows,
# WICK_GEMM_WARP_ROWS=4: each 32 consecutive invocations as 4 rows of 8 threads, so a K
# step's vec4 reads of the wide operand's tile touch one shared-memory wavefront instead of
# two). The kernel benches first, while D-FINE S and Whisper base export: conv_pw v21 / v22
# against v32-v35, matmul v34 / v41 / v32 against v52-v55 (conv_pw twice: a cold GPU's first
# rows run slow, the second run's file is kept). Then both models' table rows, profiles and
# an end-to-end A/B with and without the setting (Whisper also with a first command buffer of 4
# dispatches and with WICK_READBACK_MAP_WAIT=0), and Wick/ORT rounds timing Wick both ways.
# Stage with `KBENCH="conv_pw matmul" SKIP_FIXTURE=1 bash bench/vision/prepare.sh`; run with
# OUT set (ab_call.sh). Ran once (2026-12-07 night, bench/results/vision_h200.md); the switch
# made no difference and was taken out after, so WICK_GEMM_WARP_ROWS now sets nothing.
W4=WICK_GEMM_WARP_ROWS=4
KERNEL_BENCH="${KERNEL_BENCH:-conv_pw conv_pw matmul}" KBENCH_ARGS_conv_pw="${KBENCH_ARGS_conv_pw:-21 32 34 35 22 33}" \
  KBENCH_TIMEOUT_conv_pw=80 KBENCH_ARGS_matmul="${KBENCH_ARGS_matmul:---large 34 52 55 41 53 32 54}" KBENCH_TIMEOUT_matmul=90 \
  PROFILES="${PROFILES:-dfine_s_640:default,$W4 whisper_base_encoder_30s:default,$W4}" \
  AB_AFTER="${AB_AFTER:-dfine_s_640:$W4,default,$W4,default whisper_base_encoder_30s:$W4,default,$W4,default,WICK_SUBMIT_CHUNK=4,WICK_SUBMIT_CHUNK=4+$W4,WICK_READBACK_MAP_WAIT=0}" \
  WICK_SETTINGS="${WICK_SETTINGS:-default $W4}" SKIP_TORCH=${SKIP_TORCH:-1} \
  DEADLINE=${DEADLINE:-240} exec bash "$(dirname "$0")/ab_call.sh"
