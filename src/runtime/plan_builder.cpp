// runtime/plan_builder.cpp: see plan_builder.h.
#include "runtime/plan_builder.h"

#include <queue>
#include <string_view>

#include "ep/device_values.h"
#include "ep/node_info_builder.h"
#include "runtime/control_flow.h"
#include "runtime/device_copies.h"
#include "runtime/map_steps.h"
#include "runtime/sequence_steps.h"

namespace nxrt::runtime {
namespace {

// ONNX ops whose outputs are not a function of their inputs alone.
bool IsRandomOp(std::string_view op) {
  return op == "RandomNormal" || op == "RandomUniform" || op == "RandomNormalLike" ||
         op == "RandomUniformLike" || op == "Multinomial" || op == "Bernoulli" || op == "Dropout";
}

}  // namespace

PlanBuilder::PlanBuilder(const ep::EpRegistry& eps, const PlacedModel& placed)
    : eps_(eps), placed_(placed) {}

Result<std::shared_ptr<GraphPlan>> PlanBuilder::Build(const ir::Graph& graph) {
  const PlacedGraph* placed = placed_.Find(graph);
  if (placed == nullptr || !placed->placement.complete() ||
      (!placed->placement.runtime.empty() && placed->runtime_ep < 0)) {
    return MakeStatus(StatusCode::kInternal, "graph '", graph.name,
                      "' was not placed completely before building its plan");
  }
  const ir::GraphView& view = *placed->view;
  const ep::Placement& placement = placed->placement;
  const std::vector<bool>& runtime_nodes = placed->runtime_nodes;
  const std::vector<std::string>& claim_names = placed->fused_names;
  ep::NodeInfoBuilder infos(view);
  const auto& entries = eps_.entries();
  const size_t node_count = graph.nodes.size();
  const std::string graph_label =
      graph.parent == nullptr ? "main graph" : "subgraph '" + graph.name + "'";

  // Steps: units are fused claims (one kernel each) and single nodes; they run in a topological
  // order of the graph with every fused claim contracted to one unit (claims are convex, so this
  // order exists), ties broken by the unit's first node in the view's order.
  std::vector<int32_t> unit_of(node_count, -1);
  std::vector<int32_t> unit_claim;  // claim index of a fused unit, -1 for a single node
  std::vector<ir::NodeId> unit_node;
  std::vector<int32_t> topo_pos(node_count);
  for (size_t i = 0; i < view.topological_order().size(); ++i) {
    topo_pos[view.topological_order()[i]] = static_cast<int32_t>(i);
  }
  for (ir::NodeId n : view.topological_order()) {
    const int32_t c = placement.claim_of_node[n];
    if (c >= 0 && placement.claims[c].fused) {
      if (unit_of[placement.claims[c].claim.nodes.front()] < 0) {
        const int32_t u = static_cast<int32_t>(unit_claim.size());
        unit_claim.push_back(c);
        unit_node.push_back(n);
        for (ir::NodeId m : placement.claims[c].claim.nodes) unit_of[m] = u;
      }
      continue;
    }
    unit_of[n] = static_cast<int32_t>(unit_claim.size());
    unit_claim.push_back(-1);
    unit_node.push_back(n);
  }
  const size_t units = unit_claim.size();
  std::vector<std::vector<int32_t>> successors(units);
  std::vector<int32_t> indegree(units, 0);
  for (ir::NodeId n = 0; n < static_cast<ir::NodeId>(node_count); ++n) {
    auto add_edges = [&](ir::ValueId v) {
      if (v == ir::kNoValue) return;
      const ir::NodeId p = view.producer(v);
      if (p == ir::kNoNode || unit_of[p] == unit_of[n]) return;
      successors[unit_of[p]].push_back(unit_of[n]);
      ++indegree[unit_of[n]];
    };
    for (ir::ValueId v : graph.nodes[n].inputs) add_edges(v);
    for (ir::ValueId v : view.implicit_inputs(n)) add_edges(v);
  }
  std::priority_queue<std::pair<int32_t, int32_t>, std::vector<std::pair<int32_t, int32_t>>,
                      std::greater<>> ready;  // (topological position of first node, unit)
  for (size_t u = 0; u < units; ++u) {
    if (indegree[u] == 0) ready.emplace(topo_pos[unit_node[u]], static_cast<int32_t>(u));
  }
  std::vector<int32_t> unit_order;
  while (!ready.empty()) {
    const int32_t u = ready.top().second;
    ready.pop();
    unit_order.push_back(u);
    for (int32_t s : successors[u]) {
      if (--indegree[s] == 0) ready.emplace(topo_pos[unit_node[s]], s);
    }
  }
  if (unit_order.size() != units) {
    return MakeStatus(StatusCode::kInternal, graph_label,
                      ": the claims of the placement form a cycle");
  }

  auto plan = std::make_shared<GraphPlan>();
  plan->graph = &graph;
  for (int32_t u : unit_order) {
    StepPlan step;
    if (unit_claim[u] >= 0) {
      const ep::PlacedClaim& pc = placement.claims[unit_claim[u]];
      const auto& entry = entries[pc.ep];
      step.name = claim_names[unit_claim[u]];
      step.op_type = "fused";
      step.ep_name = entry.name;
      step.ep = entry.provider.get();
      step.inputs = pc.claim.inputs;
      step.explicit_inputs = pc.claim.inputs.size();
      step.outputs = pc.claim.outputs;
      step.description = "fused claim '" + step.name + "' of ep '" + entry.name + "' (" +
                         std::to_string(pc.claim.nodes.size()) + " nodes)";
      ExecutionProvider* ep = entry.provider.get();
      step.make_kernel = [ep, info = infos.Fused(step.name, pc.claim.nodes, pc.claim.inputs,
                                                  pc.claim.outputs)] {
        return ep->CreateFusedKernel(info);
      };
      if (auto* device = ep->GetExtension<ep::DeviceValues>()) {
        ep::DeviceValues::StepMemory memory =
            device->FusedStepMemory(step.name, step.inputs.size(), step.outputs.size());
        step.device = device;
        step.inputs_on_device = std::move(memory.inputs);
        step.outputs_on_device = std::move(memory.outputs);
      }
      plan->steps.push_back(std::move(step));
      continue;
    }
    const ir::NodeId n = unit_node[u];
    const ir::Node& node = graph.nodes[n];
    const int32_t c = placement.claim_of_node[n];
    // Runtime nodes are in no claim and count as the CPU EP's (runtime/model_pipeline.h).
    const auto& entry = c >= 0 ? entries[placement.claims[c].ep] : entries[placed->runtime_ep];
    step.name = node.name;
    step.op_type = node.op_type;
    step.ep_name = entry.name;
    step.ep = entry.provider.get();
    step.inputs = node.inputs;
    step.explicit_inputs = node.inputs.size();
    for (ir::ValueId v : view.implicit_inputs(n)) step.inputs.push_back(v);
    step.outputs = node.outputs;
    NodeInfo info = infos.Node(n);
    step.description = info.Description();
    // A node an EP claimed alone through the GraphClaimer extension gets its kernel (or, for
    // control flow, its helpers) from that EP.
    ep::GraphClaimer* claimer =
        c >= 0 ? entry.provider->GetExtension<ep::GraphClaimer>() : nullptr;
    if (IsControlFlowOp(node.domain, node.op_type)) {
      ControlFlowHelpers helpers;
      if (claimer != nullptr) {
        NXRT_ASSIGN_OR_RETURN(helpers, claimer->ControlFlowHelpersFor(graph, n));
      }
      NXRT_ASSIGN_OR_RETURN(step.make_runtime_step,
                            BuildControlFlow(view, n, info, std::move(helpers), step.subgraphs));
    } else if (runtime_nodes[n]) {
      NXRT_ASSIGN_OR_RETURN(step.make_runtime_step, IsMapOp(node.domain, node.op_type)
                                                        ? MakeMapStep(info)
                                                        : MakeSequenceStep(info));
    } else if (claimer != nullptr) {
      step.node_info = std::make_shared<NodeInfo>(std::move(info));
      step.make_kernel = [claimer, &graph, n] { return claimer->CreateNodeKernel(graph, n); };
      if (auto* device = entry.provider->GetExtension<ep::DeviceValues>()) {
        ep::DeviceValues::StepMemory memory = device->NodeStepMemory(graph, n);
        step.device = device;
        step.inputs_on_device = std::move(memory.inputs);
        step.outputs_on_device = std::move(memory.outputs);
      }
    } else {
      ExecutionProvider* ep = entry.provider.get();
      step.node_info = std::make_shared<NodeInfo>(std::move(info));
      step.make_kernel = [ep, info = step.node_info] { return ep->CreateKernel(*info); };
      step.foldable = node.domain.empty() && !IsRandomOp(node.op_type);
    }
    plan->steps.push_back(std::move(step));
  }
  InsertDeviceCopies(*plan);
  plan->ComputeValuePlans();
  return plan;
}

Result<SubgraphPlan> PlanBuilder::BuildSubgraph(const ir::GraphView& view, ir::NodeId node,
                                                const ir::Graph& subgraph) {
  NXRT_ASSIGN_OR_RETURN(std::shared_ptr<GraphPlan> plan, Build(subgraph));
  SubgraphPlan sub;
  sub.plan = plan;
  const ir::Graph& parent = view.graph();
  const ir::Node& n = parent.nodes[node];
  const auto implicit = view.implicit_inputs(node);
  for (ir::ValueId outer : plan->outer_scope) {
    const std::string& name = subgraph.values[outer].name;
    size_t index = 0;
    bool found = false;
    for (size_t k = 0; k < implicit.size(); ++k) {
      if (parent.values[implicit[k]].name == name) {
        index = n.inputs.size() + k;
        found = true;
        break;
      }
    }
    if (!found) {
      return MakeStatus(StatusCode::kInvalidModel, "subgraph '", subgraph.name, "' of node '",
                        n.name, "' reads outer-scope value '", name,
                        "', which the enclosing graph does not provide");
    }
    sub.outer_bindings.emplace_back(outer, index);
  }
  return sub;
}

Result<RuntimeStepFactory> PlanBuilder::BuildControlFlow(const ir::GraphView& view,
                                                         ir::NodeId node, const NodeInfo& info,
                                                         ControlFlowHelpers helpers,
                                                         std::vector<SubgraphPlan>& subgraphs) {
  const ir::Node& n = view.graph().nodes[node];
  auto graph_attr = [&](std::string_view name) -> Result<const ir::Graph*> {
    const ir::Attribute* a = n.FindAttribute(name);
    if (a == nullptr || !a->g) {
      return info.Error(StatusCode::kInvalidModel, "graph attribute '", name, "' is missing");
    }
    return a->g.get();
  };
  if (n.op_type == "If") {
    NXRT_ASSIGN_OR_RETURN(const ir::Graph* then_graph, graph_attr("then_branch"));
    NXRT_ASSIGN_OR_RETURN(const ir::Graph* else_graph, graph_attr("else_branch"));
    NXRT_ASSIGN_OR_RETURN(SubgraphPlan then_plan, BuildSubgraph(view, node, *then_graph));
    NXRT_ASSIGN_OR_RETURN(SubgraphPlan else_plan, BuildSubgraph(view, node, *else_graph));
    subgraphs = {then_plan, else_plan};
    return MakeIfStep(std::move(then_plan), std::move(else_plan));
  }
  NXRT_ASSIGN_OR_RETURN(const ir::Graph* body_graph, graph_attr("body"));
  NXRT_ASSIGN_OR_RETURN(SubgraphPlan body, BuildSubgraph(view, node, *body_graph));
  subgraphs = {body};
  if (n.op_type == "SequenceMap") {
    std::vector<DataType> out_dtypes;
    for (size_t o = 0; o < info.outputs().size(); ++o) {
      DataType dtype = info.outputs()[o].dtype;
      if (dtype == DataType::kUndefined && o < body_graph->outputs.size()) {
        dtype = body_graph->values[body_graph->outputs[o]].type.elem_type;
      }
      out_dtypes.push_back(dtype);
    }
    return MakeSequenceMapStep(std::move(body), n.inputs.size(), std::move(out_dtypes));
  }
  if (n.op_type == "Loop") {
    const size_t carried = n.inputs.size() > 2 ? n.inputs.size() - 2 : 0;
    std::vector<LoopScanType> scan_types;
    for (size_t o = carried; o < info.outputs().size(); ++o) {
      LoopScanType type;
      type.dtype = info.outputs()[o].dtype;
      // Body outputs: cond, the carried values, then the scan outputs.
      if (1 + o < body_graph->outputs.size()) {
        const ir::TypeInfo& t = body_graph->values[body_graph->outputs[1 + o]].type;
        if (t.kind == ir::TypeInfo::Kind::kTensor && t.shape) {
          Shape dims;
          for (const ir::Dim& d : *t.shape) dims.push_back(d.is_fixed() ? d.value : -1);
          type.element_shape = std::move(dims);
        }
      }
      scan_types.push_back(std::move(type));
    }
    return MakeLoopStep(std::move(body), n.inputs.size(), std::move(scan_types),
                        std::move(helpers));
  }
  if (info.opset() < 9) {
    // Scan-8: sequence_lens first, batched inputs; scan inputs run along axis 0 of each batch
    // entry in the order of `directions`, scan outputs stack forward.
    ScanAttributes attrs;
    attrs.batched = true;
    NXRT_ASSIGN_OR_RETURN(attrs.num_scan_inputs, info.GetInt("num_scan_inputs"));
    const int64_t m = attrs.num_scan_inputs;
    const int64_t state = static_cast<int64_t>(n.inputs.size()) - 1 - m;
    const int64_t k = static_cast<int64_t>(n.outputs.size()) - state;
    if (m <= 0 || state < 0 || k < 0) {
      return info.Error(StatusCode::kInvalidModel, "num_scan_inputs = ", m, " does not fit ",
                        n.inputs.size(), " inputs (sequence_lens first) and ", n.outputs.size(),
                        " outputs");
    }
    NXRT_ASSIGN_OR_RETURN(attrs.input_directions,
                          info.GetInts("directions", std::vector<int64_t>(m, 0)));
    if (static_cast<int64_t>(attrs.input_directions.size()) != m) {
      return info.Error(StatusCode::kInvalidModel, "attribute 'directions' has ",
                        attrs.input_directions.size(), " entries, expected ", m);
    }
    attrs.input_axes.assign(m, 0);
    attrs.output_axes.assign(k, 0);
    attrs.output_directions.assign(k, 0);
    return MakeScanStep(std::move(body), std::move(attrs), n.inputs.size());
  }
  ScanAttributes attrs;
  NXRT_ASSIGN_OR_RETURN(attrs.num_scan_inputs, info.GetInt("num_scan_inputs"));
  const int64_t m = attrs.num_scan_inputs;
  const int64_t state = static_cast<int64_t>(n.inputs.size()) - m;
  const int64_t k = static_cast<int64_t>(n.outputs.size()) - state;
  if (m <= 0 || state < 0 || k < 0) {
    return info.Error(StatusCode::kInvalidModel, "num_scan_inputs = ", m, " does not fit ",
                      n.inputs.size(), " inputs and ", n.outputs.size(), " outputs");
  }
  auto normalized = [&](std::string_view name, int64_t count, bool axes,
                        const std::vector<ValueInfo>& values,
                        size_t first) -> Result<std::vector<int64_t>> {
    NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> v,
                          info.GetInts(name, std::vector<int64_t>(static_cast<size_t>(count), 0)));
    if (static_cast<int64_t>(v.size()) != count) {
      return info.Error(StatusCode::kInvalidModel, "attribute '", name, "' has ", v.size(),
                        " entries, expected ", count);
    }
    for (size_t i = 0; i < v.size() && axes; ++i) {
      if (v[i] >= 0) continue;
      const auto rank = first + i < values.size() ? values[first + i].rank() : std::nullopt;
      if (!rank) {
        return info.Error(StatusCode::kNotImplemented, "negative ", name, " entry ", v[i],
                          " needs the rank of value ", first + i, ", which the model does not give");
      }
      v[i] += static_cast<int64_t>(*rank);
    }
    return v;
  };
  NXRT_ASSIGN_OR_RETURN(attrs.input_axes,
                        normalized("scan_input_axes", m, true, info.inputs(),
                                   static_cast<size_t>(state)));
  NXRT_ASSIGN_OR_RETURN(attrs.input_directions,
                        normalized("scan_input_directions", m, false, info.inputs(), 0));
  NXRT_ASSIGN_OR_RETURN(attrs.output_axes,
                        normalized("scan_output_axes", k, true, info.outputs(),
                                   static_cast<size_t>(state)));
  NXRT_ASSIGN_OR_RETURN(attrs.output_directions,
                        normalized("scan_output_directions", k, false, info.outputs(), 0));
  return MakeScanStep(std::move(body), std::move(attrs), n.inputs.size(), std::move(helpers));
}

}  // namespace nxrt::runtime
