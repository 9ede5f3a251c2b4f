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
#include <memory>
#include <type_traits>

namespace wick::cpu {

// A reference to a callable fn(begin, end), not a copy: parallel_for calls it only before it
// returns. Not std::function, whose template machinery every kernel's lambda instantiated
// anew: in the Wasm build that was half of unary.cpp's compile front end.
class ChunkFn {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, ChunkFn>>>
  ChunkFn(F&& f)  // NOLINT(google-explicit-constructor): lambdas convert at the call
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* obj, int64_t begin, int64_t end) { (*static_cast<std::remove_reference_t<F>*>(obj))(begin, end); }) {}
  void operator()(int64_t begin, int64_t end) const { call_(obj_, begin, end); }

 private:
  void* obj_;
  void (*call_)(void*, int64_t, int64_t);
};

// Calls fn(begin, end) over [0, n) in chunks of at least `grain` iterations.
void parallel_for(int64_t n, int64_t grain, ChunkFn fn);

// Threads parallel_for uses, the caller's included (>= 1).
int num_threads();
// 0 restores the default. Takes effect at the next parallel_for.
void set_num_threads(int n);

// Chunks of parallel_for run by the pool's workers so far (not by the calling threads).
int64_t worker_chunks();

}  // namespace wick::cpu
