#!/usr/bin/env bash
# The H200 call for shader-f16 through Dawn's Node binding (issue 11; NOT RUN yet: the device
# was paused in the session that wrote it). The pinned native Dawn strips shader-f16 on
# NVIDIA's Vulkan driver; npm `webgpu` 0.6.2 (dawn.node) has the adapter toggle
# vulkan_enable_f16_on_nvidia. This call reports whether shader-f16 appears in Node without
# and with the toggle, then times the real-size linears with matmul_f16_node.mjs: f32
# (shipped matmul_large_vec4), unpack (f16 weights, f32 math: matmul_large_vec4_f16w) and
# f16math (f16 arithmetic: matmul_large_vec4_f16math), plus f16bk16 (v29) and f16tiles (v30),
# each checked against a CPU reference (relative L2 printed).
#
# 2026-12-05 (run): shader-f16 yes with the toggle; every f32 kernel ~2 TFLOP/s because of
# Dawn's robustness (BENCH_ARGS="--extra-toggles disable_robustness": 10x faster). Next run:
# the default and that toggle side by side, to see whether v31 ("f32lit": the FMA block by
# literal indices) escapes the robustness cost that v8 ("f32") pays.
# Since then the shipped kernels index register arrays by literals only
# (bench/kernels/robustness/README.md): the run times them too ("f32ship", "f16ship"), once
# with robustness on (what a browser gets) and once with disable_robustness.
# Part 3 (when a call of bench/vision/next_h200_call.sh just ran on the same warm machine and
# left its exports in MODELS_DIR, default /tmp/vb/models): each exported model through Wick's
# Wasm bundle in Node on this dawn.node (bench/vision/node_wasm_bench.mjs), robustness on and
# off, its outputs checked against PyTorch eager (compare.py): what a browser page would get.
# Its lines go to $OUT/wasm_results.jsonl: `cat results.jsonl wasm_results.jsonl |
# python3 bench/vision/table.py /dev/stdin` adds the Wasm columns to call 1's table.
# Stage with a Wasm build of the same commit in package/dist (scripts/build_wasm.sh, or
# WASM_DIST=DIR); without one, part 3 is skipped.
#
# Stage here (Node from this machine, dawn.node, the bench and its WGSL; about 15 MB):
#   bash bench/kernels/matmul/h200_f16_node.sh stage [STAGE]     # default /work/main/.dev/f16node
# Then the device tool, from /work/main: `bash .dev/f16node/h200_f16_node.sh`,
# carry [".gl", ".dev/f16node"], timeout_s 500 (part 3 runs each exported model twice). Output: $OUT/f16_node.txt. Read it for: the two
# "shader-f16" lines (no toggle: expected no; toggle: yes if the toggle works on this
# driver), then per shape f16math / unpack / f32 TFLOP/s and err(vs f32) (~5e-4 expected
# for f16math). If f16math beats f32 and unpack there, --f16 through Node/Wasm (and browsers
# with shader-f16) gets it by default; the native CLI cannot (pinned Dawn).
set -uo pipefail

if [[ ${1:-} == stage ]]; then
  set -e
  cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
  STAGE=${2:-/work/main/.dev/f16node}
  T=$(mktemp -d)
  trap 'rm -rf "$T"' EXIT
  mkdir -p "$STAGE" "$T/f16node/node_modules/webgpu/dist/linux-x64" "$T/f16node/bench/kernels/matmul" "$T/f16node/src"
  NODE=$(command -v node)
  if [[ ! -f $STAGE/node.xz || $(cat "$STAGE/node.sha" 2>/dev/null) != $(sha256sum "$NODE" | cut -c1-64) ]]; then
    cp "$NODE" "$T/node" && strip "$T/node"
    nice xz -9 -T2 -c "$T/node" > "$STAGE/node.xz"
    sha256sum "$NODE" | cut -c1-64 > "$STAGE/node.sha"
  fi
  W=node_modules/webgpu
  cp -L "$W/package.json" "$W/index.js" "$T/f16node/$W/"
  cp -L "$W/dist/linux-x64/dawn.node" "$T/f16node/$W/dist/linux-x64/"
  cp bench/kernels/matmul/matmul_f16_node.mjs bench/kernels/matmul/*.wgsl "$T/f16node/bench/kernels/matmul/"
  cp bench/kernels/wgsl_expand.mjs "$T/f16node/bench/kernels/"
  cp -r src/webgpu "$T/f16node/src/"  # the shipped WGSL (f32ship, f16ship)
  git log -1 --format='%h %cd' > "$T/f16node/COMMIT"
  # Part 3: the Wasm bundle (package/), the model bench and its helpers.
  DIST=${WASM_DIST:-package/dist}
  if [[ -f $DIST/wick.wasm ]]; then
    mkdir -p "$T/f16node/package/dist" "$T/f16node/bench/vision"
    cp package/index.mjs package/package.json "$T/f16node/package/"
    cp "$DIST"/wick*.js "$DIST"/wick*.wasm "$T/f16node/package/dist/"
    cp bench/vision/node_wasm_bench.mjs bench/vision/input_specs.py bench/vision/compare.py "$T/f16node/bench/vision/"
    echo "wasm: $(ls -l --time-style=+%F_%T "$DIST/wick.wasm" | awk '{print $6}')" >> "$T/f16node/COMMIT"
  else
    echo "no Wasm build in $DIST: part 3 (models through the Wasm bundle) will be skipped" >&2
  fi
  tar -C "$T" -cf - f16node | nice xz -6 -T2 > "$STAGE/f16node.tar.xz"
  cp "${BASH_SOURCE[0]}" "$STAGE/h200_f16_node.sh"
  du -ch "$STAGE"/*.xz | tail -1
  exit 0
fi

# On the device.
D=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${OUT:-$D/out}
mkdir -p "$OUT"
W=$(mktemp -d)
xz -dc "$D/node.xz" > "$W/node" && chmod +x "$W/node"
tar -C "$W" -xJf "$D/f16node.tar.xz"
unset VK_ICD_FILENAMES  # the machine's own Vulkan driver (NVIDIA)
# The Vulkan loader, when carried (.gl, as bench/vision/h200.sh unpacks it).
if compgen -G ".gl/*.deb" > /dev/null; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
cd "$W/f16node"
{
  echo "commit: $(cat COMMIT)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
  echo "== without the toggle"
  timeout 60 "$W/node" bench/kernels/matmul/matmul_f16_node.mjs --probe --no-toggle 2>&1
  echo "== with enable-dawn-features=vulkan_enable_f16_on_nvidia (robustness on, as in a browser)"
  timeout 150 "$W/node" bench/kernels/matmul/matmul_f16_node.mjs ${BENCH_ARGS:---reps 20} 2>&1
  echo "exit status $?"
  echo "== the same with disable_robustness"
  timeout 150 "$W/node" bench/kernels/matmul/matmul_f16_node.mjs ${BENCH_ARGS:---reps 20} --extra-toggles disable_robustness 2>&1
  echo "exit status $?"
  MODELS_DIR=${MODELS_DIR:-/tmp/vb/models}
  if [[ -f package/dist/wick.wasm && -d $MODELS_DIR ]]; then
    for d in "$MODELS_DIR"/*/; do
      m=$(basename "$d")
      [[ -f $d/model.pte && -f $d/meta.json ]] || continue
      (( SECONDS < ${DEADLINE:-500} )) || { echo "deadline: $m and later models skipped"; break; }
      mapfile -t specs < <(python3 bench/vision/input_specs.py "$d")
      inargs=()
      for sp in "${specs[@]}"; do inargs+=(--input "$sp"); done
      for rb in "" --no-robustness; do
        echo "== $m wasm/node ${rb:-(robustness on)}"
        tool=wick_wasm
        [[ -n $rb ]] && tool=wick_wasm_norobust
        rm -f "$d"/wasm_out_*.bin
        timeout 120 "$W/node" bench/vision/node_wasm_bench.mjs "$d/model.pte" "${inargs[@]}" --seconds 2 \
          --out-prefix "$d/wasm_out" $rb 2>&1 | grep -v '^Warning' | tail -3 | tee "$W/wasm_line.txt"
        # results.jsonl lines (bench/vision/table.py adds a Wasm column from them)
        grep '^{' "$W/wasm_line.txt" | sed "s/^{/{\"model\": \"$m\", /" >> "$OUT/wasm_results.jsonl"
        [[ -f $d/wasm_out_0.bin ]] && python3 bench/vision/compare.py --meta "$d" wasm_out | tee -a /dev/stderr |
          sed "s/^{/{\"model\": \"$m\", \"tool\": \"${tool}_check\", /" >> "$OUT/wasm_results.jsonl"
      done
    done
    # Part 4: models whose Wasm output failed its check, once per WICK_* switch (through
    # Module.ENV): the switch that makes the check pass names the feature that breaks there.
    # (2026-12-05: the SAM 2.1 decoder failed in Wasm on the H100 and matched natively; no
    # switch fixed it: the JS API rearranged its inputs into their declared dim order, fixed in
    # b67828a. Off by default now: WASM_AB_MODELS="model..." runs it for a model that fails.)
    for m in ${WASM_AB_MODELS:-}; do
      d=$MODELS_DIR/$m
      [[ -f $d/model.pte ]] || continue
      mapfile -t specs < <(python3 bench/vision/input_specs.py "$d")
      inargs=()
      for sp in "${specs[@]}"; do inargs+=(--input "$sp"); done
      for s in ${WASM_AB_SETTINGS:-WICK_FLASH_ATTENTION=0 WICK_FUSE_CHAINS=0 WICK_FUSE_MATMUL_EPILOGUE=0 \
          WICK_SPECIALIZE_EPILOGUE=0 WICK_CAT_IN_PLACE=0 WICK_JOINT_PLAN=0 WICK_RANGE_VIEWS=0 WICK_CONV_PW_GEMM=0 \
          WICK_CONV_SPLITK=0 WICK_MATMUL_SPLITK=0 WICK_FLASH_SPLITKV=0 WICK_NORM_ROWS=0 WICK_NORM_SPLIT=0}; do
        (( SECONDS < ${DEADLINE:-500} )) || { echo "deadline: Wasm A/B stopped at $m $s"; break; }
        rm -f "$d"/wasm_out_*.bin
        env "$s" timeout 60 "$W/node" bench/vision/node_wasm_bench.mjs "$d/model.pte" "${inargs[@]}" --seconds 0.5 \
          --out-prefix "$d/wasm_out" 2>&1 | grep -v '^Warning' | head -1
        [[ -f $d/wasm_out_0.bin ]] && python3 bench/vision/compare.py --meta "$d" wasm_out |
          sed "s/^{/{\"model\": \"$m\", \"tool\": \"wick_wasm_check\", \"setting\": \"$s\", /" | tee -a "$OUT/wasm_results.jsonl" |
          grep -o '"ok": [a-z]*, "out"' | head -1
      done
    done
  else
    echo "part 3 skipped: no Wasm build staged or no exports in $MODELS_DIR"
  fi
} | tee "$OUT/f16_node.txt"
