#!/usr/bin/env bash
# A lean device call (staged 2026-12-08): Dawn's robustness in the kernel benches, on
# (Wick's default, as in every browser) and off (WICK_ROBUSTNESS=0, the disable_robustness
# toggle onnxruntime's release builds set). The shipped GEMM tiles (conv_pw v21 / v22,
# matmul v34 / v41), whose K step's shared reads robustness no longer clamps, beside the
# same tiles as they were (conv_pw v38 / v39, matmul v60 / v61: a clamp a read); the flash
# attention at Whisper base and ViT-S, shipped (v31, v32, v76: Whisper's pick, subgroup row
# maxima and 2 splits) beside its body as it was (v71, v72, v74: the score and P @ V loops'
# shared reads clamped); the 3x3 implicit-GEMM conv, shipped (v23 / v24) and as it was (v32 /
# v33). If off beats on for the old kernels, the clamps cost time; if the
# shipped ones with robustness on match the old ones with it off, the rewrite got it back.
# Stage with `KBENCH="conv_pw conv matmul attention" SKIP_FIXTURE=1 bash bench/vision/prepare.sh`,
# carry .gl and .dev/bench/wick.tar.xz, run with OUT set. conv_pw runs first once as a warm-up
# (a cold GPU's first rows run slow); its file is kept apart.
set -u
. "$(dirname "$0")/../lean_call_setup.sh"
timeout 60 $K/wick_kernel_bench_conv_pw ${CONV_ARGS:-21 38 22 39} > $OUT/conv_pw_warmup.txt 2>&1
for r in 1 0; do
  export WICK_ROBUSTNESS=$r
  timeout 60 $K/wick_kernel_bench_conv_pw ${CONV_ARGS:-21 38 22 39} > $OUT/conv_pw_robust$r.txt 2>&1
  timeout 70 $K/wick_kernel_bench_matmul --large ${MATMUL_ARGS:-34 60 41 61} > $OUT/matmul_robust$r.txt 2>&1
  timeout 60 $K/wick_kernel_bench_attention --case whisper --case vit-s ${ATTENTION_ARGS:-31 71 32 72 76 74} > $OUT/attention_robust$r.txt 2>&1
  timeout 60 $K/wick_kernel_bench_conv --only 3x3 ${CONV3_ARGS:-23 32 24 33} > $OUT/conv3x3_robust$r.txt 2>&1
  echo "[$SECONDS s] robustness $r done"
done
echo "[$SECONDS s] end"
