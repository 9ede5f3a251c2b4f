#!/usr/bin/env bash
# Side-by-side `wick bench` of models h200.sh already exported, under environment settings
# that switch one runtime feature off (WICK_SUBMIT_CHUNK=0: one command buffer per call;
# WICK_CAT_IN_PLACE=0: every cat copies its inputs; WICK_READBACK_STAGING=0: one readback
# buffer and one map per output instead of one shared buffer; WICK_FUSE_CHAINS=0: no
# elementwise chain fusion; WICK_FUSE_MATMUL_EPILOGUE=0: GELU / layer scale / residual after
# a linear as ops of their own; WICK_NORM_SPLIT=0 / WICK_NORM_ROWS=0: row norms on one
# workgroup per row; WICK_JOINT_PLAN=0: views planned first and in-place cats in buffers of
# their own; WICK_RANGE_VIEWS=0: selects and splits copy), or on (WICK_SUBGROUPS=1: the
# subgroup row reductions, off by default), next to the default, in one device call right
# after h200.sh (same W):
#
#   bash .dev/<stage>/vision/env_ab.sh MODEL:SETTING[,SETTING...] ...
#
# e.g. realesrgan_x4_tile64:WICK_CAT_IN_PLACE=0,WICK_SUBMIT_CHUNK=0,default (A=1+B=2: both at
# once). One log per
# model and setting under $OUT (env_ab_<model>_<setting with = as _>.txt), medians printed.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/run_env.sh"
R=${OUT:-/tmp/vision_out}
for spec in "$@"; do
  m=${spec%%:*}
  D=$W/models/$m
  [[ -f $D/model.pte ]] || { echo "$m: not exported"; continue; }
  model_inputs "$D"
  IFS=, read -ra settings <<< "${spec#*:}"
  for s in "${settings[@]}"; do
    log=$R/env_ab_${m}_${s//=/_}.txt
    # A setting of several variables joins them with '+': WICK_MATMUL_SPLITK=auto+WICK_FLASH_SPLITKV=auto.
    setting_env "$s"
    timeout 40 env "${env_args[@]}" "$WICK" bench "$D/model.pte" --backend webgpu --runs 200 --warmup 3 \
      --max-seconds "${AB_SECONDS:-3}" "${inargs[@]}" > "$log" 2>&1
    echo "$m $s: $(grep -o 'median [0-9.]* ms, min [0-9.]* ms' "$log") $(grep -o '[0-9]* dispatches recorded' "$log") $(grep -o 'activations [0-9.]* KiB planned' "$log")"
  done
done
