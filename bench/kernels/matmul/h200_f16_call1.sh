#!/usr/bin/env bash
# Device call 1 of helper f16mm11 (staged into /work/main/.dev/f16mm11): the adapter's
# features and subgroup-matrix shapes, then the f16 matmul variants (matmul_f16_bench.cpp)
# on the H200. Run from /work/main through the device tool, carry [".gl", ".dev/f16mm11"].
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
D=$PWD/.dev/f16mm11
export LD_LIBRARY_PATH=$D WICK_KERNEL_BENCH_DIR=$D/kernels
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $OUT/matmul_h200_f16.txt
set -o pipefail
timeout 200 $D/wick_kernel_bench_matmul_f16 --reps 10 2>&1 | tee -a $OUT/matmul_h200_f16.txt
