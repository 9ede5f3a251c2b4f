#!/usr/bin/env bash
# Stages what bench/kernels/conv/h200.sh needs into .bench/conv/ (git-ignored: .bench is
# in .git/info/exclude): a Release `wick` and `wick_kernel_bench_conv` from build-rel/
# (configured here when missing), Dawn, and the conv-heavy fixture programs with an input
# each. Pass further `wick` binaries (e.g. one built at a commit before conv2d_block) to
# stage them as wick-<n> for an end-to-end A/B on the device.
#   bash bench/kernels/conv/prepare_h200.sh [other-wick...]
set -eu
cd "$(dirname "$0")/../../.."
if [[ ! -f build-rel/CMakeCache.txt ]]; then
  cmake -S . -B build-rel -G Ninja -DCMAKE_BUILD_TYPE=Release -DWICK_BUILD_TESTS=OFF >/dev/null
fi
flock /tmp/wick-build.lock cmake --build build-rel -j2 --target wick wick_kernel_bench_conv
S=.bench/conv
rm -rf $S && mkdir -p $S/fx
cp build-rel/wick build-rel/wick_kernel_bench_conv $S/ && strip $S/wick $S/wick_kernel_bench_conv
# The kernel bench reads its variants from the source tree it was configured in.
grep -o 'WICK_KERNEL_BENCH_DIR=[^ ]*' build-rel/build.ninja | head -1 | tr -d '\\"' | cut -d= -f2 > $S/kernel_bench_dir
n=0
for w in "$@"; do n=$((n + 1)); cp "$w" $S/wick-$n && strip $S/wick-$n; done
cp third_party/npm/dawn/lib/libwebgpu_wrapper.so $S/
for f in pretrained/esrgan_slim_x4 pretrained/esrgan_slim_x4_dynamic pretrained/esrgan_slim_x2 \
         demos/realesrgan_tiny demos/depth_anything_v2_tiny; do
  mkdir -p $S/fx/$f
  cp ../shared/fixtures/$f/model.pte ../shared/fixtures/$f/case0_input0.bin $S/fx/$f/
done
du -sh $S
