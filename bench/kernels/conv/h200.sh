#!/usr/bin/env bash
# Conv on the lent NVIDIA H200 (Dawn on NVIDIA's Vulkan driver), one device call: the
# kernel bench (variants $VARIANTS, default all, GPU-timed by timestamp queries) and
# `wick bench` of the conv-heavy fixtures with every staged wick (KERNELS_ONLY=1 skips it).
# Stage with bench/kernels/conv/prepare_h200.sh, then from the repo root, carrying .gl
# (Vulkan loader debs) and the staging folder ($S, default .bench/conv):
#   bash bench/kernels/conv/h200.sh
# Results go to bench/results/conv_h200.txt (copy the output there).
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
S=${S:-.bench/conv}
export LD_LIBRARY_PATH=$PWD/$S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
# The kernel bench opens <configured source tree>/bench/kernels/conv/*.wgsl: point that
# path at the staged copy of the variants (or this tree's) when it differs.
D=$(cat $S/kernel_bench_dir)
K=$PWD/bench/kernels
[[ -d $S/kernels ]] && K=$PWD/$S/kernels
if [[ ! -f "$D/conv/v1_oc4.wgsl" ]]; then mkdir -p "$(dirname "$D")" && ln -sfn "$K" "$D"; fi
echo "== kernel bench (median of ${REPS:-20})"
timeout 400 $S/wick_kernel_bench_conv --reps "${REPS:-20}" ${VARIANTS:-} 2>&1
[[ -n ${KERNELS_ONLY:-} ]] && exit 0
RUNS=${RUNS:-100}
for W in $S/wick $S/wick-*; do
  [[ -x $W ]] || continue
  echo "=================== $W"
  for m in $S/fx/*/*/model.pte; do
    name=${m#$S/fx/}; name=${name%/model.pte}
    echo "== $name"
    timeout 60 $W bench "$m" --backend webgpu --runs "$RUNS" --warmup 10 2>&1 | sed 's/^/   /'
  done
done
echo "== per-dispatch GPU profile: pretrained/esrgan_slim_x4 ($S/wick)"
F=$S/fx/pretrained/esrgan_slim_x4
$S/wick run $F/model.pte --backend webgpu --profile --input $F/case0_input0.bin:float32:1,3,64,64 \
  --output-dir /tmp/esrgan 2>&1 | tail -30
