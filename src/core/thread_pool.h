// core/thread_pool.h: the intra-op thread pool kernels use to split work.
//
// Layer: nxrt_core. One pool per session (option `intra_op_threads`, default = cores). The
// calling thread always takes part, so a pool of N threads starts N-1 worker threads and a pool of
// 1 runs everything inline with no synchronisation.
//
// ParallelFor publishes a job (the range cut into chunks) that the caller and the workers claim
// chunk by chunk from one atomic ticket, and returns as soon as every chunk has run. It waits only
// for chunks other threads have claimed and are running, never for a worker that has not woken
// up yet: a worker the OS has not scheduled (the machine is busy) finds the job done when it
// runs and takes nothing, and the caller has done its share meanwhile. A fork-join region
// (OpenMP's, which this pool replaced) waits for every thread of its team at the end, so on a
// loaded machine one descheduled thread stalled every op for a scheduler tick. Workers spin for
// a short while after a job (the next op usually follows within microseconds), then sleep on a
// condition variable until the next one.
//
// oneDNN (the CPU EP's GEMM and convolution library) keeps its own OpenMP threads, sized per call
// by math/nn/dnnl_threads.h; a worker's own oneDNN calls run on that worker alone.
//
// ParallelFor may be called from several threads at once (concurrent Session::Run calls): one
// caller at a time publishes a job, the others run their loop inline, so threads are never
// oversubscribed and no call waits for another's work. A ParallelFor called from inside a chunk
// (a kernel run by another ParallelFor) runs inline too.
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

  int num_threads() const { return num_threads_; }

  // Calls fn(begin, end) on disjoint ranges covering [0, n), each at least `min_chunk` long
  // (except the last), and returns when all calls have returned. `fn` must not throw. Work is
  // split into about 4 chunks per thread, taken dynamically, so uneven chunks balance out.
  void ParallelFor(int64_t n, int64_t min_chunk, const std::function<void(int64_t, int64_t)>& fn);

 private:
  void WorkerLoop();
  // Claims and runs chunks of the published job until none is left; false when none was taken.
  bool RunChunks();

  int num_threads_ = 1;
  std::mutex dispatch_mutex_;  // held by the one caller whose job is published

  // The published job. Written by its caller before the ticket names it; read by a thread only
  // after it has claimed one of its chunks, and not rewritten until every chunk has run.
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;
  int64_t chunk_ = 0;
  // generation (32 bits) | chunk count (16 bits) | next chunk to claim (16 bits).
  std::atomic<uint64_t> ticket_{0};
  std::atomic<int64_t> done_{0};  // chunks of the job that have returned

  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> workers_;
};

}  // namespace nxrt
