// A small pool of worker threads for the heavy CPU kernels (convolution, matrix products,
// 4-bit linear). parallel_for splits a range into contiguous chunks, runs the first on
// the calling thread and the others on the workers, and returns when all are done.
//
// The thread count defaults to the machine's cores (std::thread::hardware_concurrency),
// WICK_NUM_THREADS overrides it, and set_num_threads() at run time. Calls made from inside
// a chunk run serially, so kernels may nest. The Wasm build without pthreads has no
// workers: everything runs on the calling thread.
#pragma once

#include <cstdint>
#include <functional>

namespace wick::cpu {

// Calls fn(begin, end) over [0, n) in chunks of at least `grain` iterations.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t begin, int64_t end)>& fn);

// Threads parallel_for uses, the caller's included (>= 1).
int num_threads();
// 0 restores the default. Takes effect at the next parallel_for.
void set_num_threads(int n);

// Chunks of parallel_for run by the pool's workers so far (not by the calling threads).
int64_t worker_chunks();

}  // namespace wick::cpu
