#!/usr/bin/env bash
# Per-layer GPU profiles of a model h200.sh already exported (same W), one per environment
# setting: `wick run --profile --profile-runs 100` (the median of 99 calls after the first,
# each dispatch timed inside the call's passes) after a second of `wick bench` to bring the
# GPU to its clocks (a cold GPU's first calls run 2-4x slow). One file per setting under $OUT
# (profile_<model>_<setting with = as _>.txt) with the run's "largest 10 by FLOPs" summary.
#
#   bash .dev/<stage>/vision/profile_ab.sh MODEL SETTING... (SETTING: NAME=VALUE or default;
#   A=1+B=2 sets both)
set -u
. "$(dirname "${BASH_SOURCE[0]}")/run_env.sh"
R=${OUT:-/tmp/vision_out}
m=$1
shift
D=$W/models/$m
[[ -f $D/model.pte ]] || { echo "$m: not exported"; exit 1; }
model_inputs "$D"
for setting in "$@"; do
  setting_env "$setting"
  f=$R/profile_${m}_${setting//=/_}.txt
  env "${env_args[@]}" timeout 30 "$WICK" bench "$D/model.pte" --backend webgpu --runs 1000 --warmup 3 --max-seconds 1 \
    "${inargs[@]}" > /dev/null 2>&1
  env "${env_args[@]}" timeout 60 "$WICK" run "$D/model.pte" --backend webgpu --profile --profile-runs 100 "${inargs[@]}" \
    --output-dir /tmp/profile_ab_out > "$f" 2>&1
  echo "$m $setting: $(grep -m1 '^largest 10' "$f") | $(grep -m1 '^total:' "$f")"
done
