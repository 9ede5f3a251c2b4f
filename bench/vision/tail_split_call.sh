#!/usr/bin/env bash
# One device call (2026-12-07, evening session): D-FINE S and Whisper base exported and run by
# h200.sh (the table), then D-FINE's per-layer profiles and end-to-end A/B of the pointwise
# GEMM's tail split (GraphOptions::conv_pw_tail, ops/conv/split_waves.h tail_split:
# WICK_CONV_PW_TAIL=0 against the default), then Wick/ORT rounds of both. Stage with
# bench/vision/prepare.sh (it copies this folder's scripts); run with OUT set. ROUNDS=0: no
# rounds (the ORT export is then unused).
set -u
S=${S:-.dev/bench}
OUT=${OUT:-/tmp/vision_out}
export OUT
MODELS="${MODELS:-dfine_s_640 whisper_base_encoder_30s}" DEADLINE=${DEADLINE:-300} END=10 KERNEL_BENCH=" " AB=" " PER_PASS=0 \
  timeout $((${DEADLINE:-300} + 20)) bash $S/vision/next_h200_call.sh > /tmp/call.log 2>&1
# (next_h200_call.sh clears $OUT of all but its logs at its end: the log is copied after.)
cp /tmp/call.log $OUT/
echo "[$SECONDS s] profiles"
bash $S/vision/profile_ab.sh dfine_s_640 WICK_CONV_PW_TAIL=0 default 2>&1 | tee $OUT/profiles.log
bash $S/vision/profile_ab.sh whisper_base_encoder_30s default 2>&1 | tee -a $OUT/profiles.log
echo "[$SECONDS s] A/B"
AB_SECONDS=2 timeout 90 bash $S/vision/env_ab.sh \
  dfine_s_640:WICK_CONV_PW_TAIL=0,default,WICK_CONV_PW_TAIL=0,default 2>&1 | tee $OUT/env_ab.log
echo "[$SECONDS s] rounds"
[[ ${ROUNDS:-3} != 0 ]] && ROUNDS=${ROUNDS:-3} timeout 120 bash $S/vision/ratio_rounds.sh ${MODELS:-dfine_s_640 whisper_base_encoder_30s} 2>&1 | tee $OUT/rounds.log
# At most 8 files come back: the logs, the table, and the rest in one archive.
(cd $OUT && tar -czf /tmp/rest.tgz --exclude=call.log --exclude=profiles.log --exclude=env_ab.log --exclude=rounds.log \
  --exclude=h200.log --exclude=table.md --exclude=all_logs.tar.gz . && mv /tmp/rest.tgz . &&
  find . -mindepth 1 -maxdepth 1 ! -name '*.log' ! -name table.md ! -name all_logs.tar.gz ! -name rest.tgz -exec rm -rf {} +)
echo "[$SECONDS s] end"; ls $OUT
