// bench/fma_peak.cpp: the machine's measured float32 FMA peak, the denominator of bench/
// side_by_side.py's large-GEMM efficiency.
//
//   nxrt_fma_peak [--threads N] [--json]
//
// Each thread runs chains of independent fused multiply-adds on registers only (no memory
// traffic), with the widest instructions the CPU has (AVX-512F, else AVX2+FMA, chosen at run
// time; else scalar std::fma, a lower bound). 16 independent accumulators cover the FMA latency
// (4 cycles) times two FMA pipes with room to spare. The best of several repetitions is the peak,
// in GFLOP/s (one FMA on one float lane = 2 FLOP), for 1 thread and for N threads at once.
// Rates are per thread CPU time (CLOCK_THREAD_CPUTIME_ID), so time the thread spent descheduled
// on a busy machine does not count: the figure is what a core does while it runs our code. The
// N-thread figure sums the threads' rates (it assumes each thread had a core of its own; on a
// machine with SMT siblings, give the physical core count). The wall-clock rate is printed too.
// Standalone: no nxrt library; any C++20 compiler (g++ -O2 bench/fma_peak.cpp) builds it.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kAccumulators = 16;
constexpr long kLoops = 20'000'000;  // per repetition: 16 FMAs each

// Keeps results alive so the compiler cannot drop the loops.
volatile float g_sink = 0;

__attribute__((target("avx512f"))) double RunAvx512(long loops) {
  __m512 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_set1_ps(0.001f * static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999999f);
  const __m512 b = _mm512_set1_ps(1e-7f);
  for (long n = 0; n < loops; ++n) {
#pragma GCC unroll 16
    for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kAccumulators; ++i) sum = _mm512_add_ps(sum, acc[i]);
  float lanes[16];
  _mm512_storeu_ps(lanes, sum);
  g_sink = lanes[0];
  return 2.0 * 16 * kAccumulators * static_cast<double>(loops);
}

__attribute__((target("avx2,fma"))) double RunAvx2(long loops) {
  __m256 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm256_set1_ps(0.001f * static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999999f);
  const __m256 b = _mm256_set1_ps(1e-7f);
  for (long n = 0; n < loops; ++n) {
#pragma GCC unroll 16
    for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kAccumulators; ++i) sum = _mm256_add_ps(sum, acc[i]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  g_sink = lanes[0];
  return 2.0 * 8 * kAccumulators * static_cast<double>(loops);
}

double RunScalar(long loops) {
  float acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i) acc[i] = 0.001f * static_cast<float>(i);
  for (long n = 0; n < loops; ++n) {
#pragma GCC unroll 16
    for (int i = 0; i < kAccumulators; ++i) acc[i] = __builtin_fmaf(acc[i], 0.999999f, 1e-7f);
  }
  g_sink = acc[0];
  return 2.0 * kAccumulators * static_cast<double>(loops);
}

using Kernel = double (*)(long);

double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

struct Rates {
  double cpu_gflops = 0;   // sum over threads of FLOP / thread CPU seconds
  double wall_gflops = 0;  // all FLOP / wall seconds
};

// `threads` threads each running `kernel` once, all started together.
Rates MeasureOnce(Kernel kernel, long loops, int threads) {
  std::vector<std::thread> workers;
  std::vector<double> rates(static_cast<size_t>(threads));
  std::vector<double> flops(static_cast<size_t>(threads));
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      const double cpu_start = ThreadCpuSeconds();
      flops[static_cast<size_t>(t)] = kernel(loops);
      rates[static_cast<size_t>(t)] = flops[static_cast<size_t>(t)] /
                                      (ThreadCpuSeconds() - cpu_start) / 1e9;
    });
  }
  for (std::thread& w : workers) w.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Rates result;
  double total_flops = 0;
  for (size_t t = 0; t < rates.size(); ++t) {
    result.cpu_gflops += rates[t];
    total_flops += flops[t];
  }
  result.wall_gflops = total_flops / seconds / 1e9;
  return result;
}

// The best of `repetitions` measurements, each rate on its own.
Rates Peak(Kernel kernel, long loops, int threads, int repetitions) {
  Rates best;
  for (int r = 0; r < repetitions; ++r) {
    const Rates rates = MeasureOnce(kernel, loops, threads);
    best.cpu_gflops = std::max(best.cpu_gflops, rates.cpu_gflops);
    best.wall_gflops = std::max(best.wall_gflops, rates.wall_gflops);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--threads N (>= 1, default 2)] [--json]\n", argv[0]);
      return 2;
    }
  }
  if (threads < 1) {
    std::fprintf(stderr, "fma_peak: --threads %d: give 1 or more threads\n", threads);
    return 2;
  }
  __builtin_cpu_init();
  Kernel kernel = RunScalar;
  const char* isa = "scalar";
  if (__builtin_cpu_supports("avx512f")) {
    kernel = RunAvx512;
    isa = "avx512f";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    kernel = RunAvx2;
    isa = "avx2+fma";
  }
  const long loops = kernel == RunScalar ? kLoops / 8 : kLoops;
  const Rates one = Peak(kernel, loops / 4, 1, 5);
  const Rates all = Peak(kernel, loops / 4, threads, 5);
  if (json) {
    std::printf("{\"isa\": \"%s\", \"threads\": %d, \"gflops_1_thread\": %.2f, "
                "\"gflops_n_threads\": %.2f, \"wall_gflops_1_thread\": %.2f, "
                "\"wall_gflops_n_threads\": %.2f}\n",
                isa, threads, one.cpu_gflops, all.cpu_gflops, one.wall_gflops,
                all.wall_gflops);
  } else {
    std::printf("float32 FMA peak (%s), per CPU time: %.1f GFLOP/s on 1 thread, %.1f GFLOP/s "
                "on %d threads (wall clock: %.1f and %.1f)\n",
                isa, one.cpu_gflops, all.cpu_gflops, threads, one.wall_gflops,
                all.wall_gflops);
  }
  return 0;
}
