#!/usr/bin/env bash
# One device call for the LLM figures with dynamic prefill (the session of 2026-12-03
# evening): a 2-layer export decides the rope form (bench/llm/export_diag.sh), then the
# full Llama-3.2-1B-shaped program is exported with it and benchmarked by bench.sh with
# the first binary given; each further binary only decodes at context 128 (a comparison
# on the same program). Carry .gl .et .bench:
#   bash bench/llm/session_h200.sh .bench/wick-new .bench/wick-base
set -u
NEW=$1; shift
ROPE=
for r in narrow2x compute; do
  if bash bench/llm/export_diag.sh "$NEW" $r 2>&1 | tee /tmp/diag_$r.txt | grep -q "step 1: max abs diff"; then ROPE=$r; break; fi
done
cat /tmp/diag_*.txt
[ -n "$ROPE" ] || { echo "no rope form exported"; exit 1; }
echo "=================== full size, rope=$ROPE"
ROPE=$ROPE QUICK=1 DECODE="${DECODE:-128 2047}" bash bench/llm/bench.sh "$NEW"
P=/tmp/llm/llama3_2_1b.pte
for W in "$@"; do
  echo "=================== $W: decode, 1 token at position 128"
  $W bench $P --input /tmp/llm/tok1.bin:int64:1,1 --input /tmp/llm/pos128.bin:int64:1 --runs 30 --warmup 3 2>&1
done
