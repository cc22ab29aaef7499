// runtime/plan_builder.cpp: see plan_builder.h.
#include "runtime/plan_builder.h"

#include <sstream>

#include "ep/node_info_builder.h"
#include "ep/partitioner.h"
#include "runtime/control_flow.h"

namespace nxrt::runtime {
namespace {

bool IsControlFlow(const ir::Node& node) {
  return node.domain.empty() &&
         (node.op_type == "If" || node.op_type == "Loop" || node.op_type == "Scan");
}

std::string NodeLabel(const ir::Node& node) {
  std::ostringstream os;
  os << "#" << node.id << ":" << node.op_type << ":" << node.name;
  return os.str();
}

}  // namespace

PlanBuilder::PlanBuilder(const ir::Model& model, ep::EpRegistry& eps, PlanBuilderOptions options)
    : model_(model), eps_(eps), options_(options) {}

Result<std::shared_ptr<GraphPlan>> PlanBuilder::Build(const ir::Graph& graph) {
  NXRT_ASSIGN_OR_RETURN(ir::GraphView view_value, ir::GraphView::Create(model_, graph));
  views_.push_back(std::make_unique<ir::GraphView>(std::move(view_value)));
  const ir::GraphView& view = *views_.back();
  ep::NodeInfoBuilder infos(view);
  const auto& entries = eps_.entries();
  const size_t node_count = graph.nodes.size();
  const std::string graph_label = graph.parent == nullptr ? "main graph" : "subgraph '" + graph.name + "'";

  // Placement: EPs claim in priority order over the nodes still unassigned. Control-flow nodes
  // run in the runtime itself (their bodies are placed like any graph) and count as the last
  // EP's.
  std::vector<int> assigned(node_count, -1);
  std::vector<std::vector<std::string>> reasons(node_count);
  for (size_t n = 0; n < node_count; ++n) {
    if (IsControlFlow(graph.nodes[n])) assigned[n] = static_cast<int>(entries.size()) - 1;
  }
  for (size_t e = 0; e < entries.size(); ++e) {
    const ExecutionProvider& ep = *entries[e].provider;
    std::vector<bool> supported(node_count, false);
    for (size_t n = 0; n < node_count; ++n) {
      if (assigned[n] >= 0) continue;
      KernelMatch match = ep.Supports(infos.Node(static_cast<ir::NodeId>(n)));
      supported[n] = match.supported();
      if (!match.supported()) reasons[n].push_back(entries[e].name + ": " + match.reason());
    }
    std::vector<ep::Claim> claims =
        ep::PartitionGraph(view, [&](ir::NodeId n) { return supported[n]; });
    size_t claimed = 0;
    for (const ep::Claim& claim : claims) {
      for (ir::NodeId n : claim.nodes) assigned[n] = static_cast<int>(e);
      claimed += claim.nodes.size();
    }
    if (claimed > 0) {
      std::ostringstream os;
      os << graph_label << ": ep '" << entries[e].name << "' claims " << claimed << " of "
         << node_count << " nodes in " << claims.size() << " claim(s)";
      placement_lines_.push_back(os.str());
    }
  }
  std::ostringstream unplaced;
  size_t unplaced_count = 0;
  for (size_t n = 0; n < node_count; ++n) {
    if (assigned[n] >= 0) continue;
    ++unplaced_count;
    unplaced << "\n  " << NodeLabel(graph.nodes[n]) << " (" << graph.nodes[n].op_type
             << ", opset " << view.opset(static_cast<ir::NodeId>(n)) << ")";
    for (const std::string& r : reasons[n]) unplaced << "\n    " << r;
  }
  if (unplaced_count > 0) {
    return MakeStatus(StatusCode::kUnsupported, graph_label, ": ", unplaced_count,
                      " node(s) no execution provider can run:", unplaced.str(),
                      options_.allow_fallback ? "" : "\n(fallback to the CPU EP is disabled)");
  }

  auto plan = std::make_shared<GraphPlan>();
  plan->graph = &graph;
  for (ir::NodeId n : view.topological_order()) {
    const ir::Node& node = graph.nodes[n];
    const auto& entry = entries[assigned[n]];
    StepPlan step;
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
    if (IsControlFlow(node)) {
      NXRT_ASSIGN_OR_RETURN(step.make_control_flow, BuildControlFlow(view, n, info));
    } else {
      ExecutionProvider* ep = entry.provider.get();
      step.make_kernel = [ep, info = std::move(info)] { return ep->CreateKernel(info); };
    }
    plan->steps.push_back(std::move(step));
  }
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

Result<ControlFlowFactory> PlanBuilder::BuildControlFlow(const ir::GraphView& view,
                                                         ir::NodeId node, const NodeInfo& info) {
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
    return MakeIfStep(std::move(then_plan), std::move(else_plan));
  }
  NXRT_ASSIGN_OR_RETURN(const ir::Graph* body_graph, graph_attr("body"));
  NXRT_ASSIGN_OR_RETURN(SubgraphPlan body, BuildSubgraph(view, node, *body_graph));
  if (n.op_type == "Loop") {
    const size_t carried = n.inputs.size() > 2 ? n.inputs.size() - 2 : 0;
    std::vector<DataType> scan_dtypes;
    for (size_t o = carried; o < info.outputs().size(); ++o) {
      scan_dtypes.push_back(info.outputs()[o].dtype);
    }
    return MakeLoopStep(std::move(body), n.inputs.size(), std::move(scan_dtypes));
  }
  if (info.opset() < 9) {
    return info.Error(StatusCode::kNotImplemented,
                      "Scan before opset 9 (batched, with sequence_lens) is not supported");
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
  return MakeScanStep(std::move(body), std::move(attrs), n.inputs.size());
}

}  // namespace nxrt::runtime
