// The large host copies around the GPU: inputs into the mapped upload staging buffer, outputs
// out of the mapped readback buffer. On the H100 one thread's memcpy moved them at 6-9 GB/s
// (Whisper base: 0.92 MiB in 0.2 ms, 2.93 MiB out in 0.3 ms; the SAM 2.1 encoder 12 MiB in
// 1.6 ms and 16 MiB out in 1.8 ms; bench/results/vision_h200.md), time the GPU sits idle
// for. Copies of at least kParallelCopyMinBytes (512 KiB: Whisper base's 0.92 MiB input
// included) are split over a few helper threads (started
// at the first such copy and kept); smaller ones, a second copy while one is running, and the
// Wasm build (no threads there) use one memcpy, as does WICK_PARALLEL_COPY=0 (A/B timings).
#pragma once

#include <cstddef>

namespace wick::gpu {

constexpr size_t kParallelCopyMinBytes = size_t{1} << 19;
// Threads a large copy is split over, the caller's included.
constexpr unsigned kParallelCopyThreads = 4;

void host_copy(void* dst, const void* src, size_t bytes);

}  // namespace wick::gpu
