// optimizer/optimizer.cpp: the pass table and the driver (see optimizer.h).
#include "optimizer/optimizer.h"

#include <algorithm>
#include <map>

#include "optimizer/passes.h"

namespace nxrt::opt {

const std::vector<std::unique_ptr<GraphPass>>& AllPasses() {
  static const std::vector<std::unique_ptr<GraphPass>> passes = [] {
    std::vector<std::unique_ptr<GraphPass>> p;
    p.push_back(MakeConstantFoldingPass());
    p.push_back(MakeShapeFoldingPass());
    p.push_back(MakeIdentityEliminationPass());
    p.push_back(MakeDeadNodeEliminationPass());
    p.push_back(MakeConvBnFoldingPass());
    p.push_back(MakeMatMulAddToGemmPass());
    p.push_back(MakeLayerNormFusionPass());
    p.push_back(MakeGeluFusionPass());
    p.push_back(MakeMatMulActivationFusionPass());
    p.push_back(MakeConvActivationFusionPass());
    p.push_back(MakeNhwcLayoutPass());
    return p;
  }();
  return passes;
}

namespace {

// Applies `pass` to `graph` and then to every subgraph below it; returns the rewrites.
Result<int> ApplyRecursively(const GraphPass& pass, ir::Model& model, ir::Graph& graph) {
  NXRT_ASSIGN_OR_RETURN(GraphEditor editor, GraphEditor::Create(model, graph));
  NXRT_ASSIGN_OR_RETURN(int rewrites, pass.Apply(editor));
  for (ir::Node& node : graph.nodes) {
    for (ir::Attribute& a : node.attributes) {
      std::vector<std::shared_ptr<ir::Graph>> subgraphs = a.graphs;
      if (a.g) subgraphs.push_back(a.g);
      for (const auto& g : subgraphs) {
        NXRT_ASSIGN_OR_RETURN(int inner, ApplyRecursively(pass, model, *g));
        rewrites += inner;
      }
    }
  }
  return rewrites;
}

}  // namespace

Result<std::vector<PassReport>> OptimizeModel(ir::Model& model, const OptimizerOptions& options) {
  if (options.level < 0 || options.level > kMaxOptimizationLevel) {
    return MakeStatus(StatusCode::kInvalidArgument, "optimization level ", options.level,
                      " is out of range; use 0 (none), 1 (basic) or 2 (extended)");
  }
  std::string known;
  for (const auto& pass : AllPasses()) known += (known.empty() ? "" : ", ") + std::string(pass->name());
  for (const std::string& name : options.disabled) {
    const bool found = std::any_of(AllPasses().begin(), AllPasses().end(),
                                   [&](const auto& p) { return p->name() == name; });
    if (!found) {
      return MakeStatus(StatusCode::kInvalidArgument, "unknown optimizer pass '", name,
                        "'; the passes are: ", known);
    }
  }
  std::vector<PassReport> reports;
  if (model.graph == nullptr) return reports;
  for (const auto& pass : AllPasses()) {
    if (pass->level() > options.level) continue;
    if (std::find(options.disabled.begin(), options.disabled.end(), pass->name()) !=
        options.disabled.end()) {
      continue;
    }
    Result<int> rewrites = ApplyRecursively(*pass, model, *model.graph);
    if (!rewrites.ok()) {
      return MakeStatus(rewrites.status().code(), "optimizer pass '", pass->name(),
                        "': ", rewrites.status().message());
    }
    reports.push_back({std::string(pass->name()), *rewrites});
  }
  return reports;
}

}  // namespace nxrt::opt
