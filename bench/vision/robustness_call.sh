#!/usr/bin/env bash
# One device call (2026-12-08): Dawn's robustness off (WICK_ROBUSTNESS=0, the device toggle
# disable_robustness) against Wick's default (on, as in every browser). onnxruntime's WebGPU
# EP creates its device with robustness off in release builds (onnxruntime PR #31971: it had
# set the toggle unconditionally before that option existed), so the ORT column of the table
# has always run without the clamps and loop guards that Wick's kernels paid for.
# D-FINE S and Whisper base: profiles, an end-to-end A/B and Wick/ORT rounds that time Wick
# both ways. The kernel benches both ways are a lean call of their own, run first:
# bench/kernels/robustness/kernels_call.sh.
# Stage with `KBENCH="conv_pw conv matmul attention" SKIP_FIXTURE=1 bash bench/vision/prepare.sh` (one stage for both calls);
# run with OUT set (ab_call.sh), carry [".gl", ".dev/bench"].
R0=WICK_ROBUSTNESS=0
PROFILES="${PROFILES:-dfine_s_640:default,$R0 whisper_base_encoder_30s:default,$R0}" \
  AB_AFTER="${AB_AFTER:-dfine_s_640:$R0,default,$R0,default whisper_base_encoder_30s:$R0,default,$R0,default}" \
  WICK_SETTINGS="${WICK_SETTINGS:-default $R0}" SKIP_TORCH=${SKIP_TORCH:-1} ROUNDS_TIMEOUT=${ROUNDS_TIMEOUT:-220} \
  DEADLINE=${DEADLINE:-260} exec bash "$(dirname "$0")/ab_call.sh"
