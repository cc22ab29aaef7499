// ep/cpu/math/nn/dnnl_threads.h: the thread count of the oneDNN-backed ops (MatMul, Gemm, Conv,
// ConvTranspose) of nxrt_cpu_math.
//
// Layer: nxrt_cpu_math. Debian's oneDNN 2.6 parallelises with OpenMP, whose thread count is a
// per-thread setting: a call affects oneDNN work started later from the calling thread only.
// The CPU EP calls it from each thread that runs kernels (e.g. with `intra_op_threads`).
#pragma once

namespace nxrt::cpu::nn {

// Sets the number of threads oneDNN uses for calls made from the calling thread (values < 1
// mean 1).
void SetDnnlThreads(int num_threads);

// The number of threads oneDNN would use for a call made now from the calling thread.
int DnnlThreads();

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

}  // namespace nxrt::cpu::nn
