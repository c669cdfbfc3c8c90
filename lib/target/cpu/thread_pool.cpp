#include "target/cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <pthread.h>
#include <string>

namespace tritonc::cpu::detail {

namespace {
int threadsWanted() {
  if (const char* s = std::getenv("TRITONC_CPU_THREADS")) {
    int n = std::atoi(s);
    if (n >= 1 && n <= 1024) return n;
  }
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : int(n);
}
}  // namespace

namespace {
std::mutex globalMutex;
ThreadPool* globalPool = nullptr;
// A child of fork() has none of the parent's workers: it makes its own pool
// (the parent's object is abandoned, its threads do not exist here).
void forgetPoolInChild() {
  new (&globalMutex) std::mutex;  // another thread may have held it at the fork
  globalPool = nullptr;
}
}  // namespace

ThreadPool& ThreadPool::global() {
  std::lock_guard<std::mutex> lock(globalMutex);
  if (!globalPool) {
    static bool registered = (pthread_atfork(nullptr, nullptr, forgetPoolInChild), true);
    (void)registered;
    // Never destroyed: kernels may be launched from other static destructors.
    globalPool = new ThreadPool(threadsWanted());
  }
  return *globalPool;
}

ThreadPool::ThreadPool(int threads) {
  for (int w = 1; w < threads; ++w) workers_.emplace_back([this, w] { workerLoop(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::drain(int worker) {
  for (;;) {
    if (stop_.load(std::memory_order_relaxed)) return;
    const int64_t begin = next_.fetch_add(chunk_, std::memory_order_relaxed);
    if (begin >= n_) return;
    const int64_t end = std::min(n_, begin + chunk_);
    if (!(*work_)(worker, begin, end)) stop_.store(true, std::memory_order_relaxed);
  }
}

void ThreadPool::workerLoop(int worker) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    drain(worker);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) finished_.notify_all();
    }
  }
}

void ThreadPool::run(int64_t n, int64_t chunk, const std::function<bool(int, int64_t, int64_t)>& work) {
  if (n <= 0) return;
  chunk = std::max<int64_t>(chunk, 1);
  // One chunk (or no helpers): no hand-off to other threads.
  if (n <= chunk || workers_.empty()) {
    for (int64_t b = 0; b < n; b += chunk)
      if (!work(0, b, std::min(n, b + chunk))) return;
    return;
  }
  std::lock_guard<std::mutex> one(launch_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    work_ = &work;
    n_ = n;
    chunk_ = chunk;
    next_.store(0);
    stop_.store(false);
    busy_ = int(workers_.size());
    ++generation_;
  }
  wake_.notify_all();
  drain(0);
  std::unique_lock<std::mutex> lock(mutex_);
  finished_.wait(lock, [&] { return busy_ == 0; });
  work_ = nullptr;
}

}  // namespace tritonc::cpu::detail
