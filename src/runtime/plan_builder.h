// runtime/plan_builder.h: placed graphs + kernels → GraphPlan, for the main graph and,
// recursively, every subgraph of If/Loop/Scan/SequenceMap.
//
// Layer: nxrt_runtime. Input: the graphs the model pipeline placed (runtime/model_pipeline.h:
// every graph's view, claims, fused names, runtime nodes). For each graph: order the steps (a
// topological order of the claims contracted to one unit each) and give every step its kernel
// factory: EPs that compile whole claims (CreateFusedKernel) get one step per claim, native EPs
// one step per node (an EP that claims whole graphs makes the kernel of each node it claimed
// alone: GraphClaimer::CreateNodeKernel). Control-flow nodes (If, Loop, Scan, SequenceMap) become
// RuntimeSteps over sub-plans built by the same function, with the helpers of the EP that claimed
// them, if one did; the sequence and optional ops (and Identity of a
// sequence or optional) become RuntimeSteps too (runtime/sequence_steps.h). Runtime steps count
// as the CPU EP's (the EP ModelPipeline credits them to). Steps of an EP that keeps values in its
// device memory (ep/device_values.h) carry its memory flags, and copy steps join wherever a value
// crosses memories (runtime/device_copies.h).
#pragma once

#include <memory>
#include <vector>

#include "ep/ep_registry.h"
#include "ir/graph.h"
#include "ir/graph_view.h"
#include "nxrt/node_info.h"
#include "nxrt/status.h"
#include "runtime/control_flow.h"
#include "runtime/graph_plan.h"
#include "runtime/model_pipeline.h"

namespace nxrt::runtime {

class PlanBuilder {
 public:
  // `eps` are the EPs `placed` was placed over (initialized); `placed` must hold every graph
  // Build is asked for, completely placed.
  PlanBuilder(const ep::EpRegistry& eps, const PlacedModel& placed);

  // The plan of `graph` (the main graph or a subgraph). Errors: kInternal for a graph `placed`
  // lacks or that is not completely placed; a control-flow node's bad attributes
  // (kInvalidModel, naming the node).
  Result<std::shared_ptr<GraphPlan>> Build(const ir::Graph& graph);

 private:
  // The plan of a subgraph of `node` and the binding of its outer-scope values to the node's
  // step inputs.
  Result<SubgraphPlan> BuildSubgraph(const ir::GraphView& view, ir::NodeId node,
                                     const ir::Graph& subgraph);
  // `subgraphs` receives the node's sub-plans; `helpers` are those of the EP that claimed the
  // node (empty for the runtime's own nodes).
  Result<RuntimeStepFactory> BuildControlFlow(const ir::GraphView& view, ir::NodeId node,
                                              const NodeInfo& info, ControlFlowHelpers helpers,
                                              std::vector<SubgraphPlan>& subgraphs);

  const ep::EpRegistry& eps_;
  const PlacedModel& placed_;
};

}  // namespace nxrt::runtime
