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
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace wick::cpu {

namespace {

int default_threads() {
  if (const char* env = std::getenv("WICK_NUM_THREADS")) {
    char* end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v >= 1 && v <= 256) return static_cast<int>(v);
  }
#ifdef WICK_CPU_THREADS
  return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 64u));
#else
  return 1;
#endif
}

std::atomic<int>& requested() {
  static std::atomic<int> n{0};
  return n;
}

thread_local bool t_in_chunk = false;

#ifdef WICK_CPU_THREADS
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
  int n = requested().load();
  if (n >= 1) return n;
  static const int d = default_threads();
  return d;
}

void set_num_threads(int n) { requested().store(std::max(n, 0)); }

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  int64_t chunks = std::min<int64_t>(num_threads(), (n + grain - 1) / grain);
#ifdef WICK_CPU_THREADS
  if (t_in_chunk) chunks = 1;
#else
  chunks = 1;
#endif
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
#ifdef WICK_CPU_THREADS
  Pool& pool = Pool::get();
  pool.ensure_workers(static_cast<int>(chunks - 1));
  struct Join {
    std::mutex m;
    std::condition_variable cv;
    int64_t left;
  };
  auto join = std::make_shared<Join>();
  join->left = chunks - 1;
  const int64_t step = n / chunks, extra = n % chunks;
  auto bounds = [&](int64_t c) {
    const int64_t b = c * step + std::min(c, extra);
    return std::pair<int64_t, int64_t>{b, b + step + (c < extra ? 1 : 0)};
  };
  for (int64_t c = 1; c < chunks; ++c) {
    auto [b, e] = bounds(c);
    pool.post([&fn, b, e, join] {
      fn(b, e);
      std::lock_guard<std::mutex> lock(join->m);
      if (--join->left == 0) join->cv.notify_one();
    });
  }
  auto [b0, e0] = bounds(0);
  t_in_chunk = true;
  fn(b0, e0);
  t_in_chunk = false;
  std::unique_lock<std::mutex> lock(join->m);
  join->cv.wait(lock, [&] { return join->left == 0; });
#endif
}

}  // namespace wick::cpu
