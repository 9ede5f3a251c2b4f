#include "gpu/host_copy.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#ifndef __EMSCRIPTEN__
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace wick::gpu {

#ifdef __EMSCRIPTEN__

void host_copy(void* dst, const void* src, size_t bytes) { std::memcpy(dst, src, bytes); }

#else

namespace {

// Helper threads, each copying its part of the current copy. One copy at a time (busy_);
// the caller copies part 0 and waits for the rest.
class CopyPool {
 public:
  static CopyPool& get() {
    static CopyPool pool;
    return pool;
  }

  // False when another copy holds the pool (the caller then copies alone).
  bool copy(char* dst, const char* src, size_t bytes) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    const size_t workers = workers_.size();
    if (workers == 0) return false;
    // Parts of whole 64-byte lines, the caller's first.
    const size_t parts = workers + 1;
    const size_t part = (bytes / parts + 63) / 64 * 64;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t w = 0; w < workers; ++w) {
        const size_t begin = std::min(bytes, part * (w + 1));
        const size_t end = w + 1 == workers ? bytes : std::min(bytes, begin + part);  // the last takes the rest
        jobs_[w] = Job{dst + begin, src + begin, end - begin};
      }
      pending_ = workers;
      ++generation_;
    }
    wake_.notify_all();
    std::memcpy(dst, src, std::min(bytes, part));
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
    return true;
  }

  ~CopyPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

 private:
  struct Job {
    char* dst = nullptr;
    const char* src = nullptr;
    size_t bytes = 0;
  };

  CopyPool() {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const size_t n = std::min(kParallelCopyThreads, hw) - 1;
    jobs_.resize(n);
    for (size_t w = 0; w < n; ++w) workers_.emplace_back([this, w] { work(w); });
  }

  void work(size_t w) {
    uint64_t seen = 0;
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        // Each copy gives every worker a job (maybe empty) and a new generation.
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = jobs_[w];
      }
      if (job.bytes > 0) std::memcpy(job.dst, job.src, job.bytes);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        --pending_;
      }
      done_.notify_one();
    }
  }

  std::mutex busy_;   // held for the length of one copy
  std::mutex mutex_;  // jobs_, pending_, generation_, stop_
  std::condition_variable wake_, done_;
  std::vector<Job> jobs_;
  std::vector<std::thread> workers_;
  size_t pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace

// WICK_PARALLEL_COPY=0: one memcpy always (for A/B timings).
bool parallel_copy_on() {
  static const bool on = [] {
    const char* v = std::getenv("WICK_PARALLEL_COPY");
    return !(v && std::string_view(v) == "0");
  }();
  return on;
}

void host_copy(void* dst, const void* src, size_t bytes) {
  if (bytes >= kParallelCopyMinBytes && parallel_copy_on() &&
      CopyPool::get().copy(static_cast<char*>(dst), static_cast<const char*>(src), bytes))
    return;
  std::memcpy(dst, src, bytes);
}

#endif

}  // namespace wick::gpu
