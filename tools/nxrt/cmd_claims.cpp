// tools/nxrt/cmd_claims.cpp: `nxrt claims MODEL [--ep TYPE]... [--json]`: what the optimizer
// rewrote (as in a session), then what each EP claims, what it declined and why, for the main
// graph and every subgraph, without running anything.
// For an ORT plugin EP this is its GetCapability answer (nothing is compiled): its fused groups,
// the groups nxrt rejected with the reason, and the plugin's own log lines about declined nodes.
#include <algorithm>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "ep/ep_registry.h"
#include "ep/placement.h"
#include "ep_flags.h"
#include "ir/graph_view.h"
#include "ir/onnx_loader.h"
#include "optimizer/optimizer.h"
#include "runtime/ep_factory.h"

namespace nxrt::cli {
namespace {

// Places `graph` and, depth first, its subgraphs; appends text or JSON per graph.
Status PlaceAll(const ir::Model& model, const ir::Graph& graph, const std::string& label,
                const ep::EpRegistry& eps, const ep::PlacementOptions& options, bool json,
                std::string& text, nlohmann::json& graphs) {
  NXRT_ASSIGN_OR_RETURN(ir::GraphView view, ir::GraphView::Create(model, graph));
  NXRT_ASSIGN_OR_RETURN(ep::Placement placement, ep::PlaceGraph(view, eps, options));
  if (json) {
    graphs.push_back({{"graph", label},
                      {"placement", nlohmann::json::parse(ep::PlacementToJson(placement, view))}});
  } else {
    text += "== " + label + "\n" + ep::PlacementToText(placement, view) + "\n";
  }
  for (const ir::Node& node : graph.nodes) {
    for (const ir::Attribute& attr : node.attributes) {
      std::vector<const ir::Graph*> subgraphs;
      if (attr.g) subgraphs.push_back(attr.g.get());
      for (const auto& g : attr.graphs) subgraphs.push_back(g.get());
      for (const ir::Graph* sub : subgraphs) {
        NXRT_RETURN_IF_ERROR(PlaceAll(model, *sub,
                                      label + " / node '" + node.name + "' " + attr.name, eps,
                                      options, json, text, graphs));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

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
  cmd->add_flag("--no-fallback", o->no_fallback, "Do not let the CPU EP take what is left");
  cmd->add_flag("--json", o->json, "Print JSON instead of text");
  AddOptimizerFlags(*cmd, o->optimizer);
  cmd->callback([o, &exit_code] {
    auto fail = [&](const Status& s) {
      std::cerr << "nxrt claims: " << s.message() << "\n";
      exit_code = 1;
    };
    Result<std::vector<EpSpec>> specs = ParseEpFlags(o->eps);
    if (!specs.ok()) return fail(specs.status());
    // Plugins see the graph with inferred types, as in a session (and in ONNX Runtime).
    ir::LoadOptions load;
    load.infer_types = std::any_of(specs->begin(), specs->end(), [](const EpSpec& spec) {
      return spec.type.starts_with("plugin:");
    });
    Result<ir::Model> model = ir::LoadModelFromFile(o->model, load);
    if (!model.ok()) return fail(model.status());
    // The graph the session places: optimised as Session::Create does.
    const bool only_cpu = std::all_of(specs->begin(), specs->end(),
                                      [](const EpSpec& spec) { return spec.type == "cpu"; });
    Result<std::vector<opt::PassReport>> passes = opt::OptimizeModel(
        *model, {opt::LevelForProviders(o->optimizer.level, only_cpu), o->optimizer.disabled});
    if (!passes.ok()) return fail(passes.status());
    ep::EpRegistry eps;
    bool has_cpu = false;
    for (const EpSpec& spec : *specs) {
      Result<std::shared_ptr<ExecutionProvider>> ep =
          runtime::MakeExecutionProvider(spec.type, spec.config);
      if (!ep.ok()) return fail(ep.status());
      has_cpu = has_cpu || spec.type == "cpu";
      Status added = eps.Add(*ep, spec.config, spec.name);
      if (!added.ok()) return fail(added);
    }
    if (!has_cpu && !o->no_fallback) {
      Result<std::shared_ptr<ExecutionProvider>> cpu = runtime::MakeExecutionProvider("cpu");
      Status added = eps.Add(*cpu);
      if (!added.ok()) return fail(added);
    }
    Status init = eps.InitializeAll();
    if (!init.ok()) return fail(init);
    ep::PlacementOptions options;
    options.allow_unplaced = true;
    std::string text;
    nlohmann::json graphs = nlohmann::json::array();
    Status st = PlaceAll(*model, *model->graph, "main graph", eps, options, o->json, text, graphs);
    if (!st.ok()) return fail(st);
    nlohmann::json rewrites = nlohmann::json::object();
    std::string optimizer_text;
    for (const opt::PassReport& r : *passes) {
      rewrites[r.pass] = r.rewrites;
      if (r.rewrites > 0) optimizer_text += "  " + r.pass + ": " + std::to_string(r.rewrites) + "\n";
    }
    if (o->json) {
      std::cout << nlohmann::json{{"model", o->model}, {"optimizer", rewrites}, {"graphs", graphs}}
                       .dump(2)
                << "\n";
    } else {
      std::cout << "== optimizer (level " << opt::LevelForProviders(o->optimizer.level, only_cpu)
                << "): " << (optimizer_text.empty() ? "nothing rewritten\n" : "rewrites\n")
                << optimizer_text << text;
    }
  });
}

}  // namespace nxrt::cli
