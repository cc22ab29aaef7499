// tools/nxrt/cmd_claims.cpp: `nxrt claims MODEL [--ep TYPE]... [--no-fallback] [--json]`: the
// placement a session would make, without running anything (nxrt::ExplainPlacement): what the
// optimizer rewrote, then for the main graph and every subgraph what each EP claims, which nodes
// the runtime runs, what each EP declined and why, and the EPs dropped on the way.
// For an ORT plugin EP the claims are its GetCapability answer (its fused groups, the groups
// nxrt rejected with the reason, the plugin's own log lines about declined nodes), compiled as
// in a session, since a plugin whose compile fails is dropped.
#include <iostream>
#include <memory>

#include "commands.h"
#include "ep_flags.h"
#include "nxrt/placement.h"

namespace nxrt::cli {

void AddClaimsCommand(CLI::App& app, int& exit_code) {
  struct Options {
    std::string model;
    std::vector<std::string> eps;
    bool json = false;
    bool no_fallback = false;
    OptimizerFlags optimizer;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "claims", "Show which EP claims which nodes (and why others were declined)");
  cmd->add_option("MODEL", o->model, "Path of the .onnx file")->required();
  cmd->add_option("--ep", o->eps,
                  "Execution providers in priority order, comma-separated: cpu, "
                  "plugin:/path/lib.so[:registration_name][;key=value...] (default cpu)");
  cmd->add_flag("--no-fallback", o->no_fallback,
                "Show what a session that may not let the CPU EP run what the listed EPs do not "
                "claim would place");
  cmd->add_flag("--json", o->json, "Print JSON instead of text");
  AddOptimizerFlags(*cmd, o->optimizer);
  cmd->callback([o, &exit_code] {
    auto fail = [&](const Status& s) {
      std::cerr << "nxrt claims: " << s.message() << "\n";
      exit_code = 1;
    };
    SessionOptions options;
    options.allow_fallback = !o->no_fallback;
    options.optimization_level = o->optimizer.level;
    options.disabled_optimizers = o->optimizer.disabled;
    Result<std::vector<EpSpec>> specs = ParseEpFlags(o->eps);
    if (!specs.ok()) return fail(specs.status());
    options.providers = std::move(*specs);
    Result<PlacementReport> report = ExplainPlacement(o->model, options);
    if (!report.ok()) return fail(report.status());
    for (const std::string& warning : report->warnings) {
      std::cerr << "nxrt claims: warning: " << warning << "\n";
    }
    std::cout << (o->json ? PlacementReportJson(*report) + "\n" : PlacementReportText(*report));
  });
}

}  // namespace nxrt::cli
