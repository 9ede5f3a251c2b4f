#!/usr/bin/env bash
# Conv on the lent NVIDIA H200 in one device call, after the implicit-GEMM path shipped:
#  1. Real-ESRGAN x4 (RRDBNet, 23 blocks) on a 64x64 tile exported in the background with
#     bench/vision/export.py (ExecuTorch's Vulkan partitioner from .et, random weights,
#     PyTorch eager reference);
#  2. the kernel bench at a steady clock (--copies 20 back-to-back dispatches per timing);
#  3. `wick bench` of the conv fixtures and of Real-ESRGAN with the new wick and the one
#     before (wick-before), Real-ESRGAN's output against eager (bench/vision/compare.py),
#     and its per-dispatch GPU profile summed by kernel.
# Staged into $S (default .dev/conv2, git-ignored) as prepare_h200.sh does plus
# wick-before and the fixtures in $S/fx; run from the root of the checkout the device
# call sends, carrying .gl, .et and $S:
#   bash $S/h200_e2e.sh
set -u
S=${S:-.dev/conv2}
R=${OUT:-/tmp/conv_out}
W=/tmp/conv_e2e
mkdir -p "$R" "$W"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[[ -f $S/stage.tar.xz ]] && tar -xJf $S/stage.tar.xz -C $S
export LD_LIBRARY_PATH=$PWD/$S PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(. .et/env.sh && EXPORT_THREADS=4 timeout ${ETIME:-170} python3 bench/vision/export.py realesrgan_x4_tile64 "$W/models" \
   > "$R/export_realesrgan_x4_tile64.log" 2>&1; echo "exit $?" >> "$R/export_realesrgan_x4_tile64.log") &
EXPORT=$!
D=$(cat $S/kernel_bench_dir)
mkdir -p "$(dirname "$D")" && ln -sfn "$PWD/$S/kernels" "$D"
echo "== kernel bench (median of ${REPS:-5} submits x 20 back-to-back copies)"
[[ -n ${SKIP_KERNELS:-} ]] || timeout ${KTIME:-150} $S/wick_kernel_bench_conv --reps "${REPS:-5}" --copies 20 ${VARIANTS:-3 5 6} > "$R/kernels.txt" 2>&1
grep -c " ok " "$R/kernels.txt"; grep FAIL "$R/kernels.txt"
for wk in wick wick-before; do
  for m in $S/fx/*/*/model.pte; do
    n=${m#$S/fx/}; n=${n%/model.pte}
    echo "== $wk $n: $(timeout 30 $S/$wk bench "$m" --backend webgpu --runs 30 --warmup 5 2>&1 | head -1)"
  done
done
wait $EXPORT
tail -2 "$R/export_realesrgan_x4_tile64.log"
M=$W/models/realesrgan_x4_tile64
if [[ -f $M/model.pte ]]; then
  for wk in wick wick-before; do
    echo "== $wk realesrgan_x4_tile64: $(timeout 60 $S/$wk bench $M/model.pte --backend webgpu --runs 20 --warmup 3 2>&1 | head -1)"
    timeout 60 $S/$wk run $M/model.pte --backend webgpu --profile --input $M/input.bin:float32:1,3,64,64 \
      --output-dir $W/out_$wk > "$R/profile_realesrgan_$wk.txt" 2>&1
    python3 bench/vision/compare.py $M/ref.bin $W/out_$wk/output_0.bin --rtol 1e-3
    # GPU time by kernel (rows: index, op, shader, gpu us, then first us / GFLOP / TFLOP/s).
    awk '$1 ~ /^[0-9]+$/ && NF >= 4 && $3 != "delegate" && $4 ~ /^[0-9.]+$/ {t[$3] += $4; n[$3]++} END {for (k in t) printf "   %-24s %5d dispatches %10.1f us\n", k, n[k], t[k]}' \
      "$R/profile_realesrgan_$wk.txt" | sort -k4 -n -r | head -8
    grep "^total: " "$R/profile_realesrgan_$wk.txt" | tail -1
  done
fi
