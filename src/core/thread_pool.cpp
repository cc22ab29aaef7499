// core/thread_pool.cpp: ParallelFor over chunks claimed from one atomic ticket (see thread_pool.h).
#include "core/thread_pool.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>

namespace nxrt {
namespace {

// Set on worker threads, and on a caller while it runs chunks: a ParallelFor from there runs
// inline.
thread_local bool in_pool_work = false;

// How long a worker spins for the next job before it sleeps: ops follow each other within
// microseconds, and waking a sleeping thread costs tens.
constexpr auto kSpin = std::chrono::microseconds(100);

constexpr uint64_t kIndexMask = 0xFFFF;
constexpr int64_t kMaxChunks = 0xFFFF;

uint64_t Generation(uint64_t ticket) { return ticket >> 32; }
uint64_t Chunks(uint64_t ticket) { return (ticket >> 16) & kIndexMask; }
uint64_t Next(uint64_t ticket) { return ticket & kIndexMask; }

}  // namespace

ThreadPool::ThreadPool(int num_threads) : num_threads_(std::max(num_threads, 1)) {
  for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

bool ThreadPool::RunChunks() {
  bool ran = false;
  uint64_t ticket = ticket_.load(std::memory_order_acquire);
  while (Next(ticket) < Chunks(ticket)) {
    if (!ticket_.compare_exchange_weak(ticket, ticket + 1, std::memory_order_acquire,
                                       std::memory_order_acquire)) {
      continue;
    }
    // The claimed chunk belongs to the job the ticket named, whose fields stay put until it
    // returns (the caller waits for it).
    const int64_t begin = static_cast<int64_t>(Next(ticket)) * chunk_;
    (*fn_)(begin, std::min(n_, begin + chunk_));
    done_.fetch_add(1, std::memory_order_release);
    ran = true;
    ticket = ticket_.load(std::memory_order_acquire);
  }
  return ran;
}

void ThreadPool::WorkerLoop() {
  in_pool_work = true;
  bool single_threaded_omp = false;
  uint64_t seen = Generation(ticket_.load(std::memory_order_acquire));
  for (;;) {
    const auto spin_end = std::chrono::steady_clock::now() + kSpin;
    bool job = false;
    for (int spins = 0; !job; ++spins) {
      if (stop_.load(std::memory_order_relaxed)) return;
      job = Generation(ticket_.load(std::memory_order_acquire)) != seen;
      if (job) break;
      _mm_pause();
      if (spins % 64 == 63 && std::chrono::steady_clock::now() > spin_end) break;
    }
    if (!job) {
      std::unique_lock<std::mutex> lock(sleep_mutex_);
      sleepers_.fetch_add(1);  // sequentially consistent: pairs with the caller's ticket store
      wake_.wait(lock, [&] {
        return stop_.load() || Generation(ticket_.load()) != seen;
      });
      sleepers_.fetch_sub(1);
      if (stop_.load()) return;
    }
    seen = Generation(ticket_.load(std::memory_order_acquire));
    if (!single_threaded_omp) {
      // oneDNN called from a chunk stays on this thread. Not at thread start: the OpenMP runtime
      // takes a global lock to register the thread, and a worker the OS deschedules while
      // holding it stalls the caller's own OpenMP calls (milliseconds on a busy machine).
      omp_set_num_threads(1);
      single_threaded_omp = true;
    }
    RunChunks();
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t min_chunk,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  min_chunk = std::max<int64_t>(min_chunk, 1);
  if (num_threads_ == 1 || n <= min_chunk || in_pool_work) {
    fn(0, n);
    return;
  }
  std::unique_lock<std::mutex> dispatch(dispatch_mutex_, std::try_to_lock);
  if (!dispatch.owns_lock()) {  // another caller is using the threads
    fn(0, n);
    return;
  }
  int64_t chunk = std::max(min_chunk, (n + num_threads_ * 4 - 1) / (num_threads_ * 4));
  chunk = std::max(chunk, (n + kMaxChunks - 1) / kMaxChunks);
  const int64_t chunks = (n + chunk - 1) / chunk;
  fn_ = &fn;
  n_ = n;
  chunk_ = chunk;
  done_.store(0, std::memory_order_relaxed);
  const uint64_t generation = Generation(ticket_.load(std::memory_order_relaxed)) + 1;
  ticket_.store((generation << 32) | (static_cast<uint64_t>(chunks) << 16));
  if (sleepers_.load() > 0) {
    // Taking the lock orders this wake after a sleeper's check of the ticket.
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    wake_.notify_all();
  }
  in_pool_work = true;
  RunChunks();
  in_pool_work = false;
  // Only chunks other threads claimed are left, and those threads are running them.
  for (int spins = 0; done_.load(std::memory_order_acquire) < chunks; ++spins) {
    if (spins < 4096) {
      _mm_pause();
    } else {
      std::this_thread::yield();
    }
  }
}

}  // namespace nxrt
