#!/usr/bin/env bash
# A lean device call (2026-12-07 night): the kernel benches alone for the warp's shape
# (matmul_large_tile.inc.wgsl's WARP_ROWS: conv_pw v32-v35, matmul v52-v55) beside the
# shipped tiles (conv_pw v21 / v22, matmul v34 / v41 / v32). No model exports: the lean
# fallback of bench/vision/warp_call.sh. Stage with `KBENCH="conv_pw matmul" SKIP_FIXTURE=1
# bash bench/vision/prepare.sh`, carry .gl and .dev/bench/wick.tar.xz, run with OUT set.
# conv_pw runs twice (the first warms the GPU to its clocks), then matmul.
set -u
. "$(dirname "$0")/../lean_call_setup.sh"
timeout 60 $K/wick_kernel_bench_conv_pw ${CONV_ARGS:-21 32 34 35 22 33} > $OUT/conv_pw_first.txt 2>&1
timeout 60 $K/wick_kernel_bench_conv_pw ${CONV_ARGS:-21 32 34 35 22 33} > $OUT/conv_pw.txt 2>&1
timeout 90 $K/wick_kernel_bench_matmul --large ${MATMUL_ARGS:-34 52 55 41 53 32 54} > $OUT/matmul.txt 2>&1
echo "[$SECONDS s] end"
