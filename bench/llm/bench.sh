#!/usr/bin/env bash
# LLM speed at real size on the lent H200 (Dawn on NVIDIA's Vulkan driver), one device call:
# exports a Llama-3.2-1B-shaped 4-bit program (bench/llm/export_llama.py, ExecuTorch's
# toolchain from .et = a copy of ../shared/executorch), checks Wick's logits against the
# PyTorch eager ones written by the export, then times decode at several contexts, prefill
# at several prompt lengths and profiles one decode step, for each `wick` binary given
# (e.g. before/after a kernel change). Run from the repo root carrying .gl (Vulkan loader
# debs), .et and .bench (libwebgpu_wrapper.so and the wick binaries):
#   bash bench/llm/bench.sh .bench/wick-old .bench/wick-new
# The 1.75 GB program stays on that machine (/tmp/llm); results: bench/results/llm_h200.txt.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/.bench
export PYTHONUNBUFFERED=1
. .et/env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
SHAPE=${SHAPE:-llama3_2_1b}
D=/tmp/llm
P=$D/$SHAPE.pte
mkdir -p $D
if [ ! -f $P ]; then
  /usr/bin/time -f "export: %e s wall, %M KB max RSS" \
    python3 bench/llm/export_llama.py --shape $SHAPE --out $P --ref-dir $D/ref ${STATIC:+--static --prefill 1} \
      ${ROPE:+--rope $ROPE} || exit 1
fi
VOCAB=$(python3 -c "import os; print(os.path.getsize('$D/ref/step1_logits.bin') // 4)")
R=$D/ref
VOCAB=$VOCAB python3 - <<'EOF'
import numpy as np
import os
vocab = int(os.environ["VOCAB"])
for c in (128, 512, 1024, 2047):
    np.array([c], dtype=np.int64).tofile(f"/tmp/llm/pos{c}.bin")
for s in (128, 512, 1024, 2047):
    np.random.default_rng(s).integers(0, vocab, (1, s), dtype=np.int64).tofile(f"/tmp/llm/tok{s}.bin")
np.array([0], dtype=np.int64).tofile("/tmp/llm/pos0.bin")
np.array([[17]], dtype=np.int64).tofile("/tmp/llm/tok1.bin")
EOF
NP=$(python3 -c "import os; print(os.path.getsize('$R/step0_tokens.bin') // 8)")
for W in "$@"; do
  echo "=================== $W"
  rm -rf $D/out
  $W run $P --input $R/step0_tokens.bin:int64:1,$NP --input $R/step0_pos.bin:int64:1 \
     --step --input $R/step1_tokens.bin:int64:1,1 --input $R/step1_pos.bin:int64:1 --output-dir $D/out 2>&1 | tail -3
  python3 - "$D" <<'EOF'
import sys, numpy as np
d = sys.argv[1]
for i in (0, 1):
    ref = np.fromfile(f"{d}/ref/step{i}_logits.bin", dtype=np.float32)
    got = np.fromfile(f"{d}/out/step_{i}/output_0.bin", dtype=np.float32)
    if got.size != ref.size:
        print(f"logits step {i}: size {got.size} vs eager {ref.size}: MISMATCH"); continue
    err = np.abs(got - ref).max()
    print(f"logits step {i} vs PyTorch eager: max abs diff {err:.3e} (max |ref| {np.abs(ref).max():.3e}), "
          f"argmax {got.argmax()} vs {ref.argmax()}: {'ok' if err <= 1e-3 + 1e-3 * np.abs(ref).max() else 'MISMATCH'}")
EOF
  for c in ${DECODE:-128 512 1024 2047}; do
    echo "-- decode, 1 token at position $c"
    $W bench $P --input $D/tok1.bin:int64:1,1 --input $D/pos$c.bin:int64:1 --runs 30 --warmup 3 2>&1
  done
  for s in $([ -n "${STATIC:-}" ] || echo ${PREFILL:-128 512 1024 2047}); do
    echo "-- prefill, $s tokens at position 0"
    $W bench $P --input $D/tok$s.bin:int64:1,$s --input $D/pos0.bin:int64:1 --runs 3 --warmup 1 2>&1
  done
  # QUICK=1: the generate run and the profile for the first binary only
  [ -n "${QUICK:-}" ] && [ "$W" != "$1" ] && continue
  echo "-- wick generate: 128 prompt tokens, 128 new tokens, greedy (sampling included)"
  $W generate $P --prompt-tokens $(python3 -c "print(','.join(str(i) for i in range(1000, 1128)))") \
     --max-new-tokens 128 --greedy --ignore-eos --json 2>&1 | python3 -c "
import sys, json
for line in sys.stdin:
    line = line.strip()
    if line.startswith('{'):
        j = json.loads(line); j.pop('tokens', None); print('  ', json.dumps(j))
    elif line: print('  ', line)"
  echo "-- profile: one decode step at position 128"
  $W run $P --input $D/tok1.bin:int64:1,1 --input $D/pos128.bin:int64:1 --profile --output-dir $D/prof > $D/prof.txt 2>&1
  grep '^total' $D/prof.txt
  echo "   GPU us per op, summed over the step (count):"
  awk '$1 ~ /^[0-9]+$/ { t[$2] += $NF; n[$2]++ } END { for (k in t) printf "   %10.1f  %5d  %s\n", t[k], n[k], k }' $D/prof.txt | sort -rn | head -20
  echo "   q4gsw dispatches of layer 0 and the LM head:"
  grep q4gsw $D/prof.txt | head -7; grep q4gsw $D/prof.txt | tail -1
done
