// tools/nxrt/cmd_optimize.cpp: `nxrt optimize MODEL -o OUT.onnx`: the model after nxrt's graph
// passes, saved as ONNX (SessionOptions::optimized_model_path, ONNX Runtime's
// optimized_model_filepath) for debugging fusions. The passes run as in a session with the same
// --ep, --opt-level and --disable-pass: level 2 (nxrt's com.nxrt fused operators) applies when
// every EP is the CPU EP; level 1 gives standard ONNX any runtime loads. --dim fixes symbolic
// dims first (free-dimension overrides), so that shape folding can use them.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "nxrt/placement.h"
#include "session_flags.h"
#include "verb.h"

namespace nxrt::cli {
namespace {

struct OptimizeFlags {
  std::string model;
  std::string output;
  SessionFlags flags;
  std::vector<std::string> dims;
};

int Optimize(const OptimizeFlags& o) {
  const SessionFlags& f = o.flags;
  NoteIgnoredFlags(f);
  Result<SessionOptions> options = MakeSessionOptions(f);
  if (!options.ok()) return Fail("optimize", options.status());
  InputFlags dim_flags;
  dim_flags.dims = o.dims;
  Result<GeneratorOptions> dims = ParseGeneratorFlags(dim_flags, {});
  if (!dims.ok()) return Fail("optimize", dims.status());
  for (const auto& [name, size] : dims->dims) {
    options->free_dimension_overrides.emplace_back(name, size);
  }
  options->optimized_model_path = o.output;
  Result<PlacementReport> report = ExplainPlacement(o.model, *options);
  if (!report.ok()) return Fail("optimize", report.status());
  const ExitCode fallback = ReportFallback(f, report->warnings);
  if (f.json) {
    nlohmann::ordered_json j;
    j["model"] = o.model;
    j["output"] = o.output;
    j["level"] = report->optimization_level;
    j["passes"] = nlohmann::ordered_json::array();
    for (const OptimizerPassStats& p : report->passes) {
      j["passes"].push_back({{"pass", p.pass}, {"rewrites", p.rewrites}});
    }
    std::cout << j.dump(2) << "\n";
    return fallback;
  }
  std::cout << "optimised " << o.model << " at level " << report->optimization_level << "\n";
  for (const OptimizerPassStats& p : report->passes) {
    if (p.rewrites > 0) std::cout << "  " << p.pass << ": " << p.rewrites << " rewrites\n";
  }
  std::cout << "wrote " << o.output << "\n";
  return fallback;
}

}  // namespace

void AddOptimizeCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<OptimizeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "optimize", "Save the model as nxrt's graph passes leave it (for debugging fusions)");
  cmd->add_option("MODEL", o->model, "Path of the .onnx file")->required();
  cmd->add_option("-o,--output", o->output, "Path of the optimised .onnx file to write")
      ->required();
  cmd->add_option("--dim", o->dims,
                  "NAME=SIZE: fix a symbolic dim before the passes run (free-dimension override)");
  AddSessionFlags(*cmd, o->flags, "optimize", kSessionGroup,
                  {{"--threads", "optimize runs nothing"},
                   {"--time-limit-ms", "optimize runs nothing"},
                   {"--loop-trip-limit", "optimize runs nothing"},
                   {"--memory-limit-mb", "optimize runs nothing"}});
  cmd->add_flag("--json", o->flags.json,
                "Print one JSON object (level, passes and rewrites) instead of text");
  cmd->callback([o, &exit_code] { exit_code = Optimize(*o); });
}

}  // namespace nxrt::cli
