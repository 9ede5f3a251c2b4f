#!/usr/bin/env bash
# Device call 2 of helper f16mm11 (NOT RUN: the device was no longer lent): the f16 matmul
# bench (v23-v25 against the f32 v15/v12, and the adapter's subgroup-matrix configs under
# the use_vulkan_memory_model toggle), then Depth Anything V2 S, Whisper base and the
# SAM 2.1 encoder exported and run with and without `wick --f16` (h200.sh's F16=1: check
# against eager, f16 against f32, timings; ORT alongside).
#
# Stage (from the worktree, after building wick and wick_kernel_bench_matmul_f16):
#   cp /work/main/.dev/bench/{et.tar.xz,node.xz,node.sha,ort.tar.xz} /work/main/.dev/f16mm11/
#   KBENCH=matmul_f16 bash bench/vision/prepare.sh /work/main/.dev/f16mm11
# Device (from /work/main), carry [".gl", ".dev/f16mm11"], timeout 330:
#   bash .dev/f16mm11/vision/f16_call2.sh   (this file, copied there by hand)
set -u
M="whisper_base_encoder_30s depth_anything_v2_small_518 sam2_1_hiera_tiny_encoder_1024"
F16=1 SKIP_FIXTURE=1 SKIP_TORCH=1 KERNEL_BENCH=matmul_f16 FIRST="$M" WICK_SECONDS=3 ORT_SECONDS=3 \
  DEADLINE=${DEADLINE:-290} bash "$(dirname "$0")/h200.sh" $M 2>&1 | tee "$OUT/h200.log"
