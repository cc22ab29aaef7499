// core/thread_pool.cpp: ParallelFor over a fixed set of workers (see thread_pool.h).
#include "core/thread_pool.h"

#include <algorithm>

namespace nxrt {

ThreadPool::ThreadPool(int num_threads) {
  const int workers = std::max(num_threads, 1) - 1;
  workers_.reserve(workers);
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::RunChunks(Job& job) {
  for (;;) {
    const int64_t c = job.next.fetch_add(1, std::memory_order_relaxed);
    if (c >= job.chunks) return;
    const int64_t begin = c * job.chunk;
    const int64_t end = std::min(job.n, begin + job.chunk);
    (*job.fn)(begin, end);
    job.done.fetch_add(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::WorkerLoop() {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    RunChunks(job_);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--active_workers_ == 0) finished_.notify_one();
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t min_chunk,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  min_chunk = std::max<int64_t>(min_chunk, 1);
  const int64_t threads = num_threads();
  if (threads == 1 || n <= min_chunk) {
    fn(0, n);
    return;
  }
  std::unique_lock<std::mutex> dispatch(dispatch_mutex_, std::try_to_lock);
  if (!dispatch.owns_lock()) {  // another caller is using the workers
    fn(0, n);
    return;
  }
  const int64_t chunk = std::max(min_chunk, (n + threads * 4 - 1) / (threads * 4));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_.fn = &fn;
    job_.n = n;
    job_.chunk = chunk;
    job_.chunks = (n + chunk - 1) / chunk;
    job_.next.store(0, std::memory_order_relaxed);
    job_.done.store(0, std::memory_order_relaxed);
    active_workers_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  wake_.notify_all();
  RunChunks(job_);
  std::unique_lock<std::mutex> lock(mutex_);
  finished_.wait(lock, [&] { return active_workers_ == 0; });
}

}  // namespace nxrt
