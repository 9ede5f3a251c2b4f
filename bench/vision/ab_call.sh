#!/usr/bin/env bash
# One device call that times models and A/Bs environment settings: h200.sh's table of MODELS
# (through next_h200_call.sh; the kernel benches KERNEL_BENCH, with their KBENCH_ARGS_<name>
# and KBENCH_TIMEOUT_<name>, run beside the exports), then per-layer profiles (PROFILES: each
# model's default when unset), end-to-end A/Bs (AB_AFTER; none when unset) and Wick/ORT rounds
# (ROUNDS, 3; 0: none, and the ORT export goes unused). PROFILES and AB_AFTER take env_ab.sh's
# form, "model:SETTING,SETTING ...". The records of single calls (tail_split_call.sh,
# tile8x8_call.sh) run this with their settings. Stage with bench/vision/prepare.sh (KBENCH=...
# for kernel benches); run with OUT set.
set -u
S=${S:-.dev/bench}
OUT=${OUT:-/tmp/vision_out}
export OUT
MODELS=${MODELS:-dfine_s_640 whisper_base_encoder_30s}
DEADLINE=${DEADLINE:-300}
MODELS="$MODELS" DEADLINE=$DEADLINE END=10 KERNEL_BENCH="${KERNEL_BENCH:- }" AB=" " PER_PASS=0 \
  timeout $((DEADLINE + 20)) bash $S/vision/next_h200_call.sh > /tmp/call.log 2>&1
# (next_h200_call.sh packs $OUT into all_logs.tar.gz at its end: the log is copied after.)
cp /tmp/call.log $OUT/
echo "[$SECONDS s] profiles"
for spec in ${PROFILES:-$(for m in $MODELS; do echo "$m:default"; done)}; do
  settings=${spec#*:}
  bash $S/vision/profile_ab.sh "${spec%%:*}" ${settings//,/ } 2>&1 | tee -a $OUT/profiles.log
done
if [[ -n ${AB_AFTER:-} ]]; then
  echo "[$SECONDS s] A/B"
  AB_SECONDS=2 timeout ${AB_TIMEOUT:-120} bash $S/vision/env_ab.sh $AB_AFTER 2>&1 | tee $OUT/env_ab.log
fi
echo "[$SECONDS s] rounds"
[[ ${ROUNDS:-3} != 0 ]] && ROUNDS=${ROUNDS:-3} timeout ${ROUNDS_TIMEOUT:-150} bash $S/vision/ratio_rounds.sh $MODELS 2>&1 | tee $OUT/rounds.log
# At most 8 files come back: the logs, the table, and the rest in one archive.
(cd $OUT && tar -czf /tmp/rest.tgz --exclude=call.log --exclude=profiles.log --exclude=env_ab.log --exclude=rounds.log \
  --exclude=h200.log --exclude=table.md --exclude=all_logs.tar.gz . && mv /tmp/rest.tgz . &&
  find . -mindepth 1 -maxdepth 1 ! -name '*.log' ! -name table.md ! -name all_logs.tar.gz ! -name rest.tgz -exec rm -rf {} +)
echo "[$SECONDS s] end"; ls $OUT
