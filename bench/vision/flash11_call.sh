#!/usr/bin/env bash
# NOT RUN (the session's second device call was refused: no machine lent). Staged into
# .dev/flash11 with et.tar.xz (prepare.sh's), wick.tar.xz (wick, libwebgpu_wrapper.so,
# kbench/) and vision/{export,models,sam2_dfine,modnet,compare,parse_wick}.py; then the
# device tool: command `bash .dev/flash11/call2.sh`, carry [".gl", ".dev/flash11"].
# flash11 call 2: the three models exported here, each run and timed with the attention
# fusion (default) and without (WICK_FLASH_ATTENTION=0; SAM also WICK_FLASH_ATTENTION=all, head dim 96),
# outputs checked against PyTorch; the attention kernel bench meanwhile.
set -o pipefail
START=$SECONDS; DEADLINE=${DEADLINE:-150}
left() { echo $((DEADLINE - (SECONDS - START))); }
log() { echo "[$((SECONDS - START))s] $*"; }
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
S=$PWD/.dev/flash11; W=/tmp/f11; L=$W/logs; mkdir -p $W/models $L
tar -xJf $S/et.tar.xz -C $W && tar -xJf $S/wick.tar.xz -C $W
export LD_LIBRARY_PATH=$W/wick
WICK=$W/wick/wick
cat $W/wick/COMMIT
MODELS="whisper_base_encoder_30s depth_anything_v2_small_518 sam2_1_hiera_tiny_encoder_1024"
for m in $MODELS; do
  (. $W/et/env.sh && EXPORT_THREADS=4 timeout 120 python3 $S/vision/export.py $m $W/models pte > $L/export_$m.log 2>&1; echo "exit $?" >> $L/export_$m.log) &
done
log "kernel bench"
(cd $W/wick && WICK_KERNEL_BENCH_DIR=$W/wick/kbench timeout 70 ./kbench/wick_kernel_bench_attention --reps 3 5 9 18 19 20 21 22 > $L/attention_h200_call2.txt 2>&1; echo "exit $?" >> $L/attention_h200_call2.txt)
log "kernel bench done"
for m in $MODELS; do
  while ! grep -q '^exit ' $L/export_$m.log 2>/dev/null && (( $(left) > 15 )); do sleep 1; done
  log "export $m: $(tail -2 $L/export_$m.log | tr '\n' ' ' | cut -c1-300)"
  D=$W/models/$m
  [[ -f $D/meta.json ]] || continue
  inargs=(); outs=()
  while read -r s; do inargs+=(--input "$s"); done < <(python3 -c "import json;[print(f\"$D/{i['file']}:{i['dtype']}:{','.join(map(str, i['shape']))}\") for i in json.load(open('$D/meta.json'))['inputs']]")
  n_out=$(python3 -c "import json;print(len(json.load(open('$D/meta.json'))['outputs']))")
  settings="default WICK_FLASH_ATTENTION=0"
  [[ $m == sam2* ]] && settings="$settings WICK_FLASH_ATTENTION=all"
  for s in $settings; do
    (( $(left) > 8 )) || break
    tag=${s//[=]/_}
    if [[ $s == default ]]; then ea=(); else ea=("$s"); fi
    outs=(); for ((i = 0; i < n_out; ++i)); do outs+=(--output "$D/out_${tag}_$i.bin"); done
    timeout 30 env "${ea[@]}" $WICK run $D/model.pte --backend webgpu --profile "${inargs[@]}" "${outs[@]}" > $L/profile_${m}_$tag.txt 2>&1
    python3 $S/vision/compare.py --meta $D out_${tag} > $L/check_${m}_$tag.txt 2>&1
    timeout 30 env "${ea[@]}" $WICK bench $D/model.pte --backend webgpu --runs 200 --warmup 3 --max-seconds 2 "${inargs[@]}" > $L/bench_${m}_$tag.txt 2>&1
    log "$m $s: $(grep -o 'median [0-9.]* ms, min [0-9.]* ms' $L/bench_${m}_$tag.txt) $(grep -o '[0-9]* dispatches' $L/profile_${m}_$tag.txt | head -1) GPU $(grep -o 'GPU [0-9.]*' $L/profile_${m}_$tag.txt | head -1) check $(head -c 300 $L/check_${m}_$tag.txt)"
  done
done
cp $L/attention_h200_call2.txt $OUT/
tar -C $W -czf $OUT/logs.tar.gz logs
log end
