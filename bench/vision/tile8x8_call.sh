#!/usr/bin/env bash
# One device call (2026-12-07, late session): the 8x8-a-thread 64-row tiles in the kernel
# benches (conv_pw v26-v28, matmul v46-v48) beside the shipped tiles (conv_pw v21 / v22,
# matmul v33 / v34 / v41), on the GPU while D-FINE S and Whisper base export; then both
# models' table rows, per-layer profiles and Wick/ORT rounds on the same build.
# Stage with `KBENCH="conv_pw matmul" SKIP_FIXTURE=1 bash bench/vision/prepare.sh`; run with
# OUT set. ROUNDS=0: no rounds. PROFILE_SETTINGS / AB_AFTER: per-layer profiles and
# end-to-end A/Bs of environment settings (profile_ab.sh's, env_ab.sh's forms). The conv_pw bench runs twice (a cold GPU's first rows run
# slow); the second run's file is the one kept.
set -u
S=${S:-.dev/bench}
OUT=${OUT:-/tmp/vision_out}
export OUT
MODELS="${MODELS:-dfine_s_640 whisper_base_encoder_30s}" DEADLINE=${DEADLINE:-240} END=10 AB=" " PER_PASS=0 \
  KERNEL_BENCH="${KERNEL_BENCH:-conv_pw conv_pw matmul}" KBENCH_ARGS_conv_pw="${KBENCH_ARGS_conv_pw:-21 22 26 27 28}" \
  KBENCH_TIMEOUT_conv_pw=80 KBENCH_ARGS_matmul="${KBENCH_ARGS_matmul:---large 33 34 41 46 47 48}" KBENCH_TIMEOUT_matmul=80 \
  timeout $((${DEADLINE:-240} + 20)) bash $S/vision/next_h200_call.sh > /tmp/call.log 2>&1
# (next_h200_call.sh packs $OUT into all_logs.tar.gz at its end: the log is copied after.)
cp /tmp/call.log $OUT/
echo "[$SECONDS s] profiles"
for m in ${MODELS:-dfine_s_640 whisper_base_encoder_30s}; do
  bash $S/vision/profile_ab.sh $m ${PROFILE_SETTINGS:-default} 2>&1 | tee -a $OUT/profiles.log
done
# AB="model:SETTING,..." (env_ab.sh's form): end-to-end A/Bs before the rounds.
if [[ -n ${AB_AFTER:-} ]]; then
  echo "[$SECONDS s] A/B"
  AB_SECONDS=2 timeout 120 bash $S/vision/env_ab.sh $AB_AFTER 2>&1 | tee $OUT/env_ab.log
fi
echo "[$SECONDS s] rounds"
[[ ${ROUNDS:-3} != 0 ]] && ROUNDS=${ROUNDS:-3} timeout 150 bash $S/vision/ratio_rounds.sh ${MODELS:-dfine_s_640 whisper_base_encoder_30s} 2>&1 | tee $OUT/rounds.log
# At most 8 files come back: the logs, the table, and the rest in one archive.
(cd $OUT && tar -czf /tmp/rest.tgz --exclude=call.log --exclude=profiles.log --exclude=rounds.log --exclude=env_ab.log \
  --exclude=h200.log --exclude=table.md --exclude=all_logs.tar.gz . && mv /tmp/rest.tgz . &&
  find . -mindepth 1 -maxdepth 1 ! -name '*.log' ! -name table.md ! -name all_logs.tar.gz ! -name rest.tgz -exec rm -rf {} +)
echo "[$SECONDS s] end"; ls $OUT
