# Sourced by the lean device calls (the kernel benches alone, no model exports:
# conv/nbuf_call.sh, conv/warp_kernels_call.sh), from the checkout's root on the device:
# NVIDIA's Vulkan loader from .gl, the staged .dev/bench/wick.tar.xz unpacked into W, the
# library path and WICK_KERNEL_BENCH_DIR set, K the benches' folder; prints the GPU and the
# staged commit.
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
W=/tmp/vb
mkdir -p $W
tar -xJf .dev/bench/wick.tar.xz -C $W
export LD_LIBRARY_PATH=$W/wick WICK_KERNEL_BENCH_DIR=$W/wick/kbench
K=$W/wick/kbench
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
head -1 $W/wick/COMMIT
