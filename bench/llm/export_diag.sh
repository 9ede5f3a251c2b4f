#!/usr/bin/env bash
# Which rope form lets the dynamic-prefill LLM export through the Vulkan partitioner on
# torch 2.11 (bench/llm/export_llama.py --rope): a 2-layer Llama-3.2-1B-shaped program per
# form, then Wick's logits on its 7-token prefill and one decode step against PyTorch eager.
# One device call from the repo root, carrying .gl .et .bench:
#   bash bench/llm/export_diag.sh .bench/wick-base [forms...]
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/.bench PYTHONUNBUFFERED=1
. .et/env.sh
W=$1; shift
FORMS=${*:-narrow narrow2x compute gather}
D=/tmp/llmdiag
for r in $FORMS; do
  echo "=================== rope=$r"
  mkdir -p $D/$r
  if ! timeout 240 python3 bench/llm/export_llama.py --shape llama3_2_1b --n-layers 2 --rope $r \
       --out $D/$r/m.pte --ref-dir $D/$r/ref > $D/$r/export.log 2>&1; then
    echo "export FAILED:"; grep -E "Error|error|guard|assert" $D/$r/export.log | tail -4; continue
  fi
  grep -E "top-level ops|lowered and" $D/$r/export.log
  NP=$(python3 -c "import os; print(os.path.getsize('$D/$r/ref/step0_tokens.bin') // 8)")
  $W run $D/$r/m.pte --input $D/$r/ref/step0_tokens.bin:int64:1,$NP --input $D/$r/ref/step0_pos.bin:int64:1 \
     --step --input $D/$r/ref/step1_tokens.bin:int64:1,1 --input $D/$r/ref/step1_pos.bin:int64:1 \
     --output-dir $D/$r/out 2>&1 | tail -2
  python3 - $D/$r <<'PY'
import sys, numpy as np
d = sys.argv[1]
for i in (0, 1):
    ref = np.fromfile(f"{d}/ref/step{i}_logits.bin", dtype=np.float32)
    try:
        got = np.fromfile(f"{d}/out/step_{i}/output_0.bin", dtype=np.float32)
    except OSError:
        print(f"step {i}: no output"); continue
    if got.size != ref.size:
        print(f"step {i}: size {got.size} vs {ref.size}"); continue
    print(f"step {i}: max abs diff vs eager {np.abs(got - ref).max():.3e} (max |ref| {np.abs(ref).max():.3e}), "
          f"argmax {got.argmax()} vs {ref.argmax()}")
PY
done
