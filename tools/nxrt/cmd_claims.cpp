// tools/nxrt/cmd_claims.cpp: `nxrt claims MODEL`: the placement a session would make, without
// running anything (nxrt::ExplainPlacement): what the optimizer rewrote, then for the main graph
// and every subgraph what each EP claims, which nodes the runtime runs, what each EP declined
// and why, and the EPs dropped on the way. As text, JSON (docs/partitioning.md), Graphviz DOT
// or SVG (nxrt::PlacementReportDot; SVG through Graphviz's `dot`, graphviz.h).
// For an ORT plugin EP the claims are its GetCapability answer (its fused groups, the groups
// nxrt rejected with the reason, the plugin's own log lines about declined nodes), compiled as
// in a session, since a plugin whose compile fails is dropped.
// --dim fixes symbolic dims before placement (SessionOptions::free_dimension_overrides); a
// placement that leaves nodes unplaced exits 1, since a session with these options is refused.
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "graphviz.h"
#include "nodes_by_ep.h"
#include "nxrt/placement.h"
#include "session_flags.h"
#include "verb.h"

namespace nxrt::cli {
namespace {

using Json = nlohmann::ordered_json;

struct ClaimsFlags {
  std::string model;
  SessionFlags flags;
  std::string format = "text";
};

int Claims(const ClaimsFlags& o) {
  const SessionFlags& f = o.flags;
  NoteIgnoredFlags(f);
  Result<SessionOptions> options = MakeSessionOptions(f);
  if (!options.ok()) return Fail("claims", options.status());
  Result<GeneratorOptions> dims = ParseGeneratorFlags(f.inputs, {});
  if (!dims.ok()) return Fail("claims", dims.status());
  for (const auto& [name, size] : dims->dims) {
    options->free_dimension_overrides.emplace_back(name, size);
  }
  const std::string format = f.json ? "json" : o.format;
  Result<PlacementReport> report = ExplainPlacement(o.model, *options);
  if (!report.ok()) return Fail("claims", report.status());
  const ExitCode fallback = ReportFallback(f, report->warnings);

  const std::map<std::string, int64_t> by_ep = NodesByEp(*report);
  int64_t total = 0;
  for (const auto& [ep, n] : by_ep) total += n;
  if (format == "json") {
    if (f.stats) {
      Json j = Json::parse(PlacementReportJson(*report));
      j["stats"] = {{"nodes", total}, {"nodes_by_ep", by_ep}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << PlacementReportJson(*report) << "\n";
    }
  } else if (format == "dot") {
    std::cout << PlacementReportDot(*report);
  } else if (format == "svg") {
    Result<std::string> svg = DotToSvg(PlacementReportDot(*report));
    if (!svg.ok()) return Fail("claims", svg.status());
    std::cout << *svg;
  } else {
    std::cout << PlacementReportText(*report);
    if (f.stats) {
      std::cout << "\nnodes by EP (all graphs)\n";
      for (const auto& [ep, n] : by_ep) {
        char line[160];
        std::snprintf(line, sizeof line, "  %-24s %8lld %7.2f %%\n", ep.c_str(),
                      static_cast<long long>(n),
                      total > 0 ? 100.0 * static_cast<double>(n) / static_cast<double>(total) : 0);
        std::cout << line;
      }
    }
  }
  if (!report->complete()) {
    int64_t unplaced = 0;
    for (const GraphPlacement& g : report->graphs) {
      unplaced += static_cast<int64_t>(g.unplaced.size());
    }
    std::cerr << "nxrt claims: " << unplaced << " node" << (unplaced == 1 ? " is" : "s are")
              << " unplaced: a session with these options would be refused\n";
    return Worse(kExitFailed, fallback);
  }
  return fallback;
}

}  // namespace

void AddClaimsCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ClaimsFlags>();
  CLI::App* cmd = app.add_subcommand(
      "claims", "Show which EP claims which nodes (and why others were declined), as text, "
                "JSON or a picture");
  cmd->add_option("MODEL", o->model, "Path of the .onnx file")->required();
  cmd->add_option("--format", o->format,
                  "text, json (as --json), dot (Graphviz) or svg (drawn by Graphviz's dot): "
                  "nodes coloured by EP, claims as clusters, decline reasons as tooltips")
      ->check(CLI::IsMember({"text", "json", "dot", "svg"}))
      ->capture_default_str();
  const std::string runs_nothing = "claims runs nothing";
  AddSessionFlags(*cmd, o->flags, "claims", kAllGroups,
                  {{"--threads", runs_nothing},
                   {"--time-limit-ms", runs_nothing},
                   {"--loop-trip-limit", runs_nothing},
                   {"--memory-limit-mb", runs_nothing},
                   {"--seed", runs_nothing},
                   {"--shape", runs_nothing + "; use --dim to fix symbolic dims"},
                   {"--range", runs_nothing},
                   {"--value", runs_nothing},
                   {"--input", runs_nothing},
                   {"--profile", runs_nothing}});
  cmd->get_option("--dim")->description(
      "NAME=SIZE: fix a symbolic dim before placement (SessionOptions::free_dimension_overrides)");
  cmd->get_option("--stats")->description("Also print the nodes of each EP, with percentages");
  cmd->callback([o, &exit_code] { exit_code = Claims(*o); });
}

}  // namespace nxrt::cli
