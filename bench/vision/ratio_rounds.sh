#!/usr/bin/env bash
# Wick against onnxruntime-node's WebGPU EP in alternating rounds on models h200.sh already
# exported (same W, same call): a single pair of medians moves by a few percent between runs
# on the shared machine (Whisper base's Wick/ORT was 0.49, then 0.51), so each round times
# Wick, then ORT, and the script prints every round's ratio and their median.
#
#   ROUNDS=3 bash .dev/<stage>/vision/ratio_rounds.sh MODEL...
#
# Settings as h200.sh's bench rows (200 runs or the time bound, medians). Output: one line a
# round and model, then "median ratio" a model; the logs under $OUT/ratio_rounds/.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/run_env.sh"
R=${OUT:-/tmp/vision_out}/ratio_rounds
NODE=$W/node
export ORT_NODE_DIR=$W/node_modules/onnxruntime-node
mkdir -p "$R"
for m in "$@"; do
  D=$W/models/$m
  [[ -f $D/model.pte && -f $D/model.onnx ]] || { echo "$m: not exported"; continue; }
  model_inputs "$D"
  ratios=()
  for ((r = 1; r <= ${ROUNDS:-3}; ++r)); do
    timeout 40 "$WICK" bench "$D/model.pte" --backend webgpu --runs 200 --warmup 3 --max-seconds "${SECONDS_EACH:-2}" \
      "${inargs[@]}" > "$R/wick_${m}_$r.txt" 2>&1
    timeout 60 "$NODE" "$VISION/ort_bench.mjs" --model "$D/model.onnx" "${inargs[@]}" --ep webgpu --runs 200 \
      --warmup 5 --max-seconds "${SECONDS_EACH:-2}" > "$R/ort_${m}_$r.txt" 2>&1
    w=$(grep -o 'median [0-9.]* ms' "$R/wick_${m}_$r.txt" | grep -o '[0-9.]*' | head -1)
    o=$(grep -o '"median_ms":[0-9.]*' "$R/ort_${m}_$r.txt" | grep -o '[0-9.]*$' | head -1)
    if [[ -n $w && -n $o ]]; then
      ratio=$(python3 -c "print(f'{$w / $o:.3f}')")
      ratios+=("$ratio")
      echo "$m round $r: wick $w ms, ort $(python3 -c "print(f'{$o:.3f}')") ms, ratio $ratio"
    else
      echo "$m round $r: no median (wick '$w', ort '$o')"
    fi
  done
  [[ ${#ratios[@]} -gt 0 ]] &&
    echo "$m median ratio: $(printf '%s\n' "${ratios[@]}" | sort -g | python3 -c "import sys; v=[float(l) for l in sys.stdin]; print(f'{v[len(v)//2]:.3f} of {len(v)} rounds')")"
done
