// tools/nxrt/cmd_bench.cpp: `nxrt bench MODEL`: session-creation time, latency statistics over
// timed runs after a warm-up (min, median, p90, p95, p99, mean, max, throughput) and peak RSS,
// as text (whose header comes at once) or one JSON object (--json), with a progress bar on a
// terminal.
//
// Inputs come from the shared input flags (nxrt/input_generator.h) and the loop and report
// from nxrt/bench_report.h, both shared with `ort_run --bench`: the same flags measure ONNX
// Runtime the same way. bench/side_by_side.py runs the two alternately.
#include <chrono>
#include <iostream>
#include <memory>

#include "nxrt/bench_report.h"
#include "nxrt/input_generator.h"
#include "nxrt/placement.h"
#include "nxrt/session.h"
#include "nxrt/version.h"
#include "progress.h"
#include "session_flags.h"
#include "stats_format.h"
#include "verb.h"

namespace nxrt::cli {
namespace {

struct BenchFlags {
  std::string model;
  SessionFlags flags;
  BenchConfig config;
};

int Bench(const BenchFlags& o) {
  const SessionFlags& f = o.flags;
  NoteIgnoredFlags(f);
  Result<SessionOptions> options = MakeSessionOptions(f);
  if (!options.ok()) return Fail("bench", options.status());
  if (!f.json) {
    std::cout << "nxrt bench " << o.model << ": " << f.threads << " intra-op thread"
              << (f.threads == 1 ? "" : "s") << " (0 = one per core), " << o.config.warmup
              << " warm-up runs, then at least " << o.config.iterations << " timed runs";
    if (o.config.min_seconds > 0) std::cout << " and " << o.config.min_seconds << " s";
    std::cout << std::endl;
  }

  using Clock = std::chrono::steady_clock;
  const Clock::time_point started = Clock::now();
  WarmUpProcess();
  const Clock::time_point created = Clock::now();
  Result<std::unique_ptr<Session>> session = Session::Create(o.model, *options);
  if (!session.ok()) return Fail("bench", session.status());
  BenchReport report;
  report.init_ms = std::chrono::duration<double, std::milli>(created - started).count();
  report.session_ms = std::chrono::duration<double, std::milli>(Clock::now() - created).count();
  Session& s = **session;
  Result<std::vector<NamedTensor>> feeds =
      BuildInputsFromFlags(f.inputs, s.inputs(), /*generate_missing=*/true);
  if (!feeds.ok()) return Fail("bench", feeds.status());

  int64_t calls = 0;
  Result<LatencyStats> latency = Status(StatusCode::kInternal, "not run");
  {
    ProgressBar bar("bench", o.config.warmup + o.config.iterations);
    latency = TimeRuns(
        [&]() -> Status {
          Result<std::vector<NamedTensor>> outputs = s.Run(*feeds);
          ++calls;
          bar.Update(calls, calls <= o.config.warmup ? "warm-up" : "timed");
          return outputs.ok() ? Status::Ok() : outputs.status();
        },
        o.config);
  }
  if (!latency.ok()) return Fail("bench", latency.status());
  const ExitCode fallback = ReportFallback(f, s.Warnings());

  report.runtime = "nxrt";
  report.runtime_version = GetVersionInfo().nxrt;
  report.model = o.model;
  report.threads = f.threads;
  report.config = o.config;
  report.latency = *latency;
  report.peak_rss_mib = PeakRssMib();
  report.inputs_digest = InputsDigest(*feeds);
  Status profiled = WriteProfile(f, s);
  if (!profiled.ok()) return Fail("bench", profiled);
  if (f.json) {
    std::string json = BenchReportJson(report);
    if (f.stats) {
      nlohmann::ordered_json j = nlohmann::ordered_json::parse(json);
      j["stats"] = StatsJson(s.Stats(), s.Placement(), calls);
      json = j.dump();
    }
    std::cout << json << "\n";
  } else {
    std::cout << BenchReportText(report);
    if (f.stats) std::cout << StatsText(s.Stats(), s.Placement(), calls);
    if (!f.profile.empty()) std::cout << "wrote profile " << f.profile << "\n";
  }
  return fallback;
}

}  // namespace

void AddBenchCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<BenchFlags>();
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "Time a model: session creation, latency min/median/p90/p95/p99/mean, throughput, peak RSS");
  cmd->add_option("MODEL", o->model, "Path of the .onnx file")->required();
  cmd->add_option("--warmup", o->config.warmup, "Untimed runs first")
      ->check(NonNegative())
      ->capture_default_str();
  cmd->add_option("--iterations", o->config.iterations, "Timed runs (at least)")
      ->check(CLI::Range(1, 1000000000))
      ->capture_default_str();
  cmd->add_option("--min-seconds", o->config.min_seconds,
                  "Keep running until the timed runs took this many seconds in total")
      ->check(NonNegative())
      ->capture_default_str();
  AddSessionFlags(*cmd, o->flags, "bench");
  cmd->callback([o, &exit_code] { exit_code = Bench(*o); });
}

}  // namespace nxrt::cli
