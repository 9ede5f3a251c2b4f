#!/usr/bin/env bash
# NEXT (after the session of 2026-12-08; no device was lent): Dawn's robustness. Wick's device
# has it on (as every browser), onnxruntime's release builds turn it off; the native SPIR-V
# (WICK_DUMP_SHADERS=1) showed it clamping the GEMM tiles', the implicit-GEMM convs' and the
# flash attention's hot shared-memory reads, and those kernels were rewritten so that Tint's
# range analysis proves the indices (no clamp left there; bench/kernels/robustness/README.md).
# Nothing of it is timed. Stage once: `KBENCH="conv_pw conv matmul attention" SKIP_FIXTURE=1 bash
# bench/vision/prepare.sh`, leave examples/ and bench/results/ out (sparse checkout, README),
# then two calls:
#   1. lean, ~3 min: `OUT=$OUT bash bench/kernels/robustness/kernels_call.sh`, carry [".gl",
#      ".dev/bench/wick.tar.xz"]: the kernels shipped and as they were, robustness on and off;
#   2. models, ~7 min: `OUT=$OUT bash .dev/bench/vision/robustness_call.sh`, carry [".gl",
#      ".dev/bench"]: D-FINE S and Whisper base profiles, A/B and Wick/ORT rounds, on and off.
# If off still wins end to end, look at what else it clamps (the GEMM's staging stores, the
# flash attention's K / V stores) or make off the native default, as ORT does; if the old
# kernels (v38, v60, v71-v74, conv v32-v34) match the new ones, the clamps cost nothing on
# NVIDIA and the rewrites only tidy the browser's code.
# NEXT (after the night session of 2026-12-07; one model call and two lean kernel calls, all
# on H100s, results in bench/results/vision_h200.md): the GEMM tiles are bound neither by
# shared-memory wavefronts (the warp's shape, WARP_ROWS: no change) nor by global-load latency
# (two K tiles in flight, 3191f06: 1-20% slower). Whisper base's Wick/ORT was 0.479 (median
# of three rounds; ORT 9.8-10.4 ms there); D-FINE's ten largest layers 18.50 TFLOP/s. What is
# left to try on the tiles is the per-step fixed work (barrier, staging stores) per FMA: a
# K step of 32 at the 64x64 / 4x4 tile in the 16 KiB of one buffer was v30 (lost); a GEMM
# that keeps its B tile in registers across K steps is untried. To time the map-as-wait of
# the outputs (fd4d534) apart from the machine's host noise: `bash .dev/bench/vision/ab_call.sh`
# with AB_AFTER="whisper_base_encoder_30s:WICK_READBACK_MAP_WAIT=0,default,WICK_READBACK_MAP_WAIT=0,default".
# NEXT (after the evening session of 2026-12-07 (2); one H100 call ran, then no machine was
# lent): NBUF = 1 is timed in the conv_pw bench and loses (bench/kernels/conv/README.md, "One
# shared buffer"); its matmul rows (v49-v51) ran on a cold GPU and are not compared. To
# finish that record: `CONV_ARGS="21 31" bash bench/kernels/conv/nbuf_call.sh`, then the
# matmul bench a second time once the GPU is warm (the same binary, `--large 34 41 49 50
# 51`). The one per-shape idea it left: v31 (8x4, BK 8, one buffer) on the large grids only
# (the 792-tile grid 135 against 167 us, 512 -> 256 at 80x80 90.0 against 92.9).
# NEXT (after the late session of 2026-12-07; one H100 call ran, fifteen requests were refused):
# the one-shared-buffer tiles (matmul_large_tile.inc.wgsl's NBUF = 1) are untimed. Stage with
# `KBENCH="conv_pw matmul" SKIP_FIXTURE=1 bash bench/vision/prepare.sh`, then the lean
# `OUT=... bash bench/kernels/conv/nbuf_call.sh` (carry .gl and .dev/bench/wick.tar.xz; ~70 s
# after the start): conv_pw v29-v31 against v21, matmul v49-v51 against v34 / v41. If one
# wins on D-FINE's 256 -> 256 and 1024 -> 256 shapes, give the runtime a switch and A/B it with
# tile8x8_call.sh's PROFILES / AB_AFTER (ab_call.sh).
# NEXT (after the evening session of 2026-12-07; two H100 calls, results in
# bench/results/vision_h200.md): the tail split is timed (D-FINE's ten largest layers 18.51
# TFLOP/s) and D-FINE checks against the fp64 run. Whisper base's Wick/ORT was not measured
# that session: `bash .dev/bench/vision/tail_split_call.sh` (both models, rounds included).
# NEXT (after the day session of 2026-12-07; its one call ran on an H100, results in
# bench/results/vision_h200.md): D-FINE against eager as a set has run (logits ok, boxes within
# twice eager's own fp32 error). Whisper base's Wick/ORT (0.496 on the morning's machine, 0.59 on
# the night's) is the ratio nearest the line: this script with MODELS="whisper_base_encoder_30s"
# DEADLINE=200 END=10 KERNEL_BENCH=" " AB=" " PER_PASS=0, then `ROUNDS=3 bash
# .dev/bench/vision/ratio_rounds.sh whisper_base_encoder_30s`. A stream-K tail for the pointwise
# GEMM's 400-tile grids is the open kernel idea (bench/kernels/conv/README.md).
# NEXT (after the morning session of 2026-12-07; its one call ran on an H100, results in
# bench/results/vision_h200.md): D-FINE against eager with its queries matched as a set has
# still not run on a GPU (the call's DEADLINE=170 was cut by D-FINE's 146-s export). Run
#   MODELS="dfine_s_640" DEADLINE=300 END=10 KERNEL_BENCH=" " AB=" " PER_PASS=0
# (the table's "Wick vs eager" and "ORT vs eager" columns, compare.py's set matching), then
# `ROUNDS=3 bash .dev/bench/vision/ratio_rounds.sh whisper_base_encoder_30s dfine_s_640`
# (the Whisper GELU folds and the wave-model split counts in one build; Whisper was 0.496).
# NEXT (after the night session of 2026-12-07; its one call ran on an H100, results in
# bench/results/vision_h200.md): D-FINE and Whisper base on main as it is (the set comparison
# of D-FINE's queries, 495c6ff; the clone before Whisper's second GELU folded, 713fde5):
#   MODELS="dfine_s_640 whisper_base_encoder_30s" PER_PASS=1 KERNEL_BENCH=" " AB=" " (a space:
#   empty takes the default list), then D-FINE's profile over 100 calls both ways
#   (`wick run ... --profile --profile-runs 100`, with and without WICK_PROFILE_PER_PASS=1:
#   its in-pass profile ran 3.4x slow in that call, Whisper's did not) and
#   `ROUNDS=3 bash .dev/bench/vision/ratio_rounds.sh whisper_base_encoder_30s` (ORT ran
#   15-20% faster on that machine than on any before: Whisper base 0.59).
# NEXT (after the session of 2026-12-06 late evening): on main as it is (profiles timed
# inside the passes, e1d3dc8; the layer norm in the split-K reduce, 8dc5f3f; GELU as a conv
# epilogue, 3535531), PER_PASS=1 MODELS="whisper_base_encoder_30s dfine_s_640
# whisper_base_encoder_30s_sdpa" with AB="whisper_base_encoder_30s:WICK_NORM_SPLITK_FUSE=0,
# default,WICK_NORM_SPLITK_FUSE=0,default", then `ROUNDS=3 bash .dev/bench/vision/ratio_rounds.sh
# whisper_base_encoder_30s whisper_base_encoder_30s_sdpa dfine_s_640`. The profiles now time
# each dispatch inside the call's passes: D-FINE's ten largest layers get their first figure
# without the ~4 us a dispatch of a pass each (wick_profile_per_pass_*.txt has the old way).
# NEXT (after the night session of 2026-12-06; its one call ran on an H100, and the device
# budget went on refusals before a second): on main as it is (d694e32 onward: every vec4
# pointwise GEMM at 64x64 / BK 16, which the first call's build did not have on grids of 384+
# tiles), MODELS="dfine_s_640 modnet_512 whisper_base_encoder_30s whisper_base_encoder_30s_sdpa"
# with AB="dfine_s_640:WICK_CONV_PW_VEC4=0,default,WICK_CONV_PW_SPLITK=0,default
# whisper_base_encoder_30s:WICK_SUBMIT_CHUNK=4,default,WICK_SUBMIT_CHUNK=4,default", then
# `ROUNDS=3 bash .dev/bench/vision/ratio_rounds.sh whisper_base_encoder_30s
# whisper_base_encoder_30s_sdpa dfine_s_640` (copy ratio_rounds.sh into the stage): Whisper's
# Wick/ORT was 0.49 in one run and 0.51 in the next, so its verdict needs rounds. D-FINE's
# ten largest layers: 17.5 TFLOP/s in that call; the split ones (1024 -> 256 at 40x40) and
# 256 -> 256 at 80x80 are what stays under 20. Stage with KBENCH="reduce" and run with
# KERNEL_BENCH="reduce reduce" KBENCH_ARGS_reduce="--only short" (the short-row reductions
# that 981a5d4 moved to reduce.wgsl: D-FINE's three 162-us sums should drop to ~10 us).
# NEXT (after the evening session of 2026-12-06; every call that day ran on an H100): give
# conv2d_pw_gemm (D-FINE's two largest layers, 14.6 and 13.6 TFLOP/s) the matmul's 64x64 /
# BK 8 / 8x4 tile (kPwTile* in ops/conv/register.cpp; scalar staging holds it), time it in
# the conv_pw bench, then this script with MODELS="dfine_s_640 modnet_512" and an A/B. Warm
# the GPU before a kernel bench: a cold call's first rows run 2-8x slow.
# NEXT (after the evening session of 2026-12-05; the H200 was refused, every run so far this
# day was on an H100): on the H200, the twelve rows for issue 11's ">= 20 TFLOP/s on large
# layers" criterion, the A/B of WICK_FLASH_SCORE_CHAIN=1 (scores as one FMA chain each, off
# until timed) and WICK_FLASH_PREFETCH=0 on Whisper base and Depth Anything, and the attention
# bench's v18 / v31 (chain) / v23 / v32 (split + chain) / v29 (no prefetch). Then call 2,
# `.dev/f16node/h200_f16_node.sh` staged from a Wasm build of the same commit: the SAM 2.1
# decoder in Wasm should now match eager (b67828a) and its time be re-measured.
# NEXT (after the H100 call of 2026-12-05, bench/results/vision_h200.md): run on main as it
# is (split-K, specialized epilogues and the key split now default) for the table with the
# new defaults on an H200, and the attention bench's split rows (KBENCH_ARGS_attention, v23-v28);
# the matmul bench only its real-size cases and the shipped / split variants (it hit its 60 s
# bound at Whisper q with every variant on the H100).
# 2026-12-05 afternoon session: adds the fused attention's key split (WICK_FLASH_SPLITKV=auto
# and =4, alone and with WICK_MATMUL_SPLITK=auto) to Whisper's and Depth Anything's A/B, and
# the attention bench runs v5, v18-v20 and the split variants v23-v27 only (its 60 s bound);
# SAM: head dim 96 fused (=all) with 2 key splits.
# 2026-12-05 evening: adds WICK_MATMUL_SPLITK=auto (split-K of the 64x64 matmul, on by default
# since this commit) to the A/B of the transformer models.
# NEXT SESSION (2026-12-05 afternoon; the device was paused all session): two calls, chained
# on the same warm machine (idle release is 30 s, so start the second at once):
#  1. this script on main (prepare.sh as below; the kernels now index register arrays by
#     literals only, bench/kernels/robustness/README.md: the native table says whether that
#     costs anything natively; env_ab also tries WICK_SPECIALIZE_EPILOGUE=1, the epilogue as a
#     pipeline constant, against the 0.24 ms the epilogues cost Whisper and Depth Anything);
#  2. bench/kernels/matmul/h200_f16_node.sh (stage it with a Wasm build of the same commit:
#     `bash scripts/build_wasm.sh && bash bench/kernels/matmul/h200_f16_node.sh stage`), carry
#     [".gl", ".dev/f16node"]: the matmul kernels under dawn.node with robustness on and off
#     (did the 10x go?), then every model call 1 exported (/tmp/vb/models) through the Wasm
#     bundle in Node, robustness on and off, checked against eager: what a browser gets.
# Ran once, 2026-12-05 on 9955d31 (bench/results/vision_h200.md): it found the 5x matmul
# regression that 7b6614d fixed. Run it again on main as it is now: the full table with the
# fix, and the A/Bs (D-FINE's pointwise GEMM, SAM's attention choice) with it.
#
# The first H200 call to make in the next session (issue 11): the merged trees of the night of
# 2026-12-04 and of 2026-12-05 (matmul epilogues, the joint memory plan and range views,
# subgroup row reductions, f16 arithmetic), whose kernels and fusions were checked on
# SwiftShader and lavapipe only (the device was paused for both sessions), against the build
# they started from (9039d11), ORT and PyTorch, in one call. The second call:
# bench/kernels/matmul/h200_f16_node.sh (shader-f16 through Dawn's Node binding with
# vulkan_enable_f16_on_nvidia; the pinned native Dawn strips it on NVIDIA). It replaces the per-branch calls that never ran (convt11, dfine11,
# flash11, host11b, f16mm11 call 2, perm11, norm11). Stage first, here:
#
#   git worktree add /tmp/before 9039d11 && (cd /tmp/before && <configure + build wick as scripts/setup.sh does>)
#   SKIP_FIXTURE=1 KBENCH="attention conv_pw matmul" bash bench/vision/prepare.sh /work/main/.dev/bench build
#   (with BEFORE=other/build/wick for a before/after; more KBENCH names may not fit 64 MiB)
#   (prepare.sh copies this folder's scripts into the stage, run_env.sh with them)
#
# then the device tool: `bash .dev/bench/vision/next_h200_call.sh`, carry [".gl", ".dev/bench"],
# timeout_s 590. Two parts, each cut by its deadline:
#  1. h200.sh over the twelve rows with BEFORE_MODELS=1 (the before/after profiles hold the
#     per-layer TFLOP/s rows the issue asks for) and the kernel benches while the models export;
#     F16=1 adds each model with --f16 (f16 linear weights; bench/kernels/matmul/README.md);
#  2. env_ab.sh: each new default switched off on the models it was made for (a switch that
#     loses to its "off" is a default to change), and WICK_SUBGROUPS=1 (subgroup row
#     reductions, off by default until this A/B) on the models with layer norms and softmax.
set -o pipefail
S=${S:-.dev/bench}
# MODELS, DEADLINE (h200.sh's) and END (the A/B's) can be cut for a call with less device time.
MODELS=${MODELS:-"sam2_1_hiera_tiny_encoder_1024 sam2_1_hiera_tiny_decoder_1click depth_anything_v2_small_518 \
whisper_base_encoder_30s dfine_s_640 modnet_512 modnet_512_in_explicit realesrgan_x4_tile64 mobilenet_v3_small \
esrgan_slim_x4_64 depth_anything_v2_small_518_sdpa whisper_base_encoder_30s_sdpa"}
END=${END:-540}
# The A/B rows (env_ab.sh MODEL:SETTING,... specs); AB overrides them.
# Since 8cba407 split-K, specialized epilogues and the key split (on the H100 / H200) are
# defaults: each is switched off here against the default, on the H200 this time.
AB=${AB:-"whisper_base_encoder_30s:WICK_FLASH_SCORE_CHAIN=1,default,WICK_FLASH_SCORE_CHAIN=1,default,WICK_FLASH_PREFETCH=0,WICK_FLASH_SPLITKV=0,WICK_MATMUL_SPLITK=0 \
depth_anything_v2_small_518:WICK_FLASH_SCORE_CHAIN=1,default,WICK_FLASH_SCORE_CHAIN=1,default,WICK_FLASH_PREFETCH=0,WICK_MATMUL_SPLITK=0 \
sam2_1_hiera_tiny_encoder_1024:WICK_MATMUL_SPLITK=0,WICK_SPECIALIZE_EPILOGUE=0,WICK_FLASH_ATTENTION=all,WICK_SUBGROUPS=1,default \
sam2_1_hiera_tiny_decoder_1click:WICK_MATMUL_SPLITK=0,WICK_SPECIALIZE_EPILOGUE=0,default \
dfine_s_640:WICK_MATMUL_SPLITK=0,WICK_SPECIALIZE_EPILOGUE=0,WICK_CONV_PW_GEMM=0,default \
mobilenet_v3_small:WICK_SPECIALIZE_EPILOGUE=0,default \
modnet_512:WICK_NORM_SPLIT=0,WICK_CONV_PW_GEMM=0,default"}
F16=${F16:-} FIRST="$MODELS" BEFORE_MODELS=1 SKIP_FIXTURE=1 WICK_SECONDS=2 ORT_SECONDS=2 TORCH_SECONDS=2 \
  KERNEL_BENCH="${KERNEL_BENCH:-attention conv_pw matmul}" KBENCH_ARGS_attention="${KBENCH_ARGS_attention:-18 31 23 32 29}" KBENCH_ARGS_matmul="${KBENCH_ARGS_matmul:---large 32 33 34 35 36 37}" DEADLINE=${DEADLINE:-400} \
  bash $S/vision/h200.sh $MODELS 2>&1 | tee $OUT/h200.log
echo "[${SECONDS}s] env A/B"
if (( SECONDS < END - 30 )); then
  AB_SECONDS=2 timeout $((END - SECONDS)) bash $S/vision/env_ab.sh $AB 2>&1 | tee $OUT/env_ab.log
fi
# The device tool brings back 8 files: everything but the log and the table in one archive.
# (Written beside, then moved in: a tar written into the folder it reads fails "file changed".)
(cd $OUT && tar -czf /tmp/all_logs.tar.gz --exclude=h200.log --exclude=table.md . && mv /tmp/all_logs.tar.gz . &&
  find . -maxdepth 1 -type f ! -name h200.log ! -name table.md ! -name all_logs.tar.gz ! -name env_ab.log -delete)
echo "[${SECONDS}s] end"
