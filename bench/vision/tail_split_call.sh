#!/usr/bin/env bash
# One device call (2026-12-07, evening session): D-FINE S and Whisper base exported and run by
# h200.sh (the table), then D-FINE's per-layer profiles and end-to-end A/B of the pointwise
# GEMM's tail split (GraphOptions::conv_pw_tail, ops/conv/split_waves.h tail_split:
# WICK_CONV_PW_TAIL=0 against the default), then Wick/ORT rounds of both (ab_call.sh). Stage
# with bench/vision/prepare.sh (it copies this folder's scripts); run with OUT set. ROUNDS=0:
# no rounds (the ORT export is then unused).
PROFILES="dfine_s_640:WICK_CONV_PW_TAIL=0,default whisper_base_encoder_30s:default" \
  AB_AFTER="dfine_s_640:WICK_CONV_PW_TAIL=0,default,WICK_CONV_PW_TAIL=0,default" AB_TIMEOUT=90 ROUNDS_TIMEOUT=120 \
  DEADLINE=${DEADLINE:-300} exec bash "$(dirname "$0")/ab_call.sh"
