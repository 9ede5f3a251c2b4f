#!/usr/bin/env bash
# A lean device call (2026-12-07, late session): the kernel benches alone, for one shared
# buffer (matmul_large_tile.inc.wgsl's NBUF = 1: conv_pw v29-v31, matmul v49-v51) beside the
# shipped tiles (conv_pw v21, matmul v34 / v41). No model exports. Stage with
# `KBENCH="conv_pw matmul" SKIP_FIXTURE=1 bash bench/vision/prepare.sh`, carry .gl and
# .dev/bench/wick.tar.xz, run with OUT set. The matmul bench runs first and warms the GPU (a
# cold GPU's first rows run slow), so its first rows may read slow.
set -u
. "$(dirname "$0")/../lean_call_setup.sh"
# The matmul bench first: it brings the GPU to its clocks for the conv_pw bench after it.
timeout 60 $K/wick_kernel_bench_matmul --large ${MATMUL_ARGS:-34 41 49 50 51} > $OUT/matmul.txt 2>&1
timeout 60 $K/wick_kernel_bench_conv_pw ${CONV_ARGS:-21 29 30 31} > $OUT/conv_pw.txt 2>&1
echo "[$SECONDS s] end"
