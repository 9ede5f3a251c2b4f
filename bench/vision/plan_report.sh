#!/usr/bin/env bash
# Planned activation memory and recorded dispatches of the delegate fixtures, per setting:
# the WebGPU graph summary `wick bench` prints (one call on zeros). For the memory plan's
# A/B (GraphOptions::joint_memory_plan, range_views) on any adapter, SwiftShader included:
#
#   bash bench/vision/plan_report.sh [WICK_BINARY] [SETTING ...]
#
# SETTING: `default` or VAR=VALUE[+VAR=VALUE...], e.g. WICK_JOINT_PLAN=0+WICK_RANGE_VIEWS=0.
# Fixtures: $FIXTURES (default ../shared/fixtures), the models below.
set -u
WICK=${1:-build/wick}
shift || true
settings=("$@")
[[ ${#settings[@]} -gt 0 ]] || settings=(default WICK_JOINT_PLAN=0+WICK_RANGE_VIEWS=0)
F=${FIXTURES:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/fixtures}
models=(demos/dfine_tiny demos/realesrgan_tiny pretrained/esrgan_slim_x4 pretrained/esrgan_slim_x2 demos/modnet_tiny
        demos/depth_anything_v2_tiny demos/detr_tiny demos/sam2_tiny_encoder demos/whisper_tiny_encoder
        models/mobilenet_v3_small)
for m in "${models[@]}"; do
  for s in "${settings[@]}"; do
    env_args=()
    [[ $s == default ]] || IFS=+ read -ra env_args <<< "$s"
    line=$(env "${env_args[@]}" "$WICK" bench "$F/$m/model.pte" --backend webgpu --runs 1 --warmup 0 --max-seconds 1 2>&1 |
           grep -o '[0-9]* dispatches recorded; activations [0-9.]* KiB planned' | head -1)
    echo "$m [$s]: ${line:-failed}"
  done
done
