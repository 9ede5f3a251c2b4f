#!/usr/bin/env bash
# dfine11's device call (issue 11, the convolution-heavy models), staged by
#   BEFORE=/work/main/build/wick KBENCH=conv_pw bash bench/vision/prepare.sh /work/main/.dev/dfine11
#   cp bench/vision/dfine11_call.sh /work/main/.dev/dfine11/
# and run from /work/main carrying [".gl", ".dev/dfine11"]: the pointwise-conv kernel bench
# (bench/kernels/conv/conv_pw_bench.cpp, on the GPU while the models export), then D-FINE S
# 640, Real-ESRGAN x4 (64x64 tile) and MODNet 512 against ORT on this branch's wick and on
# main's (BEFORE_MODELS=1), then env A/B of the new choices on the exported models:
# conv2d_igemm's split over K off (WICK_CONV_SPLITK=0), the pointwise GEMM off or forced
# (WICK_CONV_PW_GEMM=0/1).
set -o pipefail
S=.dev/dfine11
MODELS="dfine_s_640 realesrgan_x4_tile64 modnet_512"
BEFORE_MODELS=1 SKIP_TORCH=1 SKIP_FIXTURE=1 KERNEL_BENCH=conv_pw FIRST="$MODELS" WICK_SECONDS=3 ORT_SECONDS=3 \
  DEADLINE=${DEADLINE:-150} bash $S/vision/h200.sh $MODELS 2>&1 | tee $OUT/h200.log
echo "[${SECONDS}s] env A/B"
if (( SECONDS < 172 )); then
  AB_SECONDS=2 timeout $((192 - SECONDS)) bash $S/vision/env_ab.sh \
    realesrgan_x4_tile64:WICK_CONV_SPLITK=0,default dfine_s_640:WICK_CONV_PW_GEMM=0,WICK_CONV_PW_GEMM=1,default \
    modnet_512:WICK_CONV_SPLITK=0,WICK_CONV_PW_GEMM=0,default 2>&1 | tee $OUT/env_ab.log
fi
echo "[${SECONDS}s] end"
