#!/usr/bin/env bash
# One H200 call that times several builds of wick on the same exported programs: a bisect of
# a speed regression along main's history (2026-12-05: Whisper base 7.3 -> 35 ms, Depth
# Anything 14.7 -> 39 ms, SAM 2.1 encoder 38.6 -> 182 ms between 9039d11 and 9955d31).
# Stage here (git-ignored .dev/bisect):
#   bash bench/vision/bisect_call.sh stage BIN_DIR   # BIN_DIR holds wick_<commit> (stripped)
#   (needs .dev/bench from bench/vision/prepare.sh: et.tar.xz, wick.tar.xz for libwebgpu_wrapper.so)
# Device tool: `bash .dev/bisect/bisect_call.sh`, carry [".gl", ".dev/bisect"].
# Knobs: MODELS (default whisper_base_encoder_30s depth_anything_v2_small_518 modnet_512),
# ORDER (commit order; default: the order of bins.txt), SECONDS_EACH (wick bench --max-seconds),
# AB ("MODEL:VAR=VALUE ...": the last build again with that environment setting).
# Output: $OUT/bisect.txt (one line per model and build: median, min) and $OUT/bisect_logs.tar.gz
# (every bench log and the profiles of the first and last build).
# SECONDS_EACH must be a whole number (wick bench --max-seconds takes integers).
set -u
if [[ ${1:-} == stage ]]; then
  set -e
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
  S=.dev/bisect BIN=$2
  rm -rf $S && mkdir -p $S/vision $S/bins
  cp bench/vision/{export.py,models.py,modnet.py,sam2_dfine.py,compare.py,input_specs.py,bisect_call.sh} $S/vision/
  cp .dev/bench/et.tar.xz $S/
  T=$(mktemp -d); tar -xJf .dev/bench/wick.tar.xz -C "$T" wick/libwebgpu_wrapper.so
  xz -6 -T2 -c "$T/wick/libwebgpu_wrapper.so" > $S/libwebgpu_wrapper.so.xz; rm -rf "$T"
  ls "$BIN" | sed -n 's/^wick_//p' > $S/bins.txt
  tar -C "$BIN" -cf - . | xz -6 -T2 > $S/bins.tar.xz
  du -sh $S
  exit 0
fi
D=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)  # .dev/bisect
W=/tmp/bis; mkdir -p $W/logs $W/bin
OUT=${OUT:-/tmp/bisect_out}; mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf $D/et.tar.xz -C $W
xz -dc $D/libwebgpu_wrapper.so.xz > $W/bin/libwebgpu_wrapper.so
tar -xJf $D/bins.tar.xz -C $W/bin
export LD_LIBRARY_PATH=$W/bin
MODELS=${MODELS:-whisper_base_encoder_30s depth_anything_v2_small_518 modnet_512}
ORDER=${ORDER:-$(cat $D/bins.txt)}
export PYTHONUNBUFFERED=1 EXPORT_THREADS=2
for m in $MODELS; do
  (. $W/et/env.sh && timeout 300 python3 $D/vision/export.py $m $W/models pte > $W/logs/export_$m.log 2>&1; echo "exit $?" >> $W/logs/export_$m.log) &
done
R=$OUT/bisect.txt; : > $R
for m in $MODELS; do
  while ! grep -q '^exit ' $W/logs/export_$m.log 2>/dev/null; do sleep 1; done
  echo "[${SECONDS}s] export $m: $(tail -1 $W/logs/export_$m.log)" | tee -a $R
  M=$W/models/$m
  [[ -f $M/meta.json ]] || continue
  inargs=()
  while read -r s; do inargs+=(--input "$s"); done < <(python3 $D/vision/input_specs.py $M)
  for c in $ORDER; do
    timeout 60 $W/bin/wick_$c bench $M/model.pte --backend webgpu --runs 200 --warmup 3 --max-seconds ${SECONDS_EACH:-2} \
      "${inargs[@]}" > $W/logs/bench_${m}_$c.txt 2>&1
    echo "$m $c $(grep -o 'median [0-9.]* ms, min [0-9.]* ms' $W/logs/bench_${m}_$c.txt | tail -1)" | tee -a $R
  done
  # AB="MODEL:VAR=VALUE ...": the last build again with each setting, on its model
  for ab in ${AB:-}; do
    [[ ${ab%%:*} == $m ]] || continue
    c=$(echo $ORDER | rev | cut -d' ' -f1 | rev) kv=${ab#*:}
    env "$kv" timeout 60 $W/bin/wick_$c bench $M/model.pte --backend webgpu --runs 200 --warmup 3 --max-seconds ${SECONDS_EACH:-2} \
      "${inargs[@]}" > $W/logs/bench_${m}_${c}_$kv.txt 2>&1
    echo "$m $c $kv $(grep -o 'median [0-9.]* ms, min [0-9.]* ms' $W/logs/bench_${m}_${c}_$kv.txt | tail -1)" | tee -a $R
  done
  first=$(echo $ORDER | cut -d' ' -f1) last=$(echo $ORDER | rev | cut -d' ' -f1 | rev)
  for c in $first $last; do
    timeout 60 $W/bin/wick_$c run $M/model.pte --backend webgpu --profile "${inargs[@]}" --output-dir $W/out_$c \
      > $W/logs/profile_${m}_$c.txt 2>&1
  done
done
tar -czf $OUT/bisect_logs.tar.gz -C $W logs
echo "[${SECONDS}s] end"
