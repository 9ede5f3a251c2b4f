#!/usr/bin/env bash
# flash11's device call 1: the attention kernel bench on the H200. Staged (here) by
#   S=/work/main/.dev/flash11; T=$(mktemp -d); mkdir -p $T/k/attention
#   cp build/wick_kernel_bench_attention third_party/npm/dawn/lib/libwebgpu_wrapper.so $T/k/
#   cp -L bench/kernels/attention/*.wgsl $T/k/attention/; tar -C $T -cf - k | xz -6 > $S/k.tar.xz
#   cp bench/kernels/attention/h200_call.sh $S/call1.sh
# then the device tool: command `bash .dev/flash11/call1.sh`, carry [".gl", ".dev/flash11"].
set -o pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
W=/tmp/f11; mkdir -p $W && tar -xJf .dev/flash11/k.tar.xz -C $W
cd $W/k && LD_LIBRARY_PATH=$W/k WICK_KERNEL_BENCH_DIR=$W/k timeout 200 ./wick_kernel_bench_attention --reps 5 2>&1 | tee $OUT/attention_h200.txt
