#!/usr/bin/env bash
# One device call (2026-12-07, late session): the 8x8-a-thread 64-row tiles in the kernel
# benches (conv_pw v26-v28, matmul v46-v48) beside the shipped tiles (conv_pw v21 / v22,
# matmul v33 / v34 / v41), on the GPU while D-FINE S and Whisper base export; then both
# models' table rows, per-layer profiles and Wick/ORT rounds on the same build (ab_call.sh:
# PROFILES and AB_AFTER add settings to profile and A/B). Stage with `KBENCH="conv_pw matmul"
# SKIP_FIXTURE=1 bash bench/vision/prepare.sh`; run with OUT set. ROUNDS=0: no rounds. The
# conv_pw bench runs twice (a cold GPU's first rows run slow); the second run's file is kept.
KERNEL_BENCH="${KERNEL_BENCH:-conv_pw conv_pw matmul}" KBENCH_ARGS_conv_pw="${KBENCH_ARGS_conv_pw:-21 22 26 27 28}" \
  KBENCH_TIMEOUT_conv_pw=80 KBENCH_ARGS_matmul="${KBENCH_ARGS_matmul:---large 33 34 41 46 47 48}" KBENCH_TIMEOUT_matmul=80 \
  DEADLINE=${DEADLINE:-240} exec bash "$(dirname "$0")/ab_call.sh"
