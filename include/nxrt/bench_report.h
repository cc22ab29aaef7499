// nxrt/bench_report.h: one way to time a model and report it, shared by `nxrt bench` and
// `ort_run --bench` so that nxrt and ONNX Runtime are measured identically.
//
// Public API (std only; implemented in src/runtime/bench_report.cpp, with no dependency on the
// session: the caller passes the run as a function).
// The loop is: `warmup` untimed runs, then timed runs until at least `iterations` runs AND
// `min_seconds` of timed runs have passed. Each run is timed alone with steady_clock. Statistics
// are over the timed runs: min, median (mean of the two middle values for an even count),
// p90, p95 and p99 (nearest rank: the ceil(p n)-th smallest), mean, max, and the throughput
// (timed runs per second of timed run time: runs go one at a time). Peak RSS is the process's
// getrusage ru_maxrss (everything the process touched: library, model, inputs, arena).
// bench/side_by_side.py reads the JSON form; keep the two tools' fields the same.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "nxrt/status.h"

namespace nxrt {

struct BenchConfig {
  int warmup = 5;         // untimed runs first
  int iterations = 50;    // at least this many timed runs
  double min_seconds = 0; // and at least this much time (s) in timed runs
};

// Latencies of the timed runs, in milliseconds.
struct LatencyStats {
  int iterations = 0;
  double min_ms = 0;
  double median_ms = 0;
  double p90_ms = 0;
  double p95_ms = 0;
  double p99_ms = 0;
  double mean_ms = 0;
  double max_ms = 0;
  double runs_per_second = 0;  // iterations / (sum of the latencies in seconds)
};

// Statistics of `latencies_ms` (any order; empty gives all zeros).
LatencyStats SummarizeLatencies(std::vector<double> latencies_ms);

// Runs `run` as `config` says and returns the statistics; the first failing run's status (with
// its run index as context) ends the loop. Errors: kInvalidArgument for a config with negative
// counts, iterations < 1 or min_seconds < 0 (naming the flag).
Result<LatencyStats> TimeRuns(const std::function<Status()>& run, const BenchConfig& config);

// The process's peak resident set so far, in MiB (ru_maxrss / 1024); 0 if unavailable.
double PeakRssMib();

// What one benchmark run reports.
struct BenchReport {
  std::string runtime;          // "nxrt" or "onnxruntime"
  std::string runtime_version;  // e.g. "1.30.0"; "" when unknown
  std::string model;            // path as given
  int threads = 1;              // intra-op threads asked for
  // Process-wide set-up before the session, milliseconds: nxrt::WarmUpProcess for nxrt, loading
  // the library and CreateEnv for ONNX Runtime. Apart from session_ms, as ORT's API separates it.
  double init_ms = 0;
  double session_ms = 0;        // session creation (load, optimise, plan), milliseconds
  BenchConfig config;
  LatencyStats latency;
  double peak_rss_mib = 0;
  std::string inputs_digest;    // InputsDigest of the inputs fed
};

// One JSON object on one line: runtime, runtime_version, model, threads, init_ms, session_ms,
// warmup, iterations, min_seconds, min_ms, median_ms, p90_ms, p95_ms, p99_ms, mean_ms, max_ms,
// runs_per_second, peak_rss_mib, inputs_digest.
std::string BenchReportJson(const BenchReport& report);

// A few human-readable lines of the same figures.
std::string BenchReportText(const BenchReport& report);

}  // namespace nxrt
