#!/usr/bin/env bash
# Stages what bench/vision/h200.sh needs into STAGE (default /work/main/.dev/bench, a
# git-ignored folder of the checkout the device tool sends), compressed to fit the 64 MiB
# transfer: these scripts, Node (this machine's binary, stripped), onnxruntime-node 1.30.0
# with only its Linux x64 binaries, ExecuTorch's export toolchain (../shared/executorch),
# a stripped `wick` from BUILD (default build/), Dawn's libwebgpu_wrapper.so and the tiny
# Whisper encoder fixture.
#
#   [BEFORE=other/wick] [KBENCH="reduce softmax"] [SKIP_FIXTURE=1] bash bench/vision/prepare.sh [STAGE] [BUILD]
#
# Then: run `bash .dev/bench/vision/h200.sh` on the device, carrying .gl and .dev/bench.
set -euo pipefail
cd "$(dirname "$0")/../.."
STAGE=${1:-/work/main/.dev/bench}
BUILD=${2:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$STAGE/vision"
cp bench/vision/*.py bench/vision/*.mjs bench/vision/*.sh "$STAGE/vision/"

# Node: reuse the compressed binary when this machine's node has not changed.
NODE=$(command -v node)
if [[ ! -f $STAGE/node.xz || $(cat "$STAGE/node.sha" 2>/dev/null) != $(sha256sum "$NODE" | cut -c1-64) ]]; then
  cp "$NODE" "$T/node" && strip "$T/node"
  nice xz --x86 --lzma2=preset=9e -T2 -c "$T/node" > "$STAGE/node.xz"  # the x86 filter: 0.8 MB less, under the 64 MiB transfer
  sha256sum "$NODE" | cut -c1-64 > "$STAGE/node.sha"
fi

# onnxruntime-node without the other platforms' binaries (and its install-time deps).
ORT=node_modules/onnxruntime-node
[[ $(node -p "require('./$ORT/package.json').version") == 1.30.0 ]] || { echo "need onnxruntime-node 1.30.0" >&2; exit 1; }
if [[ ! -f $STAGE/ort.tar.xz ]]; then
  mkdir -p "$T/ort/node_modules/onnxruntime-node/bin/napi-v6/linux"
  cp -rL "$ORT/package.json" "$ORT/dist" "$ORT/lib" "$T/ort/node_modules/onnxruntime-node/"
  cp -rL "$ORT/bin/napi-v6/linux/x64" "$T/ort/node_modules/onnxruntime-node/bin/napi-v6/linux/"
  cp -rL node_modules/onnxruntime-common "$T/ort/node_modules/"
  strip "$T/ort/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1"
  tar -C "$T/ort" -cf - node_modules | nice xz --x86 --lzma2=preset=9e -T2 > "$STAGE/ort.tar.xz"
fi

# ExecuTorch's export toolchain (PROVENANCE.txt there).
if [[ ! -f $STAGE/et.tar.xz ]]; then
  tar -C ../shared -chf - --transform 's,^executorch,et,' executorch | nice xz -9 -T2 > "$STAGE/et.tar.xz"
fi

# wick (always fresh), Dawn, the Whisper fixture.
mkdir -p "$T/wick/whisper_tiny_encoder"
cp "$BUILD/wick" "$T/wick/wick" && strip "$T/wick/wick"
# main's wick too, when given (BEFORE=path): the Whisper fixture's before/after in one call.
[[ -n ${BEFORE:-} ]] && cp "$BEFORE" "$T/wick/wick_before" && strip "$T/wick/wick_before"
cp third_party/npm/dawn/lib/libwebgpu_wrapper.so "$T/wick/"
# SKIP_FIXTURE=1: left out (h200.sh with SKIP_FIXTURE=1 never reads it): 1.5 MiB of the
# 64 MiB a device call can send.
F=../shared/fixtures/demos/whisper_tiny_encoder
[[ -n ${SKIP_FIXTURE:-} ]] || cp "$F/model.pte" "$F/case0_input0.bin" "$F/case0_output0.bin" "$T/wick/whisper_tiny_encoder/"
# Kernel benches, when named (KBENCH="reduce softmax"): their binaries and WGSL variants.
# A bench named FAMILY_PART (conv_pw) reads its variants from FAMILY's folder.
for k in ${KBENCH:-}; do
  d=$k
  [[ -d bench/kernels/$d ]] || d=${k%%_*}
  mkdir -p "$T/wick/kbench/$d"
  # (benches are outside `all`: built here, so that a build by scripts/test.sh leaves none stale)
  cmake --build "$BUILD" --target "wick_kernel_bench_$k" >/dev/null
  cp "$BUILD/wick_kernel_bench_$k" "$T/wick/kbench/" && strip "$T/wick/kbench/wick_kernel_bench_$k"
  # a variant linked to a shipped shader: its text (wick_kernel_bench_subgroups has none: it
  # runs the shipped shaders, embedded) ...
  if compgen -G "bench/kernels/$d/*.wgsl" > /dev/null; then cp bench/kernels/$d/*.wgsl "$T/wick/kbench/$d/"; fi
  # ... and the modules such a variant includes (harness.h's read_variant looks beside it first)
  cp src/webgpu/wgsl/*.inc.wgsl src/webgpu/ops/*/*.inc.wgsl "$T/wick/kbench/$d/"
done
git log -1 --format='%H %s' > "$T/wick/COMMIT"
git status --porcelain --untracked-files=no >> "$T/wick/COMMIT"
# The x86 filter and preset 9e: 1.8 MB less with ORT's above, which the 64 MiB a call sends
# (counted in 4 KiB blocks per tracked file) needed by 2026-12-06.
tar -C "$T" -cf - wick | nice xz --x86 --lzma2=preset=9e -T2 > "$STAGE/wick.tar.xz"
du -ch "$STAGE"/*.xz | tail -1
ls -la "$STAGE"
