// runtime/model_pipeline.cpp: see model_pipeline.h; also ExplainPlacement (nxrt/placement.h).
#include "runtime/model_pipeline.h"

#include "runtime/model_info.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "ep/ep_context.h"
#include "ep/graph_claimer.h"
#include "ir/function_body.h"
#include "ir/onnx_writer.h"
#include "optimizer/function_expansion.h"
#include "optimizer/optimizer.h"
#include "runtime/control_flow.h"
#include "runtime/ep_context_model.h"
#include "runtime/ep_factory.h"
#include "runtime/map_steps.h"
#include "runtime/sequence_steps.h"

namespace nxrt::runtime {
namespace {

bool IsCpu(const EpSpec& spec) {
  return spec.type == "cpu" || (spec.provider && spec.provider->type_name() == "cpu");
}

bool IsNonTensorType(const ir::TypeInfo& type) {
  return type.kind == ir::TypeInfo::Kind::kSequence || type.kind == ir::TypeInfo::Kind::kOptional;
}

// Output `i` of graph attribute `attr` of `node` is declared a sequence or optional.
bool SubgraphOutputIsNonTensor(const ir::Node& node, std::string_view attr, size_t i) {
  const ir::Attribute* a = node.FindAttribute(attr);
  if (a == nullptr || !a->g || i >= a->g->outputs.size()) return false;
  return IsNonTensorType(a->g->values[a->g->outputs[i]].type);
}

// Values of the graph known to be sequences or optionals: declared so, made by a sequence op,
// or passed on by Identity, If or Loop. Decides where Identity runs (an EP kernel for tensors,
// the runtime otherwise) when the model declares no type for its input.
std::vector<bool> NonTensorValues(const ir::GraphView& view) {
  const ir::Graph& g = view.graph();
  std::vector<bool> non_tensor(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) non_tensor[v] = IsNonTensorType(g.values[v].type);
  auto mark = [&](const ir::Node& node, size_t o) {
    if (o < node.outputs.size() && node.outputs[o] != ir::kNoValue) {
      non_tensor[node.outputs[o]] = true;
    }
  };
  for (ir::NodeId n : view.topological_order()) {
    const ir::Node& node = g.nodes[n];
    if (!node.domain.empty()) continue;
    const std::string& op = node.op_type;
    const bool input0_non_tensor =
        !node.inputs.empty() && node.inputs[0] != ir::kNoValue && non_tensor[node.inputs[0]];
    if (op == "SequenceConstruct" || op == "SequenceEmpty" || op == "SequenceInsert" ||
        op == "SequenceErase" || op == "SplitToSequence" || op == "Optional") {
      mark(node, 0);
    } else if (op == "SequenceMap") {
      for (size_t o = 0; o < node.outputs.size(); ++o) mark(node, o);
    } else if (op == "Identity" && input0_non_tensor) {
      mark(node, 0);
    } else if (op == "OptionalGetElement" && input0_non_tensor) {
      const ir::TypeInfo& t = g.values[node.inputs[0]].type;
      if (t.element && IsNonTensorType(*t.element)) mark(node, 0);
    } else if (op == "If") {
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        if (SubgraphOutputIsNonTensor(node, "then_branch", o) ||
            SubgraphOutputIsNonTensor(node, "else_branch", o)) {
          mark(node, o);
        }
      }
    } else if (op == "Loop") {
      const size_t carried = node.inputs.size() > 2 ? node.inputs.size() - 2 : 0;
      for (size_t o = 0; o < carried; ++o) {
        const ir::ValueId initial = node.inputs[2 + o];
        if ((initial != ir::kNoValue && non_tensor[initial]) ||
            SubgraphOutputIsNonTensor(node, "body", 1 + o)) {
          mark(node, o);
        }
      }
    }
  }
  return non_tensor;
}

// Ops nxrt runs natively (the runtime's SequenceMap step, the CPU EP's NegativeLogLikelihoodLoss
// kernel) that ONNX Runtime 1.30's CPU EP has no kernel for, so that ORT expands them into their
// ONNX function body. With an EP that claims whole graphs (an ORT plugin) in the list, the CPU EP
// and the runtime leave them, so nxrt expands them too and the plugin is shown, and may claim,
// what ORT shows it. Without one, the native versions run (measured
// against nxrt running the expansion: SequenceMap over 512 rows 1 ms vs 105 ms, ORT 12 ms;
// NegativeLogLikelihoodLoss 0.024 ms vs 0.18 ms, ORT 0.10 ms; docs/plugin_host.md).
bool ExpandedForPlugins(const ir::Node& node) {
  return node.domain.empty() &&
         (node.op_type == "SequenceMap" || node.op_type == "NegativeLogLikelihoodLoss");
}

// Nodes the runtime runs itself (no EP is asked): control flow, the sequence and optional ops,
// ONNX-ML's map ops, and Identity of a sequence or optional. SequenceMap only when
// `native_functions` (ExpandedForPlugins).
std::vector<bool> RuntimeNodes(const ir::GraphView& view, bool native_functions) {
  const ir::Graph& g = view.graph();
  const std::vector<bool> non_tensor = NonTensorValues(view);
  std::vector<bool> runtime(g.nodes.size());
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const ir::Node& node = g.nodes[n];
    runtime[n] = (IsControlFlowOp(node.domain, node.op_type) &&
                  (native_functions || !ExpandedForPlugins(node))) ||
                 IsSequenceOp(node.domain, node.op_type) || IsMapOp(node.domain, node.op_type);
    if (node.domain.empty() && node.op_type == "Identity") {
      auto is_non_tensor = [&](ir::ValueId v) { return v != ir::kNoValue && non_tensor[v]; };
      runtime[n] = std::any_of(node.inputs.begin(), node.inputs.end(), is_non_tensor) ||
                   std::any_of(node.outputs.begin(), node.outputs.end(), is_non_tensor);
    }
  }
  return runtime;
}

}  // namespace

ir::LoadOptions LoadOptionsFor(const SessionOptions& options) {
  ir::LoadOptions load;
  load.infer_types = options.optimization_level > 0;
  for (const EpSpec& spec : options.providers) {
    if (spec.type.starts_with("plugin:") ||
        (spec.provider && spec.provider->GetExtension<ep::GraphClaimer>() != nullptr)) {
      load.infer_types = true;
    }
  }
  return load;
}

Result<ir::Model> LoadModel(const std::string& path, const SessionOptions& options) {
  NXRT_ASSIGN_OR_RETURN(ir::Model model, ir::LoadModelFromFile(path, LoadOptionsFor(options)));
  NXRT_RETURN_IF_ERROR(ApplyFreeDimensionOverrides(model, options.free_dimension_overrides));
  return model;
}

Result<ir::Model> LoadModel(std::span<const std::byte> bytes, const SessionOptions& options) {
  NXRT_ASSIGN_OR_RETURN(ir::Model model, ir::LoadModelFromBytes(bytes, LoadOptionsFor(options)));
  NXRT_RETURN_IF_ERROR(ApplyFreeDimensionOverrides(model, options.free_dimension_overrides));
  return model;
}

const PlacedGraph* PlacedModel::Find(const ir::Graph& graph) const {
  for (const PlacedGraph& g : graphs) {
    if (g.graph == &graph) return &g;
  }
  return nullptr;
}

ModelPipeline::ModelPipeline(ir::Model model, const SessionOptions& options, std::string source,
                             std::vector<std::pair<std::string, std::string>> config_entries)
    : model_(std::move(model)),
      options_(options),
      source_(std::move(source)),
      config_entries_(std::move(config_entries)) {}

Result<std::unique_ptr<ModelPipeline>> ModelPipeline::Prepare(
    ir::Model model, const SessionOptions& options, std::string source,
    std::vector<std::pair<std::string, std::string>> config_entries) {
  std::unique_ptr<ModelPipeline> pipeline(new ModelPipeline(
      std::move(model), options, std::move(source), std::move(config_entries)));
  NXRT_RETURN_IF_ERROR(pipeline->Prepare());
  return pipeline;
}

Status ModelPipeline::Prepare() {
  if (options_.intra_op_threads < 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "intra_op_threads = ",
                      options_.intra_op_threads, " is negative; use 0 for one per core");
  }
  const std::pair<const char*, int64_t> limits[] = {
      {"run_time_limit_ms", options_.run_time_limit_ms},
      {"loop_trip_limit", options_.loop_trip_limit},
      {"run_memory_limit_bytes", options_.run_memory_limit_bytes}};
  for (const auto& [name, value] : limits) {
    if (value < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "SessionOptions::", name, " = ", value,
                        " is negative; use 0 for no limit");
    }
  }
  std::vector<EpSpec> specs = options_.providers;
  if (specs.empty()) specs.push_back(EpSpec{"cpu", {}, {}, nullptr});
  only_cpu_ = std::all_of(specs.begin(), specs.end(), IsCpu);
  // Fusions into nxrt's own operators only when the CPU EP runs everything.
  optimization_level_ = opt::LevelForProviders(options_.optimization_level, only_cpu_);
  NXRT_ASSIGN_OR_RETURN(std::vector<opt::PassReport> passes,
                        opt::OptimizeModel(model_, {optimization_level_, options_.disabled_optimizers}));
  for (const opt::PassReport& r : passes) passes_.push_back({r.pass, r.rewrites});
  if (!options_.optimized_model_path.empty()) {
    Status saved = ir::SaveModel(model_, options_.optimized_model_path);
    if (!saved.ok()) return saved.WithContext("SessionOptions::optimized_model_path");
  }

  if (options_.allow_fallback && std::none_of(specs.begin(), specs.end(), IsCpu)) {
    specs.push_back(EpSpec{"cpu", {}, {}, nullptr});
  }
  for (const EpSpec& spec : specs) {
    std::shared_ptr<ExecutionProvider> ep = spec.provider;
    if (!ep) {
      Result<std::shared_ptr<ExecutionProvider>> made = MakeExecutionProvider(spec.type, spec.config);
      if (!made.ok() && options_.allow_fallback && spec.type.starts_with("plugin:")) {
        warnings_.push_back("ep '" + spec.type + "' dropped, its nodes fall back: " +
                            made.status().message());
        continue;
      }
      NXRT_ASSIGN_OR_RETURN(ep, std::move(made));
    }
    NXRT_RETURN_IF_ERROR(eps_.Add(ep, spec.config, spec.name));
  }
  for (const auto& entry : eps_.entries()) {
    if (auto* configured = entry.provider->GetExtension<ep::SessionConfigured>()) {
      configured->SetSessionConfig(config_entries_);
    }
  }
  std::vector<std::string> dropped;
  NXRT_RETURN_IF_ERROR(eps_.InitializeAll(options_.allow_fallback ? &dropped : nullptr));
  for (const std::string& why : dropped) warnings_.push_back(why + " (dropped, its nodes fall back)");
  return CheckEpContextModel(model_, source_, eps_, warnings_);
}

Result<const ir::GraphView*> ModelPipeline::View(const ir::Graph& graph) {
  auto it = views_.find(&graph);
  if (it == views_.end()) {
    NXRT_ASSIGN_OR_RETURN(ir::GraphView view, ir::GraphView::Create(model_, graph));
    it = views_.emplace(&graph, std::make_unique<ir::GraphView>(std::move(view))).first;
  }
  return it->second.get();
}

Result<PlacedModel> ModelPipeline::PlaceAll(const DroppedEps& dropped, bool allow_unplaced) {
  PlacedModel placed;
  placed.dropped = dropped;
  fused_count_ = 0;
  NXRT_RETURN_IF_ERROR(
      PlaceGraph(*model_.graph, "main graph", -1, placed.dropped, allow_unplaced, placed));
  return placed;
}

namespace {

// Every graph nested in the attributes of `node`, at any depth.
void NestedGraphs(const ir::Node& node, std::vector<const ir::Graph*>& out) {
  for (const ir::Attribute& attr : node.attributes) {
    std::vector<const ir::Graph*> subgraphs;
    if (attr.g) subgraphs.push_back(attr.g.get());
    for (const auto& sub : attr.graphs) subgraphs.push_back(sub.get());
    for (const ir::Graph* sub : subgraphs) {
      out.push_back(sub);
      for (const ir::Node& inner : sub->nodes) NestedGraphs(inner, out);
    }
  }
}

}  // namespace

Status ModelPipeline::ExpandFunctions(ir::Graph& graph, const ep::Placement& placement,
                                      bool& expanded) {
  std::vector<ir::NodeId> nodes;
  for (ir::NodeId v : placement.unplaced) {
    if (ir::HasFunctionBody(model_, graph.nodes[v])) nodes.push_back(v);
  }
  expanded = !nodes.empty();
  if (!expanded) return Status::Ok();
  // The views of the graph and of the bodies that go with the expanded nodes are rebuilt.
  std::vector<const ir::Graph*> stale = {&graph};
  for (ir::NodeId v : nodes) NestedGraphs(graph.nodes[v], stale);
  for (const ir::Graph* g : stale) views_.erase(g);
  NXRT_RETURN_IF_ERROR(opt::ExpandFunctionNodes(model_, graph, nodes));
  for (const auto& entry : eps_.entries()) {
    if (auto* claimer = entry.provider->GetExtension<ep::GraphClaimer>()) {
      claimer->ModelRewritten(*model_.graph);
    }
  }
  if (LoadOptionsFor(options_).infer_types) ir::InferTypesAgain(model_);
  return Status::Ok();
}

Status ModelPipeline::PlaceGraph(ir::Graph& graph, std::string label, int32_t parent,
                                 DroppedEps& dropped, bool allow_unplaced, PlacedModel& placed) {
  const auto& entries = eps_.entries();
  // The bodies of the nodes holding subgraphs first, each placed like any graph: ONNX Runtime
  // 1.30 partitions bottom-up, so a plugin gets GetCapability and Compile for a body before its
  // parent graph; nodes in graph order, a node's bodies in the model's attribute order, as ORT
  // visits them. Appended after this graph's slot, so the report's order needs no sorting.
  // When nodes no EP took have a function body, they are expanded (opt::ExpandFunctionNodes)
  // and the graph is placed again, its bodies first, as ORT partitions again after inlining.
  const int32_t index = static_cast<int32_t>(placed.graphs.size());
  placed.graphs.emplace_back();  // this graph's, filled once its bodies are placed
  std::map<ir::NodeId, std::vector<int32_t>> bodies_of;
  const ir::GraphView* view = nullptr;
  PlacedGraph g;
  ep::PlacementOptions options;
  const bool any_claimer =
      std::any_of(entries.begin(), entries.end(), [](const ep::EpRegistry::Entry& entry) {
        return entry.provider->GetExtension<ep::GraphClaimer>() != nullptr;
      });
  // Outlives the rounds: options.exclude, which calls it, is used again after them (a claim a
  // plugin failed to compile makes the graph placed again).
  auto is_claimer = [&](std::string_view ep_name) {
    for (const auto& entry : entries) {
      if (entry.name == ep_name) {
        return entry.provider->GetExtension<ep::GraphClaimer>() != nullptr;
      }
    }
    return false;
  };
  // Node name → the EP an earlier round gave it (function expansion keeps node names).
  std::map<std::string, int32_t, std::less<>> earlier;
  for (bool expanded = true; expanded;) {
    placed.graphs.resize(static_cast<size_t>(index) + 1);
    bodies_of.clear();
    for (ir::Node& node : graph.nodes) {
      std::vector<int32_t>& bodies = bodies_of[node.id];
      for (ir::Attribute& attr : node.attributes) {
        std::vector<ir::Graph*> subgraphs;
        if (attr.g) subgraphs.push_back(attr.g.get());
        for (const auto& sub : attr.graphs) subgraphs.push_back(sub.get());
        for (ir::Graph* sub : subgraphs) {
          bodies.push_back(static_cast<int32_t>(placed.graphs.size()));
          NXRT_RETURN_IF_ERROR(PlaceGraph(*sub, label + " / node '" + node.name + "' " +
                                          attr.name, index, dropped, allow_unplaced, placed));
        }
      }
    }
    NXRT_ASSIGN_OR_RETURN(view, View(graph));
    g = PlacedGraph{};
    g.graph = &graph;
    g.view = view;
    g.runtime_nodes = RuntimeNodes(*view, !any_claimer);
    for (size_t e = entries.size(); e-- > 0;) {
      if (entries[e].provider->type_name() == "cpu") {
        g.runtime_ep = static_cast<int32_t>(e);
        break;
      }
    }
    options = ep::PlacementOptions{};
    options.allow_unplaced = true;
    if (g.runtime_ep >= 0) options.runtime_nodes = g.runtime_nodes;
    options.claimable_alone.assign(graph.nodes.size(), false);
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
      options.claimable_alone[n] = IsClaimableControlFlowOp(graph.nodes[n].domain,
                                                            graph.nodes[n].op_type);
    }
    if (!earlier.empty()) {
      options.earlier_ep.assign(graph.nodes.size(), -1);
      for (size_t n = 0; n < graph.nodes.size(); ++n) {
        if (auto it = earlier.find(graph.nodes[n].name); it != earlier.end()) {
          options.earlier_ep[n] = it->second;
        }
      }
    }
    options.exclude = [&](std::string_view ep_name, const NodeInfo& node)
        -> std::optional<std::string> {
      if (node_filter_ && node.id() >= 0) {
        if (std::optional<std::string> reason = node_filter_(graph, node.id())) return reason;
      }
      if (any_claimer && node.id() >= 0 && !is_claimer(ep_name) &&
          ExpandedForPlugins(graph.nodes[node.id()])) {
        return "ONNX Runtime's CPU EP has no " + node.op_type() +
               " kernel: with an ORT plugin EP listed it is expanded into its ONNX function "
               "body, as in ORT, so the plugin can take the nodes it is made of";
      }
      const bool claimable = node.id() >= 0 && options.claimable_alone[node.id()] &&
                             is_claimer(ep_name);
      if (g.runtime_ep < 0 && !claimable && node.id() >= 0 &&
          static_cast<size_t>(node.id()) < g.runtime_nodes.size() && g.runtime_nodes[node.id()]) {
        return "the runtime runs " + node.op_type() +
               " as a node of the CPU EP (so does ONNX Runtime), and the EP list has no cpu entry "
               "while fallback to the CPU EP is disabled";
      }
      if (auto it = dropped.find(ep_name); it != dropped.end()) {
        return "ep '" + it->first + "' was dropped: " + it->second;
      }
      return std::nullopt;
    };
    NXRT_ASSIGN_OR_RETURN(g.placement, ep::PlaceGraph(*view, eps_, options));
    // What the next round keeps, as ORT keeps its CPU EP's nodes (and the control flow it runs)
    // after inlining; claims of EPs that claim whole graphs are proposed again (ORT shows them
    // as the fused nodes it made).
    for (const ep::PlacedClaim& claim : g.placement.claims) {
      if (entries[claim.ep].provider->GetExtension<ep::GraphClaimer>() != nullptr) continue;
      for (ir::NodeId v : claim.claim.nodes) earlier[graph.nodes[v].name] = claim.ep;
    }
    for (ir::NodeId v : g.placement.runtime) {
      if (g.runtime_ep >= 0) earlier[graph.nodes[v].name] = g.runtime_ep;
    }
    NXRT_RETURN_IF_ERROR(ExpandFunctions(graph, g.placement, expanded));
  }
  for (;;) {
    if (!g.placement.complete() && !allow_unplaced) {
      Status error = ep::UnplacedError(g.placement, *view, g.runtime_ep >= 0);
      return options_.allow_fallback
                 ? error.WithContext(label)
                 : error.WithContext(label + " (fallback to the CPU EP is disabled)");
    }
    g.fused_names.assign(g.placement.claims.size(), {});
    for (size_t c = 0; c < g.placement.claims.size(); ++c) {
      if (!g.placement.claims[c].fused) continue;
      g.fused_names[c] = entries[g.placement.claims[c].ep].name + "_fused_" +
                         std::to_string(fused_count_++);
    }
    NXRT_ASSIGN_OR_RETURN(bool compiled, CompileClaims(g, dropped, placed.warnings));
    if (compiled) break;
    NXRT_ASSIGN_OR_RETURN(g.placement, ep::PlaceGraph(*view, eps_, options));
  }

  g.report = ep::DescribePlacement(g.placement, *view);
  g.report.label = label;
  g.report.parent = parent;
  for (size_t c = 0; c < g.fused_names.size(); ++c) g.report.claims[c].fused_name = g.fused_names[c];
  for (RuntimeNode& r : g.report.runtime_nodes) {
    if (auto it = bodies_of.find(r.node.id); it != bodies_of.end()) r.subgraphs = it->second;
    if (g.runtime_ep >= 0) r.ep = entries[g.runtime_ep].name;
  }
  placed.graphs[index] = std::move(g);
  return Status::Ok();
}

Result<bool> ModelPipeline::CompileClaims(const PlacedGraph& graph, DroppedEps& dropped,
                                          std::vector<std::string>& warnings) {
  const auto& entries = eps_.entries();
  for (int32_t e = 0; e < static_cast<int32_t>(entries.size()); ++e) {
    ep::GraphClaimer* claimer = entries[e].provider->GetExtension<ep::GraphClaimer>();
    if (claimer == nullptr) continue;
    std::vector<ep::GraphClaimer::ClaimToCompile> claims;
    for (size_t c = 0; c < graph.placement.claims.size(); ++c) {
      const ep::PlacedClaim& pc = graph.placement.claims[c];
      if (pc.ep != e) continue;
      claims.push_back({graph.fused_names[c], &pc.claim, pc.fused});
    }
    if (claims.empty()) continue;
    Status status = claimer->CompileClaims(*graph.view, claims);
    if (status.ok()) continue;
    if (!options_.allow_fallback) {
      return status.WithContext("ep '" + entries[e].name +
                                "' (fallback to the CPU EP is disabled)");
    }
    dropped.emplace(entries[e].name, status.message());
    warnings.push_back("ep '" + entries[e].name + "' dropped, its nodes fall back: " +
                       status.message());
    return false;
  }
  return true;
}

PlacementReport ModelPipeline::Report(const PlacedModel& placed) const {
  PlacementReport report;
  report.model = source_;
  report.optimization_level = optimization_level_;
  report.passes = passes_;
  report.warnings = warnings_;
  report.warnings.insert(report.warnings.end(), placed.warnings.begin(), placed.warnings.end());
  for (const PlacedGraph& g : placed.graphs) report.graphs.push_back(g.report);
  return report;
}

namespace {

Result<PlacementReport> Explain(ir::Model model, const SessionOptions& options,
                                std::string source) {
  NXRT_ASSIGN_OR_RETURN(std::unique_ptr<ModelPipeline> pipeline,
                        ModelPipeline::Prepare(std::move(model), options, std::move(source)));
  NXRT_ASSIGN_OR_RETURN(PlacedModel placed, pipeline->PlaceAll({}, true));
  return pipeline->Report(placed);
}

}  // namespace
}  // namespace nxrt::runtime

namespace nxrt {

Result<PlacementReport> ExplainPlacement(const std::string& path, const SessionOptions& options) {
  NXRT_ASSIGN_OR_RETURN(ir::Model model, runtime::LoadModel(path, options));
  Result<PlacementReport> report = runtime::Explain(std::move(model), options, path);
  if (!report.ok()) return report.status().WithContext("model '" + path + "'");
  return report;
}

Result<PlacementReport> ExplainPlacementFromBytes(std::span<const std::byte> bytes,
                                                  const SessionOptions& options) {
  NXRT_ASSIGN_OR_RETURN(ir::Model model, runtime::LoadModel(bytes, options));
  return runtime::Explain(std::move(model), options, "");
}

}  // namespace nxrt
