// runtime/plan_builder.h: placement + kernels → GraphPlan, for the main graph and, recursively,
// every subgraph of If/Loop/Scan.
//
// Layer: nxrt_runtime. For each graph: validate it (ir::GraphView), place its nodes over the
// session's EPs (ep/placement.h: priority order, convex claims, the CPU EP takes the rest),
// then order the steps (a topological order of the claims contracted to one unit each) and give
// every step its kernel factory: EPs that compile whole claims (CreateFusedKernel) get one step
// per claim, native EPs one step per node. Control-flow nodes (If, Loop, Scan, SequenceMap)
// become RuntimeSteps over sub-plans built by the same function; the sequence and optional ops
// (and Identity of a sequence or optional) become RuntimeSteps too (runtime/sequence_steps.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ep/ep_registry.h"
#include "ep/placement.h"
#include "ir/graph.h"
#include "ir/graph_view.h"
#include "nxrt/status.h"
#include "nxrt/node_info.h"
#include "runtime/control_flow.h"
#include "runtime/graph_plan.h"

namespace nxrt::runtime {

struct PlanBuilderOptions {
  bool allow_fallback = true;
  // EPs (by name) kept out of the placement from the start, with the reason recorded for each
  // node they would have been asked about (plugin EPs a session dropped).
  std::map<std::string, std::string, std::less<>> excluded_eps;
};

class PlanBuilder {
 public:
  // `eps` must be initialized; its last entry is the fallback EP when `allow_fallback`.
  PlanBuilder(const ir::Model& model, ep::EpRegistry& eps, PlanBuilderOptions options);

  // The plan of `graph` (the main graph or a subgraph of `model`). Errors: the graph's
  // validation errors, kUnsupported listing the nodes no EP can run with each EP's reason.
  Result<std::shared_ptr<GraphPlan>> Build(const ir::Graph& graph);

  // What was placed where, for every graph built so far (ep::PlacementToText per graph).
  const std::string& placement_text() const { return placement_text_; }
  // One line per EP dropped because compiling its claims failed (fallback allowed).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  // The plan of a subgraph of `node` and the binding of its outer-scope values to the node's
  // step inputs.
  Result<SubgraphPlan> BuildSubgraph(const ir::GraphView& view, ir::NodeId node,
                                     const ir::Graph& subgraph);
  // Compiles the fused claims of EPs with the GraphClaimer extension. False (after recording
  // the EP in failed_eps_) when one failed and fallback is allowed: place the graph again.
  Result<bool> CompileClaims(const ir::GraphView& view, const ep::Placement& placement,
                             const std::vector<std::string>& claim_names);
  // `subgraphs` receives the node's sub-plans.
  Result<RuntimeStepFactory> BuildControlFlow(const ir::GraphView& view, ir::NodeId node,
                                              const NodeInfo& info,
                                              std::vector<SubgraphPlan>& subgraphs);

  const ir::Model& model_;
  ep::EpRegistry& eps_;
  PlanBuilderOptions options_;
  std::vector<std::unique_ptr<ir::GraphView>> views_;  // kept alive for the plans
  std::string placement_text_;
  std::vector<std::string> warnings_;
  int fused_count_ = 0;
  std::map<std::string, std::string, std::less<>> failed_eps_;  // EP name → why it was dropped
};

}  // namespace nxrt::runtime
