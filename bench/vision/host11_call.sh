#!/usr/bin/env bash
# host11's device call: the cat op fixtures (background), the vision bench of 3 models
# against ORT, then env A/B of the two features on the exported models.
set -o pipefail
S=.dev/host11
W=/tmp/vb
mkdir -p $W/fx $OUT/ops
( tar -xJf $S/et.tar.xz -C $W/fx && . $W/fx/et/env.sh && timeout 120 python3 $S/export_ops/export_ops.py \
    --out $OUT/ops --only cat_dense_block,cat_edges > $OUT/export_ops.log 2>&1; echo "exit $?" >> $OUT/export_ops.log ) &
FIRST="whisper_base_encoder_30s depth_anything_v2_small_518 realesrgan_x4_tile64" SKIP_FIXTURE=1 SKIP_TORCH=1 \
  WICK_SECONDS=3 ORT_SECONDS=3 DEADLINE=${DEADLINE:-140} bash $S/vision/h200.sh \
  whisper_base_encoder_30s depth_anything_v2_small_518 realesrgan_x4_tile64 2>&1 | tee $OUT/h200.log
echo "[${SECONDS}s] env A/B"
if (( SECONDS < 165 )); then
  AB_SECONDS=2 timeout $((188 - SECONDS)) bash $S/vision/env_ab.sh realesrgan_x4_tile64:WICK_CAT_IN_PLACE=0,WICK_SUBMIT_CHUNK=0,default \
    depth_anything_v2_small_518:WICK_SUBMIT_CHUNK=0,default whisper_base_encoder_30s:WICK_SUBMIT_CHUNK=0,default 2>&1 | tee $OUT/env_ab.log
fi
wait
echo "[${SECONDS}s] end"
