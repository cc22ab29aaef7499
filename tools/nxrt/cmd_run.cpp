// tools/nxrt/cmd_run.cpp: `nxrt run MODEL`: feed inputs from files or generate them, run, print
// each input's and output's summary and the times (or one JSON object with --json), optionally
// write the outputs as .npy with a manifest.json (output_files.h), the step statistics
// (--stats) and a trace (--profile). A spinner on a terminal shows the step running once a
// run takes more than two seconds.
#include <atomic>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>

#include "nxrt/input_generator.h"
#include "nxrt/placement.h"
#include "nxrt/session.h"
#include "nxrt/version.h"
#include "output_files.h"
#include "progress.h"
#include "session_flags.h"
#include "stats_format.h"
#include "tensor_summary.h"
#include "verb.h"

namespace nxrt::cli {
namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct RunFlags {
  std::string model;
  SessionFlags flags;
  bool random = false;
  int repeat = 1;
  std::string output_dir;
};

int Run(const RunFlags& o) {
  const SessionFlags& f = o.flags;
  NoteIgnoredFlags(f);
  Result<SessionOptions> options = MakeSessionOptions(f);
  if (!options.ok()) return Fail("run", options.status());

  std::unique_ptr<Session> session;
  const Clock::time_point created = Clock::now();
  {
    Spinner spinner([&] { return "loading, optimising and placing " + o.model; });
    Result<std::unique_ptr<Session>> made = Session::Create(o.model, *options);
    if (!made.ok()) return Fail("run", made.status());
    session = std::move(made).value();
  }
  const double session_ms = MsSince(created);
  ReportPluginClaims(f, session->Placement());

  Result<std::vector<NamedTensor>> feeds =
      BuildInputsFromFlags(f.inputs, session->inputs(), o.random);
  if (!feeds.ok()) return Fail("run", feeds.status());
  std::vector<NamedValue> fed;
  for (const NamedTensor& t : *feeds) fed.push_back({t.name, Value(t.tensor)});

  // The step about to run, for the spinner (names from Stats(), which is in the same order).
  std::vector<KernelStats> steps = session->Stats();
  std::atomic<int64_t> current{-1};
  std::atomic<int> run_index{0};
  RunOptions run_options;
  run_options.progress = &current;
  Result<std::vector<NamedValue>> outputs = Status(StatusCode::kInternal, "not run");
  double run_ms = 0;
  {
    Spinner spinner([&] {
      const int64_t step = current.load();
      std::string text = "run " + std::to_string(run_index.load() + 1) + " of " +
                         std::to_string(o.repeat);
      if (step >= 0 && static_cast<size_t>(step) < steps.size()) {
        text += ": step " + std::to_string(step + 1) + " of " + std::to_string(steps.size()) +
                " " + steps[static_cast<size_t>(step)].op_type + " '" +
                steps[static_cast<size_t>(step)].name + "'";
      }
      return text;
    });
    for (int r = 0; r < o.repeat; ++r) {
      run_index.store(r);
      const Clock::time_point start = Clock::now();
      outputs = session->RunValues(fed, {}, run_options);
      run_ms = MsSince(start);
      if (!outputs.ok()) return Fail("run", outputs.status());
    }
  }
  const ExitCode fallback = ReportFallback(f, session->Warnings());

  std::vector<WrittenOutput> written;
  if (!o.output_dir.empty()) {
    Result<std::vector<WrittenOutput>> w = WriteOutputs(o.output_dir, o.model, *outputs);
    if (!w.ok()) return Fail("run", w.status());
    written = std::move(w).value();
  }
  Status profiled = WriteProfile(f, *session);
  if (!profiled.ok()) return Fail("run", profiled);

  const PlacementReport placement = f.stats ? session->Placement() : PlacementReport{};
  if (f.json) {
    Json j;
    j["model"] = o.model;
    j["nxrt_version"] = GetVersionInfo().nxrt;
    j["session_ms"] = session_ms;
    j["runs"] = o.repeat;
    j["run_ms"] = run_ms;
    j["inputs"] = Json::array();
    for (const NamedValue& in : fed) {
      Json entry = SummaryJson(Summarize(in.value));
      entry["name"] = in.name;
      j["inputs"].push_back(std::move(entry));
    }
    j["outputs"] = Json::array();
    for (size_t k = 0; k < outputs->size(); ++k) {
      Json entry = SummaryJson(Summarize((*outputs)[k].value));
      entry["name"] = (*outputs)[k].name;
      if (!written.empty()) {
        entry["file"] = written[k].file.empty() ? Json(nullptr) : Json(written[k].file);
      }
      j["outputs"].push_back(std::move(entry));
    }
    if (!o.output_dir.empty()) {
      j["manifest"] = (std::filesystem::path(o.output_dir) / "manifest.json").string();
    }
    if (!f.profile.empty()) j["profile"] = f.profile;
    if (f.stats) j["stats"] = StatsJson(session->Stats(), placement, o.repeat);
    j["warnings"] = session->Warnings();
    std::cout << j.dump(2) << "\n";
    return fallback;
  }
  std::cout << "model " << o.model << "\ninputs\n";
  for (const NamedValue& in : fed) {
    std::cout << "  " << in.name << "  " << SummaryText(Summarize(in.value)) << "\n";
  }
  std::cout << "outputs\n";
  for (size_t k = 0; k < outputs->size(); ++k) {
    std::cout << "  " << (*outputs)[k].name << "  " << SummaryText(Summarize((*outputs)[k].value));
    if (!written.empty() && !written[k].file.empty()) std::cout << "  -> " << written[k].file;
    std::cout << "\n";
  }
  std::cout << std::fixed << std::setprecision(3) << "session created in " << session_ms
            << " ms; run took " << run_ms << " ms";
  if (o.repeat > 1) std::cout << " (the last of " << o.repeat << ")";
  std::cout << "\n";
  if (f.stats) std::cout << StatsText(session->Stats(), placement, o.repeat);
  if (!f.profile.empty()) std::cout << "wrote profile " << f.profile << "\n";
  if (!o.output_dir.empty()) {
    std::cout << "wrote " << (std::filesystem::path(o.output_dir) / "manifest.json").string()
              << "\n";
  }
  return fallback;
}

}  // namespace

void AddRunCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunFlags>();
  CLI::App* cmd = app.add_subcommand("run", "Run a model and summarise its outputs");
  cmd->add_option("MODEL", o->model, "Path of the .onnx file")->required();
  cmd->add_flag("--random", o->random,
                "Generate every input not given with --input (otherwise only those a --shape, "
                "--range or --value names)");
  cmd->add_option("--repeat", o->repeat, "Run this many times; the time printed is the last run")
      ->check(CLI::Range(1, 1000000000))
      ->capture_default_str();
  cmd->add_option("--output-dir", o->output_dir,
                  "Write each tensor output as DIR/<safe name>.npy and DIR/manifest.json "
                  "(docs/cli.md gives the name mapping)");
  AddSessionFlags(*cmd, o->flags, "run");
  cmd->callback([o, &exit_code] { exit_code = Run(*o); });
}

}  // namespace nxrt::cli
