#!/usr/bin/env bash
# Benchmarks Wick's WebGPU delegate on the lent NVIDIA H200 (Dawn on NVIDIA's Vulkan driver).
# Run through the device tool from the repo root, carrying .gl (Vulkan loader debs, see
# the device README) and .bench (made by bench/prepare_h200.sh: a Release `wick`,
# libwebgpu_wrapper.so and the fixture programs). Results: bench/results/h200.txt.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/.bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
W=.bench/wick
RUNS=${RUNS:-200}
for m in .bench/fx/*/*/model.pte; do
  name=${m#.bench/fx/}; name=${name%/model.pte}
  echo "== $name"
  $W bench "$m" --backend webgpu --runs "$RUNS" --warmup 10 2>&1 | sed 's/^/   /'
done
echo "== per-dispatch GPU profile: models/mobilenet_v3_small (one call)"
$W run .bench/fx/models/mobilenet_v3_small/model.pte --backend webgpu --profile \
  --input .bench/fx/models/mobilenet_v3_small/case0_input0.bin:float32:1,3,224,224 --output-dir /tmp/mnv3 2>&1 | tail -25
