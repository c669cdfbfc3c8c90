// The pool of worker threads that runs a grid's programs (one worker per
// core; TRITONC_CPU_THREADS overrides). A launch hands out chunks of
// consecutive program ids from an atomic counter, so uneven programs
// balance; the launching thread works too. Launches from several threads
// take the pool one at a time.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tritonc::cpu::detail {

class ThreadPool {
 public:
  static ThreadPool& global();
  explicit ThreadPool(int threads);
  ~ThreadPool();
  int size() const { return int(workers_.size()) + 1; }  // with the calling thread

  // Calls work(worker, begin, end) on chunks of [0, n) until all are done or
  // a call returns false (then no new chunk starts). `worker` is in
  // [0, size()), 0 being the calling thread. `work` must not throw.
  void run(int64_t n, int64_t chunk, const std::function<bool(int worker, int64_t begin, int64_t end)>& work);

 private:
  void workerLoop(int worker);
  void drain(int worker);

  std::vector<std::thread> workers_;
  std::mutex launch_;  // one launch at a time
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  uint64_t generation_ = 0;  // bumped per launch
  int busy_ = 0;             // workers still in the current launch
  bool stopping_ = false;
  // The current launch.
  const std::function<bool(int, int64_t, int64_t)>* work_ = nullptr;
  int64_t n_ = 0, chunk_ = 1;
  std::atomic<int64_t> next_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace tritonc::cpu::detail
