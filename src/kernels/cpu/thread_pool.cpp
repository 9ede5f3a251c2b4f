#include "kernels/cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#define WICK_CPU_THREADS 1
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace wick::cpu {

namespace {

#ifdef WICK_CPU_THREADS
int default_threads() {
  if (const char* env = std::getenv("WICK_NUM_THREADS")) {
    char* end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v >= 1 && v <= 256) return static_cast<int>(v);
  }
  return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 64u));
}
#endif

std::atomic<int>& requested() {
  static std::atomic<int> n{0};
  return n;
}

thread_local bool t_in_chunk = false;

// Chunks the pool's workers ran (not the callers): how a test tells that work was shared.
std::atomic<int64_t>& worker_chunk_count() {
  static std::atomic<int64_t> n{0};
  return n;
}

#ifdef WICK_CPU_THREADS
thread_local bool t_is_worker = false;

// Workers wait for tasks on one queue. Tasks never wait on anything, so any number of
// callers (methods run from several threads) can share the pool without deadlock.
class Pool {
 public:
  static Pool& get() {
    // Never destroyed: worker threads must not be joined from static destructors, when
    // other statics they might touch are already gone.
    static Pool* p = new Pool();
    return *p;
  }
  void ensure_workers(int n) {
    std::lock_guard<std::mutex> lock(mutex_);
    while (static_cast<int>(workers_.size()) < n) workers_.emplace_back([this] { loop(); });
  }
  void post(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

 private:
  void loop() {
    t_in_chunk = true;
    t_is_worker = true;
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [this] { return !tasks_.empty(); });
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> workers_;
};
#endif

}  // namespace

int num_threads() {
#ifdef WICK_CPU_THREADS
  int n = requested().load();
  if (n >= 1) return n;
  static const int d = default_threads();
  return d;
#else
  return 1;  // no workers to split over, whatever was asked
#endif
}

void set_num_threads(int n) { requested().store(std::max(n, 0)); }

int64_t worker_chunks() { return worker_chunk_count().load(); }

void parallel_for(int64_t n, int64_t grain, ChunkFn fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int threads = num_threads();
  // A few chunks per thread, taken in turn by whoever is free: on a shared machine a worker
  // may not be scheduled for a while, and the caller then simply does its chunks too.
  int64_t chunks = std::min<int64_t>(int64_t{threads} * 4, (n + grain - 1) / grain);
#ifdef WICK_CPU_THREADS
  if (t_in_chunk || threads <= 1) chunks = 1;
#else
  chunks = 1;
#endif
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
#ifdef WICK_CPU_THREADS
  struct Job {
    std::atomic<int64_t> next{0};
    int64_t chunks = 0, n = 0;
    std::mutex m;
    std::condition_variable cv;
    int64_t done = 0;  // chunks finished, under m
  };
  auto job = std::make_shared<Job>();
  job->chunks = chunks;
  job->n = n;
  const ChunkFn* body = &fn;
  // Runs chunks until none is left. `body` is only touched for a chunk taken here, and
  // the caller waits for every chunk, so a late worker never sees a dangling function.
  auto work = [job, body]() {
    int64_t finished = 0;
    for (int64_t c; (c = job->next.fetch_add(1)) < job->chunks;) {
      const int64_t b = job->n * c / job->chunks, e = job->n * (c + 1) / job->chunks;
      (*body)(b, e);
      ++finished;
    }
    if (finished) {
      if (t_is_worker) worker_chunk_count().fetch_add(finished);
      std::lock_guard<std::mutex> lock(job->m);
      job->done += finished;
      if (job->done == job->chunks) job->cv.notify_one();
    }
  };
  Pool& pool = Pool::get();
  const int helpers = static_cast<int>(std::min<int64_t>(threads - 1, chunks - 1));
  pool.ensure_workers(helpers);
  for (int i = 0; i < helpers; ++i) pool.post(work);
  t_in_chunk = true;
  work();
  t_in_chunk = false;
  std::unique_lock<std::mutex> lock(job->m);
  job->cv.wait(lock, [&] { return job->done == job->chunks; });
#endif
}

}  // namespace wick::cpu
