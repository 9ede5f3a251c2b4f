#!/usr/bin/env bash
# The side-by-side benchmark on the lent NVIDIA H200, in one device call: export every model
# of models.py (.pte with ExecuTorch's Vulkan partitioner, .onnx with torch.onnx), check
# each runtime's output against PyTorch eager, and time Wick (`wick bench`, Dawn on NVIDIA's
# Vulkan driver), onnxruntime-node 1.30's WebGPU EP (its own Dawn, same driver) and PyTorch
# CUDA (eager, CUDA graph). Staged by bench/vision/prepare.sh into STAGE (git-ignored);
# run from the root of the checkout the device tool sends, carrying .gl and STAGE:
#
#   bash .dev/bench/vision/h200.sh [MODEL...]
#
# Writes to $OUT (or /tmp/vision_out): results.jsonl (one JSON line per model and tool),
# table.md (medians, Wick/ORT ratio, correctness), h200.log and logs.tar.gz (every step).
# Knobs (environment): DEADLINE (s), FIRST (models benchmarked, and timed by PyTorch, before
# the rest), EXPORT_THREADS, WICK_SECONDS / ORT_SECONDS / TORCH_SECONDS (time cap of each
# timing loop), SKIP_FIXTURE=1 (leave out the Whisper tiny fixture step), PROBE=1 (print the
# transformers version and which model classes it has, first), SKIP_TORCH=1 (no PyTorch
# timings), BEFORE_MODELS=1 (every model also profiled and timed on wick_before, staged by
# prepare.sh's BEFORE=...: before/after in one call), KERNEL_BENCH="NAME..." (run
# wick_kernel_bench_NAME from the staged kbench/ while the models export; KBENCH_ARGS_NAME="..."
# its arguments), F16=1 (every
# model also run, checked and timed with `wick --f16`: f16 linear weights), PER_PASS=1 (every
# model also profiled with WICK_PROFILE_PER_PASS=1, a compute pass per dispatch, the way
# profiles were taken before timestamps inside passes: wick_profile_per_pass_MODEL.txt).
set -u
VISION=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)  # these scripts
STAGE=$(dirname "$VISION")                           # node.xz, ort.tar.xz, et.tar.xz, wick.tar.xz
R=${OUT:-/tmp/vision_out}
W=${W:-/tmp/vb}
LOGS=$W/logs
DEADLINE=${DEADLINE:-440}  # seconds from start: later steps are skipped, so the call ends in time
START=$SECONDS
mkdir -p "$R" "$W" "$LOGS"
MODELS=${*:-mobilenet_v3_small esrgan_slim_x4_64 esrgan_slim_x4_128 depth_anything_v2_small_518 whisper_base_encoder_30s realesrgan_x4_tile64 whisper_base_encoder_30s_sdpa depth_anything_v2_small_518_sdpa}
left() { echo $((DEADLINE - (SECONDS - START))); }
# A step's timeout: its own, cut to what is left before the deadline (at least 5 s).
tmo() { local l; l=$(left); echo $((l < $1 ? (l > 5 ? l : 5) : $1)); }
log() { echo "[$((SECONDS - START))s] $*"; }

export PYTHONUNBUFFERED=1
# DRY_RUN=1 (on a machine without torch or the device): the tools in place (WICK, NODE,
# ORT_NODE_DIR given), no exports; models already in $W/models.
if [[ -z ${DRY_RUN:-} ]]; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  for t in et ort wick; do tar -xJf "$STAGE/$t.tar.xz" -C "$W"; done
  xz -dc "$STAGE/node.xz" > "$W/node" && chmod +x "$W/node"
  export LD_LIBRARY_PATH=$W/wick
  export ORT_NODE_DIR=$W/node_modules/onnxruntime-node
  WICK=$W/wick/wick
  NODE=$W/node
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.used --format=csv,noheader
  cat "$W/wick/COMMIT"
  if [[ -n ${PROBE:-} ]]; then
    python3 -c "import torch, transformers, torchvision; print('torch', torch.__version__, 'transformers', transformers.__version__, 'torchvision', torchvision.__version__); print({n: hasattr(transformers, n) for n in ['Sam2Model', 'Sam2VisionModel', 'Sam2Config', 'Sam2HieraDetModel', 'DFineForObjectDetection', 'DFineConfig', 'HGNetV2Config']})" 2>&1 | tail -2
  fi
fi
RES=$R/results.jsonl
: > "$RES"
# Kernel benches (prepare.sh's KBENCH=...): on the GPU while the exports below keep the CPU busy.
KB_PID=
if [[ -n ${KERNEL_BENCH:-} && -d $W/wick/kbench ]]; then
  # KBENCH_ARGS_<name>: that bench's arguments (its variant numbers, say); KBENCH_TIMEOUT_<name>:
  # its time limit in seconds (60).
  (for k in $KERNEL_BENCH; do
     args_var=KBENCH_ARGS_$k
     tmo_var=KBENCH_TIMEOUT_$k
     read -ra kargs <<< "${!args_var:-}"
     WICK_KERNEL_BENCH_DIR=$W/wick/kbench stdbuf -oL timeout "${!tmo_var:-60}" "$W/wick/kbench/wick_kernel_bench_$k" "${kargs[@]}" > "$R/kernel_bench_$k.txt" 2>&1
   done) &
  KB_PID=$!
fi
log "tools: node $("$NODE" --version), wick $(du -h "$WICK" | cut -f1)"

# 1. Exports, all models at once, each format in its own process on one thread (lowering is
# single-threaded Python), so that half the 16 cores stay free for the timings, which start
# as soon as a model's export is done. The .pte process writes the references and meta.json.
export EXPORT_THREADS=${EXPORT_THREADS:-1}
for m in $([[ -z ${DRY_RUN:-} ]] && echo "$MODELS"); do
  for part in pte onnx; do
    lf=$LOGS/export_$m.log
    [[ $part == onnx ]] && lf=$LOGS/export_onnx_$m.log
    (. "$W/et/env.sh" && timeout "${EXPORT_TIMEOUT:-300}" python3 "$VISION/export.py" "$m" "$W/models" $part > "$lf" 2>&1;
     echo "exit $?" >> "$lf") &
  done
done
# Waits (until the deadline is near) for an export log to end.
wait_export() { while ! grep -q '^exit ' "$1" 2>/dev/null && [[ $(left) -gt 20 ]]; do sleep 1; done; }

# 2. Per model, one tool after the other (nothing else runs on the GPU meanwhile).
bench_model() {
  local m=$1 D=$W/models/$1
  if [[ -z ${DRY_RUN:-} ]]; then
    wait_export "$LOGS/export_$m.log"
    log "export $m: $(grep -v Warning "$LOGS/export_$m.log" | tail -4 | tr '\n' ' ' | cut -c1-600)"
  fi
  [[ -f $D/meta.json ]] || { log "$m: no export, skipped"; return; }
  # every input as FILE:dtype:shape (wick and ort_bench.mjs take the same form), one output file each
  local inputs=() outs=() i
  mapfile -t inputs < <(python3 "$VISION/input_specs.py" "$D")
  local inargs=() s n_out
  for s in "${inputs[@]}"; do inargs+=(--input "$s"); done
  n_out=$(python3 -c "import json;print(len(json.load(open('$D/meta.json'))['outputs']))")
  for ((i = 0; i < n_out; ++i)); do outs+=(--output "$D/wick_out_$i.bin"); done
  if [[ -f $D/model.pte && $(left) -gt 20 ]]; then
    # One second of runs first: after the exports the GPU has idled at a low clock, and the
    # profile's five timed calls are too few to bring it up (MODNet, first in a call of
    # 2026-12-06, profiled 4x slower than its bench).
    timeout $(tmo 20) "$WICK" bench "$D/model.pte" --backend webgpu --runs 100 --warmup 1 --max-seconds 1 "${inargs[@]}" \
      > /dev/null 2>&1
    # The median of PROFILE_RUNS calls (50) after the first: with the default five, D-FINE's
    # profile (6 delegates, CPU ops between) ran 3.5x slow in the call of 2026-12-07 late
    # (30.2 ms of GPU time against 8.56 in profile_ab.sh's 100 calls right after).
    log "$m: wick run --profile"
    timeout $(tmo 120) "$WICK" run "$D/model.pte" --backend webgpu --profile --profile-runs "${PROFILE_RUNS:-50}" "${inargs[@]}" \
      "${outs[@]}" > "$LOGS/wick_profile_$m.txt" 2>&1
    echo "exit $?" >> "$LOGS/wick_profile_$m.txt"
    if [[ -n ${PER_PASS:-} ]]; then
      WICK_PROFILE_PER_PASS=1 timeout $(tmo 60) "$WICK" run "$D/model.pte" --backend webgpu --profile "${inargs[@]}" \
        --output-dir /tmp/per_pass_out > "$LOGS/wick_profile_per_pass_$m.txt" 2>&1
      echo "exit $?" >> "$LOGS/wick_profile_per_pass_$m.txt"
    fi
    [[ -f $D/wick_out_0.bin ]] && python3 "$VISION/compare.py" --meta "$D" wick_out |
      sed "s/^{/{\"model\": \"$m\", \"tool\": \"wick_check\", /" >> "$RES"
    log "$m: wick bench"
    timeout $(tmo 90) "$WICK" bench "$D/model.pte" --backend webgpu --runs "${WICK_RUNS:-200}" --warmup 3 \
      --max-seconds "${WICK_SECONDS:-8}" "${inargs[@]}" > "$LOGS/wick_bench_$m.txt" 2>&1
    echo "exit $?" >> "$LOGS/wick_bench_$m.txt"
    python3 "$VISION/parse_wick.py" "$m" "$LOGS/wick_bench_$m.txt" "$LOGS/wick_profile_$m.txt" >> "$RES"
    if [[ -n ${F16:-} && $(left) -gt 20 ]]; then
      log "$m: wick --f16 run --profile, check, bench"  # f16 linear weights, same program
      local f16outs=()
      for ((i = 0; i < n_out; ++i)); do f16outs+=(--output "$D/wick_f16_out_$i.bin"); done
      timeout $(tmo 60) "$WICK" run "$D/model.pte" --backend webgpu --f16 --profile "${inargs[@]}" \
        "${f16outs[@]}" > "$LOGS/wick_f16_profile_$m.txt" 2>&1
      echo "exit $?" >> "$LOGS/wick_f16_profile_$m.txt"
      [[ -f $D/wick_f16_out_0.bin ]] && python3 "$VISION/compare.py" --meta "$D" wick_f16_out |
        sed "s/^{/{\"model\": \"$m\", \"tool\": \"wick_f16_check\", /" >> "$RES"
      # and against the f32 run: what f16 weights alone change
      [[ -f $D/wick_f16_out_0.bin && -f $D/wick_out_0.bin ]] && python3 "$VISION/compare.py" \
        "$D/wick_out_0.bin" "$D/wick_f16_out_0.bin" | sed "s/^{/{\"model\": \"$m\", \"tool\": \"wick_f16_vs_f32\", /" >> "$RES"
      timeout $(tmo 60) "$WICK" bench "$D/model.pte" --backend webgpu --f16 --runs "${WICK_RUNS:-200}" --warmup 3 \
        --max-seconds "${WICK_SECONDS:-8}" "${inargs[@]}" > "$LOGS/wick_f16_bench_$m.txt" 2>&1
      echo "exit $?" >> "$LOGS/wick_f16_bench_$m.txt"
      python3 "$VISION/parse_wick.py" "$m" "$LOGS/wick_f16_bench_$m.txt" "$LOGS/wick_f16_profile_$m.txt" wick_f16 >> "$RES"
    fi
    if [[ -n ${BEFORE_MODELS:-} && -x $W/wick/wick_before && $(left) -gt 20 ]]; then
      log "$m: wick_before run --profile, bench"  # the wick this branch started from, same program
      timeout $(tmo 60) "$W/wick/wick_before" run "$D/model.pte" --backend webgpu --profile "${inargs[@]}" \
        > "$LOGS/wick_before_profile_$m.txt" 2>&1
      timeout $(tmo 60) "$W/wick/wick_before" bench "$D/model.pte" --backend webgpu --runs "${WICK_RUNS:-200}" --warmup 3 \
        --max-seconds "${WICK_SECONDS:-8}" "${inargs[@]}" > "$LOGS/wick_before_bench_$m.txt" 2>&1
      echo "exit $?" >> "$LOGS/wick_before_bench_$m.txt"
      python3 "$VISION/parse_wick.py" "$m" "$LOGS/wick_before_bench_$m.txt" "$LOGS/wick_before_profile_$m.txt" wick_before >> "$RES"
    fi
  fi
  if [[ -z ${DRY_RUN:-} ]]; then
    wait_export "$LOGS/export_onnx_$m.log"
    log "export onnx $m: $(grep -v Warning "$LOGS/export_onnx_$m.log" | tail -2 | tr '\n' ' ' | cut -c1-400)"
  fi
  # meta.json with the ONNX export's result (onnx.json) merged in: the "export" line of results
  python3 -c "import json,os;m=json.load(open('$D/meta.json'));m['tool']='export';o='$D/onnx.json'
if os.path.exists(o): m['onnx']=json.load(open(o))
print(json.dumps(m))" >> "$RES"
  if [[ -f $D/model.onnx && $(left) -gt 20 ]]; then
    log "$m: onnxruntime-node webgpu"
    timeout $(tmo 120) "$NODE" "$VISION/ort_bench.mjs" --model "$D/model.onnx" "${inargs[@]}" \
      --ep webgpu --runs 200 --warmup 5 --max-seconds "${ORT_SECONDS:-8}" --out-prefix "$D/ort_out" \
      --profile-dir "$W/ort_prof" > "$LOGS/ort_$m.txt" 2>&1
    echo "exit $?" >> "$LOGS/ort_$m.txt"
    grep '^{' "$LOGS/ort_$m.txt" | sed "s/^{/{\"model\": \"$m\", /" >> "$RES"
    [[ -f $D/ort_out_0.bin ]] && python3 "$VISION/compare.py" --meta "$D" ort_out |
      sed "s/^{/{\"model\": \"$m\", \"tool\": \"ort_check\", /" >> "$RES"
  fi
}

FIRST=${FIRST:-mobilenet_v3_small esrgan_slim_x4_64 esrgan_slim_x4_128 depth_anything_v2_small_518}
# PyTorch CUDA for a group of models, in one process (imports once).
torch_group() {
  [[ $# -gt 0 && $(left) -gt 20 && -z ${SKIP_TORCH:-} ]] || return
  log "torch: $*"
  timeout $(tmo 120) python3 "$VISION/torch_bench.py" "$W/models" "$@" --runs 200 --max-seconds "${TORCH_SECONDS:-4}" \
    > "$LOGS/torch_$1.txt" 2>&1
  echo "exit $?" >> "$LOGS/torch_$1.txt"
  grep '^{' "$LOGS/torch_$1.txt" >> "$RES"
}

G1=() G2=()
for m in $MODELS; do if [[ " $FIRST " == *" $m "* ]]; then G1+=("$m"); else G2+=("$m"); fi; done
for m in "${G1[@]}"; do [[ -n $KB_PID ]] && wait $KB_PID; KB_PID=; bench_model "$m"; done
torch_group "${G1[@]}"

# 3. The tiny Whisper encoder fixture (5 delegates, CPU ops between): host rows of the
# profile, and wick bench (the issue's 300 runs that did not finish in 60 s).
F=$W/wick/whisper_tiny_encoder
if [[ -z ${SKIP_FIXTURE:-} && -f $F/model.pte && $(left) -gt 15 ]]; then
  log "whisper_tiny_encoder fixture"
  timeout $(tmo 30) "$WICK" run "$F/model.pte" --backend webgpu --profile --input "$F/case0_input0.bin:float32:1,80,3000" \
    --output "$F/out.bin" > "$LOGS/wick_profile_whisper_tiny_encoder_fixture.txt" 2>&1
  timeout $(tmo 60) "$WICK" bench "$F/model.pte" --backend webgpu --runs 300 --warmup 5 --max-seconds 10 \
    --input "$F/case0_input0.bin:float32:1,80,3000" > "$LOGS/wick_bench_whisper_tiny_encoder_fixture.txt" 2>&1
  echo "exit $?" >> "$LOGS/wick_bench_whisper_tiny_encoder_fixture.txt"
  python3 "$VISION/compare.py" "$F/case0_output0.bin" "$F/out.bin" --rtol 1e-4 > "$LOGS/whisper_tiny_check.txt" 2>&1
  if [[ -x $W/wick/wick_before ]]; then  # the same program on the wick this branch started from
    timeout $(tmo 25) "$W/wick/wick_before" bench "$F/model.pte" --backend webgpu --runs 10 --warmup 2 \
      --input "$F/case0_input0.bin:float32:1,80,3000" > "$LOGS/wick_before_bench_whisper_tiny_encoder_fixture.txt" 2>&1
    echo "exit $?" >> "$LOGS/wick_before_bench_whisper_tiny_encoder_fixture.txt"
  fi
  tail -n 4 "$LOGS"/wick*_bench_whisper_tiny_encoder_fixture.txt "$LOGS/whisper_tiny_check.txt"
fi

for m in "${G2[@]}"; do [[ -n $KB_PID ]] && wait $KB_PID; KB_PID=; bench_model "$m"; done
torch_group "${G2[@]}"

log "table"
python3 "$VISION/table.py" "$RES" > "$R/table.md"
cat "$R/table.md"
tar -czf "$R/logs.tar.gz" -C "$W" logs
log "done"
