#!/bin/bash
# The CPU executor of VK00 graphs (src/vkcpu) on delegated programs: `wick bench --backend
# cpu` (median over N calls of forward: input copy, every delegate op on the portable
# kernels, output copy), with the thread pool at 1 thread and at every core.
#   bench/cpu/cpu_backend_bench.sh [build/wick] > bench/results/cpu_backend.txt
set -euo pipefail
WICK=${1:-build/wick}
F=$(cd "$(dirname "$0")/../../../shared/fixtures" && pwd)
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
echo "# $WICK bench MODEL --backend cpu --runs R --warmup 2, inputs zeros of the declared shapes"
for spec in models/mobilenet_v3_small:20 pretrained/esrgan_slim_x4:5 demos/modnet_tiny:10 demos/detr_tiny:10 \
            demos/depth_anything_v2_tiny:10 demos/llama_q4gsw_kv:50 models/llama_et_kv_sdpa:50 models/mlp:200; do
  model=${spec%%:*} runs=${spec##*:}
  for threads in 1 $(nproc); do
    line=$(WICK_NUM_THREADS=$threads "$WICK" bench "$F/$model/model.pte" --backend cpu --runs "$runs" --warmup 2 | head -1)
    echo "threads=$threads  ${line#$F/}"
  done
done
