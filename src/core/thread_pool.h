// core/thread_pool.h: the intra-op thread pool kernels use to split work.
//
// Layer: nxrt_core. One pool per session (option `intra_op_threads`, default = cores). The
// calling thread always takes part, so a pool of N threads starts N-1 workers and a pool of 1
// runs everything inline with no synchronisation. ParallelFor may be called from several threads
// at once (concurrent Session::run calls): one caller at a time uses the workers, the others run
// their loop inline, so threads are never oversubscribed and no call waits for another's work.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace nxrt {

class ThreadPool {
 public:
  // `num_threads` >= 1 threads in all, counting the caller; values < 1 mean 1.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end) on disjoint ranges covering [0, n), each at least `min_chunk` long
  // (except the last), and returns when all calls have returned. `fn` must not throw. Work is
  // split into about 4 chunks per thread so uneven chunks balance out.
  void ParallelFor(int64_t n, int64_t min_chunk, const std::function<void(int64_t, int64_t)>& fn);

 private:
  struct Job {
    const std::function<void(int64_t, int64_t)>* fn = nullptr;
    int64_t n = 0;
    int64_t chunk = 0;
    int64_t chunks = 0;
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> done{0};
  };
  void WorkerLoop();
  static void RunChunks(Job& job);

  std::vector<std::thread> workers_;
  std::mutex dispatch_mutex_;  // held by the one caller using the workers
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  Job job_;
  uint64_t generation_ = 0;  // bumped per job; workers wait for a new generation
  int active_workers_ = 0;   // workers still inside the current job
  bool stop_ = false;
};

}  // namespace nxrt
