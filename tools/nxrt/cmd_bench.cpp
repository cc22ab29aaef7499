// tools/nxrt/cmd_bench.cpp: `nxrt bench MODEL`: session-creation time, latency statistics over
// timed runs after a warm-up, and peak RSS, as text or one JSON object (--json).
//
// Inputs come from the shared input flags (nxrt/input_generator.h) and the loop and report
// from nxrt/bench_report.h, both shared with `ort_run --bench`: the same flags measure ONNX
// Runtime the same way. bench/side_by_side.py runs the two alternately.
#include <chrono>
#include <iostream>
#include <memory>

#include "commands.h"
#include "ep_flags.h"
#include "nxrt/session.h"
#include "nxrt/bench_report.h"
#include "nxrt/input_generator.h"

namespace nxrt::cli {

void AddBenchCommand(CLI::App& app, int& exit_code) {
  struct Options {
    std::string model;
    InputFlags inputs;
    BenchConfig config;
    std::vector<std::string> eps;
    int threads = 1;
    bool json = false;
    OptimizerFlags optimizer;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "Time a model: session creation, latency min/median/p90/mean, peak RSS");
  cmd->add_option("MODEL", o->model, "Path of the .onnx file")->required();
  cmd->add_option("--threads", o->threads, "Intra-op threads (0 = one per core)")
      ->check(NonNegative())
      ->capture_default_str();
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
  cmd->add_option("--ep", o->eps,
                  "Execution providers in priority order, comma-separated (default cpu)");
  cmd->add_flag("--json", o->json, "Print one JSON object (for scripts) instead of text");
  AddInputFlags(*cmd, o->inputs);
  AddOptimizerFlags(*cmd, o->optimizer);
  cmd->callback([o, &exit_code] {
    auto fail = [&](const Status& s) {
      std::cerr << "nxrt bench: " << s.message() << "\n";
      exit_code = 1;
    };
    SessionOptions options;
    options.intra_op_threads = o->threads;
    options.optimization_level = o->optimizer.level;
    options.disabled_optimizers = o->optimizer.disabled;
    Result<std::vector<EpSpec>> specs = ParseEpFlags(o->eps);
    if (!specs.ok()) return fail(specs.status());
    options.providers = std::move(*specs);

    using Clock = std::chrono::steady_clock;
    const Clock::time_point started = Clock::now();
    WarmUpProcess();
    const Clock::time_point created = Clock::now();
    Result<std::unique_ptr<Session>> session = Session::Create(o->model, options);
    if (!session.ok()) return fail(session.status());
    BenchReport report;
    report.init_ms = std::chrono::duration<double, std::milli>(created - started).count();
    report.session_ms =
        std::chrono::duration<double, std::milli>(Clock::now() - created).count();
    Session& s = **session;
    for (const std::string& warning : s.Warnings()) {
      std::cerr << "nxrt bench: warning: " << warning << "\n";
    }
    Result<std::vector<NamedTensor>> feeds =
        BuildInputsFromFlags(o->inputs, s.inputs(), /*generate_missing=*/true);
    if (!feeds.ok()) return fail(feeds.status());

    Result<LatencyStats> latency = TimeRuns(
        [&]() -> Status {
          Result<std::vector<NamedTensor>> outputs = s.Run(*feeds);
          return outputs.ok() ? Status::Ok() : outputs.status();
        },
        o->config);
    if (!latency.ok()) return fail(latency.status());

    report.runtime = "nxrt";
    report.model = o->model;
    report.threads = o->threads;
    report.config = o->config;
    report.latency = *latency;
    report.peak_rss_mib = PeakRssMib();
    report.inputs_digest = InputsDigest(*feeds);
    if (o->json) {
      std::cout << BenchReportJson(report) << "\n";
    } else {
      std::cout << BenchReportText(report);
    }
  });
}

}  // namespace nxrt::cli
