#!/usr/bin/env bash
# One device call (2026-12-08): Dawn's robustness off (WICK_ROBUSTNESS=0, the device toggle
# disable_robustness) against Wick's default (on, as in every browser). onnxruntime's WebGPU
# EP creates its device with robustness off in release builds (onnxruntime PR #31971: it had
# set the toggle unconditionally before that option existed), so the ORT column of the table
# has always run without the clamps and loop guards that Wick's kernels paid for.
# Kernel benches both ways while the models export (the first conv_pw run warms the GPU and
# is overwritten by the third), then D-FINE S and Whisper base: profiles, an end-to-end A/B
# and Wick/ORT rounds that time Wick both ways.
# Stage with `KBENCH="conv_pw matmul attention" SKIP_FIXTURE=1 bash bench/vision/prepare.sh`;
# run with OUT set (ab_call.sh), carry [".gl", ".dev/bench"].
R0=WICK_ROBUSTNESS=0
KERNEL_BENCH="${KERNEL_BENCH:-conv_pw conv_pw:$R0 conv_pw attention:$R0 attention matmul:$R0 matmul}" \
  KBENCH_ARGS_conv_pw="${KBENCH_ARGS_conv_pw:-21 22}" KBENCH_TIMEOUT_conv_pw=60 \
  KBENCH_ARGS_attention="${KBENCH_ARGS_attention:---case whisper --case vit-s 31 32}" KBENCH_TIMEOUT_attention=60 \
  KBENCH_ARGS_matmul="${KBENCH_ARGS_matmul:---large 34 41}" KBENCH_TIMEOUT_matmul=60 \
  PROFILES="${PROFILES:-dfine_s_640:default,$R0 whisper_base_encoder_30s:default,$R0}" \
  AB_AFTER="${AB_AFTER:-dfine_s_640:$R0,default,$R0,default whisper_base_encoder_30s:$R0,default,$R0,default}" \
  WICK_SETTINGS="${WICK_SETTINGS:-default $R0}" SKIP_TORCH=${SKIP_TORCH:-1} ROUNDS_TIMEOUT=${ROUNDS_TIMEOUT:-220} \
  DEADLINE=${DEADLINE:-260} exec bash "$(dirname "$0")/ab_call.sh"
