// bench/mem_bandwidth.cpp: the machine's streaming read bandwidth, the ceiling of kernels that
// read each weight once per run (MatMulNBits at batch 1: bench/op_bench.py's decode rows).
//
//   nxrt_mem_bandwidth [--mib 1024] [--threads 1,2] [--repetitions 5] [--json]
//
// Fills a buffer of --mib MiB (default 1 GiB: far past any last-level cache, so the figure is
// DRAM's), then for each thread count splits it into one contiguous slice per thread and has
// every thread sum its slice with 256-bit loads (AVX2, chosen at run time; else 64-bit scalar
// loads), four independent accumulators deep. Each repetition reads the whole buffer (a buffer
// under 1 GiB as many times as make about 1 GiB, each thread its slice over and over); the best
// repetition's wall-clock time per read gives GB/s (10^9 bytes per second). With a buffer that fits
// the last-level cache (e.g. --mib 10, MatMulNBits 4096x4096's 10.25 MiB of 4-bit weights, scales
// and zero points) the figure is the cache's instead. Standalone: no nxrt library.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

// Keeps the sums alive so the compiler cannot drop the loops.
volatile uint64_t g_sink = 0;

__attribute__((target("avx2"))) uint64_t SumAvx2(const uint8_t* data, size_t bytes) {
  __m256i acc0 = _mm256_setzero_si256(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  size_t i = 0;
  for (; i + 128 <= bytes; i += 128) {
    const auto* p = reinterpret_cast<const __m256i*>(data + i);
    acc0 = _mm256_add_epi64(acc0, _mm256_load_si256(p));
    acc1 = _mm256_add_epi64(acc1, _mm256_load_si256(p + 1));
    acc2 = _mm256_add_epi64(acc2, _mm256_load_si256(p + 2));
    acc3 = _mm256_add_epi64(acc3, _mm256_load_si256(p + 3));
  }
  const __m256i sum = _mm256_add_epi64(_mm256_add_epi64(acc0, acc1), _mm256_add_epi64(acc2, acc3));
  uint64_t lanes[4];
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes), sum);
  uint64_t total = lanes[0] + lanes[1] + lanes[2] + lanes[3];
  for (; i < bytes; ++i) total += data[i];
  return total;
}

uint64_t SumScalar(const uint8_t* data, size_t bytes) {
  uint64_t acc[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 32 <= bytes; i += 32) {
    for (int j = 0; j < 4; ++j) {
      uint64_t word;
      std::memcpy(&word, data + i + 8 * j, 8);
      acc[j] += word;
    }
  }
  uint64_t total = acc[0] + acc[1] + acc[2] + acc[3];
  for (; i < bytes; ++i) total += data[i];
  return total;
}

// Seconds per read of `bytes` of `data` by `threads` threads, each reading its own slice
// `passes` times in a row (so that thread start-up is small against the reads of a small buffer).
double ReadPasses(const uint8_t* data, size_t bytes, int threads, int passes, bool avx2) {
  // Slices start on 128-byte boundaries so that the aligned loads stay aligned.
  const size_t slice = (bytes / threads) / 128 * 128;
  std::vector<uint64_t> sums(threads, 0);
  const auto read = [&sums, data, passes, avx2](int t, size_t begin, size_t size) {
    for (int p = 0; p < passes; ++p) {
      sums[t] += avx2 ? SumAvx2(data + begin, size) : SumScalar(data + begin, size);
    }
  };
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) {
    const size_t begin = slice * t;
    pool.emplace_back(read, t, begin, t == threads - 1 ? bytes - begin : slice);
  }
  read(0, 0, threads == 1 ? bytes : slice);
  for (std::thread& thread : pool) thread.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  uint64_t total = 0;
  for (uint64_t s : sums) total += s;
  g_sink = g_sink + total;
  return seconds / passes;
}

[[noreturn]] void Usage(const char* problem) {
  std::fprintf(stderr,
               "nxrt_mem_bandwidth: %s\nusage: nxrt_mem_bandwidth [--mib N] [--threads 1,2] "
               "[--repetitions N] [--json]\n",
               problem);
  std::exit(2);
}

int PositiveInt(const char* flag, const char* text) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > 1 << 20) {
    Usage((std::string(flag) + " '" + text + "': expected a positive integer").c_str());
  }
  return static_cast<int>(value);
}

}  // namespace

int main(int argc, char** argv) {
  int mib = 1024, repetitions = 5;
  std::vector<int> thread_counts = {1, 2};
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--json") {
      json = true;
    } else if (arg == "--mib" && has_value) {
      mib = PositiveInt("--mib", argv[++i]);
    } else if (arg == "--repetitions" && has_value) {
      repetitions = PositiveInt("--repetitions", argv[++i]);
    } else if (arg == "--threads" && has_value) {
      thread_counts.clear();
      std::string list = argv[++i];
      for (size_t pos = 0; pos <= list.size();) {
        const size_t comma = std::min(list.find(',', pos), list.size());
        thread_counts.push_back(PositiveInt("--threads", list.substr(pos, comma - pos).c_str()));
        pos = comma + 1;
      }
    } else {
      Usage(("unknown or incomplete argument '" + arg + "'").c_str());
    }
  }
  const size_t bytes = static_cast<size_t>(mib) << 20;
  auto* data = static_cast<uint8_t*>(std::aligned_alloc(4096, bytes));
  if (data == nullptr) Usage(("cannot allocate " + std::to_string(mib) + " MiB").c_str());
  // Every page written (and so backed) before timing; the values are arbitrary.
  for (size_t i = 0; i < bytes; i += 8) {
    const uint64_t word = i * 0x9E3779B97F4A7C15ull;
    std::memcpy(data + i, &word, 8);
  }
  const bool avx2 = __builtin_cpu_supports("avx2");
  std::string results;
  // A repetition reads about 1 GiB in all: a small buffer is read several times over.
  const int passes = static_cast<int>(std::max<size_t>(1, (size_t{1} << 30) / bytes));
  for (int threads : thread_counts) {
    ReadPasses(data, bytes, threads, 1, avx2);  // warm-up: pages touched, caches filled
    double best = 1e30;
    for (int r = 0; r < repetitions; ++r) {
      best = std::min(best, ReadPasses(data, bytes, threads, passes, avx2));
    }
    const double gbps = static_cast<double>(bytes) / best / 1e9;
    if (json) {
      results += std::string(results.empty() ? "" : ",") + "{\"threads\":" +
                 std::to_string(threads) + ",\"gb_per_s\":" + std::to_string(gbps) + "}";
    } else {
      std::printf("read %d MiB with %d thread(s) (%s loads): best %.2f ms, %.2f GB/s\n", mib,
                  threads, avx2 ? "AVX2" : "scalar", best * 1e3, gbps);
    }
  }
  if (json) std::printf("{\"mib\":%d,\"results\":[%s]}\n", mib, results.c_str());
  std::free(data);
  return 0;
}
