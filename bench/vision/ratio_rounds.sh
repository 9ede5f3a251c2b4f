#!/usr/bin/env bash
# Wick against onnxruntime-node's WebGPU EP in alternating rounds on models h200.sh already
# exported (same W, same call): a single pair of medians moves by a few percent between runs
# on the shared machine (Whisper base's Wick/ORT was 0.49, then 0.51), so each round times
# Wick, then ORT, and the script prints every round's ratio and their median.
#
#   ROUNDS=3 [WICK_SETTINGS="default WICK_X=1"] bash .dev/<stage>/vision/ratio_rounds.sh MODEL...
#
# WICK_SETTINGS: Wick is timed under each setting in every round (env_ab.sh's form; default:
# "default" alone), each against the round's one ORT median. Settings as h200.sh's bench rows
# (200 runs or the time bound, medians). Output: one line a round, model and setting, then
# "median ratio" a model and setting; the logs under $OUT/ratio_rounds/.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/run_env.sh"
R=${OUT:-/tmp/vision_out}/ratio_rounds
NODE=$W/node
export ORT_NODE_DIR=$W/node_modules/onnxruntime-node
mkdir -p "$R"
read -ra settings <<< "${WICK_SETTINGS:-default}"
for m in "$@"; do
  D=$W/models/$m
  [[ -f $D/model.pte && -f $D/model.onnx ]] || { echo "$m: not exported"; continue; }
  model_inputs "$D"
  declare -A ratios=()
  for ((r = 1; r <= ${ROUNDS:-3}; ++r)); do
    declare -A wick_ms=()
    for s in "${settings[@]}"; do
      setting_env "$s"
      tag=$([[ $s == default ]] && echo "" || echo "_${s//=/_}")
      timeout 40 env "${env_args[@]}" "$WICK" bench "$D/model.pte" --backend webgpu --runs 200 --warmup 3 \
        --max-seconds "${SECONDS_EACH:-2}" "${inargs[@]}" > "$R/wick_${m}${tag}_$r.txt" 2>&1
      wick_ms[$s]=$(grep -o 'median [0-9.]* ms' "$R/wick_${m}${tag}_$r.txt" | grep -o '[0-9.]*' | head -1)
    done
    timeout 60 "$NODE" "$VISION/ort_bench.mjs" --model "$D/model.onnx" "${inargs[@]}" --ep webgpu --runs 200 \
      --warmup 5 --max-seconds "${SECONDS_EACH:-2}" > "$R/ort_${m}_$r.txt" 2>&1
    o=$(grep -o '"median_ms":[0-9.]*' "$R/ort_${m}_$r.txt" | grep -o '[0-9.]*$' | head -1)
    for s in "${settings[@]}"; do
      w=${wick_ms[$s]}
      label=$([[ $s == default ]] && echo "" || echo " [$s]")
      if [[ -n $w && -n $o ]]; then
        ratio=$(python3 -c "print(f'{$w / $o:.3f}')")
        ratios[$s]+="$ratio "
        echo "$m round $r$label: wick $w ms, ort $(python3 -c "print(f'{$o:.3f}')") ms, ratio $ratio"
      else
        echo "$m round $r$label: no median (wick '$w', ort '$o')"
      fi
    done
  done
  for s in "${settings[@]}"; do
    label=$([[ $s == default ]] && echo "" || echo " [$s]")
    [[ -n ${ratios[$s]:-} ]] &&
      echo "$m$label median ratio: $(printf '%s\n' ${ratios[$s]} | sort -g | python3 -c "import sys; v=[float(l) for l in sys.stdin]; print(f'{v[len(v)//2]:.3f} of {len(v)} rounds')")"
  done
  unset ratios
done
