// core/thread_pool.h: the intra-op thread pool kernels use to split work.
//
// Layer: nxrt_core. One pool per session (option `intra_op_threads`, default = cores). The
// calling thread always takes part, so a pool of N threads uses N-1 other threads and a pool of 1
// runs everything inline with no synchronisation.
//
// The threads are OpenMP's: ParallelFor opens an OpenMP parallel region of N threads. oneDNN (the
// CPU EP's GEMM and convolution library, built with OpenMP on Debian) opens its regions from the
// same calling thread, so the runtime hands both the same team: nxrt kernels and oneDNN primitives
// share one set of N threads and never oversubscribe the cores. The runtime is LLVM's libomp,
// linked so that it also serves oneDNN's calls (top-level CMakeLists.txt): on a 2-vCPU VM an empty
// 2-thread region costs 1.5 us there against 2.9 us in libgomp, which makes two futex syscalls per
// region, and the 784-512-512-10 MLP at batch 1 and 2 threads runs in 25 us instead of 30. Between
// regions the team spins before sleeping (KMP_BLOCKTIME, 200 ms by default), except after
// SleepOpenMpWorkersBetweenRegions (nxrt::Generator's decode loop calls it). On this project's
// 2-vCPU KVM guests, loaded by other processes, a spinning worker sometimes sees the next region
// milliseconds late (likely its PAUSE loop exiting to the hypervisor, or descheduled): with 5 us of
// serial work between empty 2-thread regions, spinning workers took 6-33 us median but 78 us mean,
// sleeping ones (a futex wake) 9 us median and 20 us mean. A run of a few regions (the MLP at batch
// 1: 17 us median spinning, 95 us sleeping) is best served by spinning; a decode step's twenty
// regions with serial kernels between them by sleeping (decoder_small's 2-thread decode ran
// 2.3-3.7x faster, bench/decode_side_by_side.py).
//
// On a busy machine the scheduler may leave the team's thread on the caller's core, where a region
// only adds a fork and a join that wait for it: after a region in which no other thread ran a
// chunk on another core, loops of under kIdleTeamMinParts min_chunks run on the caller alone (one
// in kProbeInterval still opens a region, to notice when the team is back).
//
// ParallelFor may be called from several threads at once (concurrent Session::Run calls): one
// caller at a time opens a region, the others run their loop inline, so threads are never
// oversubscribed and no call waits for another's work.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>

namespace nxrt {

// Makes the OpenMP workers sleep as soon as a region ends (libomp's blocktime 0), unless the
// environment sets KMP_BLOCKTIME: set for the calling thread, and libomp applies it to threads
// that start OpenMP later too, so it lasts for the process. Once per thread; cheap after the
// first call.
void SleepOpenMpWorkersBetweenRegions();

// While alive, the OpenMP teams the calling thread starts (oneDNN's) go to sleep as soon as their
// region ends instead of spinning for the next one (KMP_BLOCKTIME, 200 ms by default); the
// previous setting comes back at destruction. For a parallel step followed by long serial work on
// the caller, as the recurrence of LSTM, GRU and RNN after their input projection: on a busy
// machine the scheduler can leave a spinning team thread on the caller's core, where it takes
// half of it (LSTM seq 64 hidden 256 at 2 threads: 2.7 to 24 ms median, 0.85 ms asleep).
class TeamSleepsAfterRegions {
 public:
  TeamSleepsAfterRegions();
  ~TeamSleepsAfterRegions();
  TeamSleepsAfterRegions(const TeamSleepsAfterRegions&) = delete;
  TeamSleepsAfterRegions& operator=(const TeamSleepsAfterRegions&) = delete;

 private:
  int previous_ms_;
};

class ThreadPool {
 public:
  // `num_threads` >= 1 threads in all, counting the caller; values < 1 mean 1. With more than
  // one, opens an empty region, so that the OpenMP runtime and the team of the constructing
  // thread are started before the first ParallelFor.
  explicit ThreadPool(int num_threads);
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

  // Calls fn(begin, end) on disjoint ranges covering [0, n), each at least `min_chunk` long
  // (except the last), and returns when all calls have returned. `fn` must not throw. Work is
  // split into about 4 chunks per thread, taken dynamically, so uneven chunks balance out.
  void ParallelFor(int64_t n, int64_t min_chunk, const std::function<void(int64_t, int64_t)>& fn);

 private:
  // Work of fewer min_chunks than this runs on the caller while the team is idle (below).
  static constexpr int64_t kIdleTeamMinParts = 64;
  // While the team is idle, one call in this many small ones still opens a region.
  static constexpr int64_t kProbeInterval = 16;

  int num_threads_ = 1;
  std::mutex dispatch_mutex_;  // held by the one caller running a parallel region
  // Under dispatch_mutex_: true when in the last region no other thread ran a chunk on another
  // core than the caller's. On a busy machine the scheduler can leave the team's thread on the
  // caller's core (it sleeps or spins most of the time, so it looks light); then a region only
  // adds a fork and a join that wait for it (ReduceSum over 1x256x56x56 at 2 threads: 0.13 ms
  // against 0.10 ms on the caller alone).
  bool team_idle_ = false;
  int64_t calls_since_probe_ = 0;
};

}  // namespace nxrt
