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
#
# Stage here (Node from this machine, dawn.node, the bench and its WGSL; about 15 MB):
#   bash bench/kernels/matmul/h200_f16_node.sh stage [STAGE]     # default /work/main/.dev/f16node
# Then the device tool, from /work/main: `bash .dev/f16node/h200_f16_node.sh`,
# carry [".dev/f16node"], timeout_s 300. Output: $OUT/f16_node.txt. Read it for: the two
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
} | tee "$OUT/f16_node.txt"
