#!/usr/bin/env bash
# Second H200 call: readback through streaming loads (wick) vs memcpy (wick_prev, the
# first call's build) on the tiny Whisper encoder fixture: profile host rows and bench.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
W=/tmp/b2; mkdir -p $W; tar -xJf .dev/bench2/wick.tar.xz -C $W
export LD_LIBRARY_PATH=$W/wick
F=$W/wick/whisper_tiny_encoder; IN="$F/case0_input0.bin:float32:1,80,3000"
grep -m1 -o 'sse4_1' /proc/cpuinfo; grep -m1 'model name' /proc/cpuinfo
for b in wick_prev wick wick_prev wick; do
  echo "== $b"
  timeout 30 $W/wick/$b run $F/model.pte --backend webgpu --profile --input $IN --output $W/out_$b.bin 2>&1 | grep -E "^step|delegate|host:"
  timeout 30 $W/wick/$b bench $F/model.pte --backend webgpu --runs 100 --warmup 3 --max-seconds 6 --input $IN 2>&1 | grep median
  cmp $W/out_$b.bin $W/out_wick_prev.bin && echo "output identical to wick_prev"
done
