#!/usr/bin/env bash
# Stages what bench/kernels/conv/h200.sh needs into $S (default .bench/conv/, git-ignored:
# .bench is in .git/info/exclude): `wick` and `wick_kernel_bench_conv` from $BUILD
# (default build-rel/, configured Release here when missing), the bench's WGSL variants,
# Dawn, and the conv-heavy fixture programs with an input each. Pass further `wick`
# binaries (e.g. one built at a commit before conv2d_block) to stage them as wick-<n> for
# an end-to-end A/B on the device. S may be a path outside this tree (e.g. the checkout
# that the device call sends).
#   [S=...] [BUILD=build] bash bench/kernels/conv/prepare_h200.sh [other-wick...]
set -eu
cd "$(dirname "$0")/../../.."
B=${BUILD:-build-rel}
if [[ ! -f $B/CMakeCache.txt ]]; then
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DWICK_BUILD_TESTS=OFF >/dev/null
fi
flock /tmp/wick-build.lock cmake --build $B -j2 --target wick wick_kernel_bench_conv
S=${S:-.bench/conv}
rm -rf $S && mkdir -p $S/fx $S/kernels/conv
cp $B/wick $B/wick_kernel_bench_conv $S/ && strip $S/wick $S/wick_kernel_bench_conv
# The kernel bench reads its variants from the source tree it was configured in; h200.sh
# points that path at this copy.
cp bench/kernels/conv/*.wgsl $S/kernels/conv/
grep -o 'WICK_KERNEL_BENCH_DIR=[^ ]*' $B/build.ninja | head -1 | tr -d '\\"' | cut -d= -f2 > $S/kernel_bench_dir
n=0
for w in "$@"; do n=$((n + 1)); cp "$w" $S/wick-$n && strip $S/wick-$n; done
cp third_party/npm/dawn/lib/libwebgpu_wrapper.so $S/
for f in pretrained/esrgan_slim_x4 pretrained/esrgan_slim_x4_dynamic pretrained/esrgan_slim_x2 \
         demos/realesrgan_tiny demos/depth_anything_v2_tiny; do
  mkdir -p $S/fx/$f
  cp ../shared/fixtures/$f/model.pte ../shared/fixtures/$f/case0_input0.bin $S/fx/$f/
done
du -sh $S
