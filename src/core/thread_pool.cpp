// core/thread_pool.cpp: ParallelFor as an OpenMP parallel region (see thread_pool.h).
#include "core/thread_pool.h"

#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

// libomp's extensions (declared by LLVM's omp.h, not by GCC's): the calling thread's blocktime,
// milliseconds a worker spins after a region before it sleeps.
extern "C" int kmp_get_blocktime(void);
extern "C" void kmp_set_blocktime(int milliseconds);

namespace nxrt {

void SleepOpenMpWorkersBetweenRegions() {
  thread_local bool done = false;
  if (done) return;
  done = true;
  if (std::getenv("KMP_BLOCKTIME") == nullptr) kmp_set_blocktime(0);
}

TeamSleepsAfterRegions::TeamSleepsAfterRegions() : previous_ms_(kmp_get_blocktime()) {
  kmp_set_blocktime(0);
}

TeamSleepsAfterRegions::~TeamSleepsAfterRegions() { kmp_set_blocktime(previous_ms_); }

ThreadPool::ThreadPool(int num_threads) : num_threads_(std::max(num_threads, 1)) {
  if (num_threads_ == 1) return;
  // libomp starts its runtime and the team's threads at the first region: here, so that a
  // session's first run (a decoder's time to first token) does not wait for them.
#pragma omp parallel num_threads(num_threads_)
  {
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t min_chunk,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  min_chunk = std::max<int64_t>(min_chunk, 1);
  // Already inside a region (a kernel run by another ParallelFor): run inline rather than nest.
  if (num_threads_ == 1 || n <= min_chunk || omp_in_parallel()) {
    fn(0, n);
    return;
  }
  std::unique_lock<std::mutex> dispatch(dispatch_mutex_, std::try_to_lock);
  if (!dispatch.owns_lock()) {  // another caller is using the threads
    fn(0, n);
    return;
  }
  // While the team cannot help, small work stays on the caller; every kProbeInterval-th such call
  // opens a region anyway, to notice when the team is back.
  if (team_idle_ && n / min_chunk < kIdleTeamMinParts && ++calls_since_probe_ < kProbeInterval) {
    dispatch.unlock();
    fn(0, n);
    return;
  }
  calls_since_probe_ = 0;
  const int64_t chunk = std::max(min_chunk, (n + num_threads_ * 4 - 1) / (num_threads_ * 4));
  const int64_t chunks = (n + chunk - 1) / chunk;
  const int team = static_cast<int>(std::min<int64_t>(num_threads_, chunks));
  const int caller_cpu = sched_getcpu();
  std::atomic<int64_t> next{0};
  std::atomic<bool> helped{false};
#pragma omp parallel num_threads(team)
  {
    bool ran = false;
    for (;;) {
      const int64_t c = next.fetch_add(1, std::memory_order_relaxed);
      if (c >= chunks) break;
      const int64_t begin = c * chunk;
      fn(begin, std::min(n, begin + chunk));
      ran = true;
    }
    // Work run on the caller's own core by another thread ran no sooner than on the caller.
    if (omp_get_thread_num() != 0 && ran && sched_getcpu() != caller_cpu) {
      helped.store(true, std::memory_order_relaxed);
    }
  }
  team_idle_ = !helped.load(std::memory_order_relaxed);
}

}  // namespace nxrt
