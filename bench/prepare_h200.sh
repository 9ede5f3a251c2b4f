#!/usr/bin/env bash
# Stages what bench/h200_bench.sh needs into .bench/ (git-ignored via .git/info/exclude).
set -eu
cd "$(dirname "$0")/.."
rm -rf .bench && mkdir -p .bench/fx
cp build-rel/wick .bench/ && strip .bench/wick
cp third_party/npm/dawn/lib/libwebgpu_wrapper.so .bench/
for f in models/mobilenet_v3_small models/mlp models/cnn pretrained/esrgan_slim_x4 demos/realesrgan_tiny \
         demos/modnet_tiny demos/detr_tiny; do
  mkdir -p .bench/fx/$f
  cp ../shared/fixtures/$f/model.pte .bench/fx/$f/
done
cp ../shared/fixtures/models/mobilenet_v3_small/case0_input0.bin .bench/fx/models/mobilenet_v3_small/
du -sh .bench
