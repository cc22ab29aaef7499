// runtime/bench_report.cpp: the shared benchmark loop and report (see nxrt/bench_report.h).
#include "nxrt/bench_report.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

namespace nxrt {

LatencyStats SummarizeLatencies(std::vector<double> latencies_ms) {
  LatencyStats stats;
  const size_t n = latencies_ms.size();
  if (n == 0) return stats;
  std::sort(latencies_ms.begin(), latencies_ms.end());
  stats.iterations = static_cast<int>(n);
  stats.min_ms = latencies_ms.front();
  stats.max_ms = latencies_ms.back();
  stats.median_ms = n % 2 == 1 ? latencies_ms[n / 2]
                               : (latencies_ms[n / 2 - 1] + latencies_ms[n / 2]) / 2.0;
  // Nearest rank: the ceil(p n)-th smallest.
  auto percentile = [&](double p) {
    const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(n)));
    return latencies_ms[std::clamp<size_t>(rank, 1, n) - 1];
  };
  stats.p90_ms = percentile(0.90);
  stats.p95_ms = percentile(0.95);
  stats.p99_ms = percentile(0.99);
  const double total_ms = std::accumulate(latencies_ms.begin(), latencies_ms.end(), 0.0);
  stats.mean_ms = total_ms / static_cast<double>(n);
  stats.runs_per_second = total_ms > 0 ? 1000.0 * static_cast<double>(n) / total_ms : 0;
  return stats;
}

Result<LatencyStats> TimeRuns(const std::function<Status()>& run, const BenchConfig& config) {
  if (config.warmup < 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "--warmup ", config.warmup,
                      ": the count of untimed runs must be >= 0");
  }
  if (config.iterations < 1) {
    return MakeStatus(StatusCode::kInvalidArgument, "--iterations ", config.iterations,
                      ": at least one timed run is needed");
  }
  if (!(config.min_seconds >= 0)) {
    return MakeStatus(StatusCode::kInvalidArgument, "--min-seconds ", config.min_seconds,
                      ": must be >= 0 (0: no time bound)");
  }
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < config.warmup; ++i) {
    Status status = run();
    if (!status.ok()) return status.WithContext("warm-up run " + std::to_string(i + 1));
  }
  std::vector<double> latencies_ms;
  latencies_ms.reserve(static_cast<size_t>(config.iterations));
  double total_s = 0;
  while (static_cast<int>(latencies_ms.size()) < config.iterations ||
         total_s < config.min_seconds) {
    const Clock::time_point start = Clock::now();
    Status status = run();
    const Clock::time_point end = Clock::now();
    if (!status.ok()) {
      return status.WithContext("timed run " + std::to_string(latencies_ms.size() + 1));
    }
    latencies_ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    total_s += latencies_ms.back() / 1000.0;
  }
  return SummarizeLatencies(std::move(latencies_ms));
}

double PeakRssMib() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

std::string BenchReportJson(const BenchReport& report) {
  nlohmann::ordered_json json;
  json["runtime"] = report.runtime;
  json["runtime_version"] = report.runtime_version;
  json["model"] = report.model;
  json["threads"] = report.threads;
  json["init_ms"] = report.init_ms;
  json["session_ms"] = report.session_ms;
  json["warmup"] = report.config.warmup;
  json["iterations"] = report.latency.iterations;
  json["min_seconds"] = report.config.min_seconds;
  json["min_ms"] = report.latency.min_ms;
  json["median_ms"] = report.latency.median_ms;
  json["p90_ms"] = report.latency.p90_ms;
  json["p95_ms"] = report.latency.p95_ms;
  json["p99_ms"] = report.latency.p99_ms;
  json["mean_ms"] = report.latency.mean_ms;
  json["max_ms"] = report.latency.max_ms;
  json["runs_per_second"] = report.latency.runs_per_second;
  json["peak_rss_mib"] = report.peak_rss_mib;
  json["inputs_digest"] = report.inputs_digest;
  return json.dump();
}

std::string BenchReportText(const BenchReport& report) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3);
  out << report.runtime;
  if (!report.runtime_version.empty()) out << " " << report.runtime_version;
  out << "  " << report.model << "  (" << report.threads << " intra-op thread"
      << (report.threads == 1 ? "" : "s") << ")\n"
      << "process set-up    " << report.init_ms << " ms\n"
      << "session creation  " << report.session_ms << " ms\n"
      << "latency (ms) over " << report.latency.iterations << " runs after "
      << report.config.warmup << " warm-up: min " << report.latency.min_ms << "  median "
      << report.latency.median_ms << "  p90 " << report.latency.p90_ms << "  p95 "
      << report.latency.p95_ms << "  p99 " << report.latency.p99_ms << "  mean "
      << report.latency.mean_ms << "  max " << report.latency.max_ms << "\n"
      << std::setprecision(1) << "throughput        " << report.latency.runs_per_second
      << " runs/s (one at a time)\n"
      << std::setprecision(1) << "peak RSS          " << report.peak_rss_mib << " MiB\n"
      << "inputs digest     " << report.inputs_digest << "\n";
  return out.str();
}

}  // namespace nxrt
