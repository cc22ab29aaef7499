// runtime/model_pipeline.h: the one owner of the stages from a model to placed graphs, run by
// Session::Create and by ExplainPlacement (nxrt/placement.h), so that the two cannot disagree.
//
// Layer: nxrt_runtime. The stages, in order:
//   1. load (LoadModel): ONNX type inference whenever the optimizer runs or a plugin EP is
//      listed (LoadOptionsFor; plugins see inferred types, as in ONNX Runtime, and fusions check
//      dtypes and shapes of intermediates), then SessionOptions' free-dimension overrides;
//   2. optimise (optimizer/optimizer.h): the passes that always run (gradient_expansion), then
//      level 1 and 2 as SessionOptions asks and the EP list allows (opt::LevelForProviders);
//      the result is written to SessionOptions::optimized_model_path when set (ir/onnx_writer.h);
//   3. the EP list in priority order: built-ins by type name, plugin libraries loaded
//      (runtime/ep_factory.h); with fallback a CPU EP is appended when none is listed, and a
//      plugin that fails to load is dropped with a warning, without fallback that is an error;
//   4. initialise the EPs (those with ep::SessionConfigured get the session config entries
//      Prepare is given first), dropping under fallback those that fail (ep::EpRegistry); then the checks of an
//      EPContext model (runtime/ep_context_model.h: EPContext sources, compatibility info);
//   5. place every graph (PlaceAll): the bodies of the nodes that hold subgraphs before the
//      graph that holds them, in node and attribute order (bottom-up, as ONNX Runtime
//      partitions, so plugins see the same GetCapability/Compile order); the report lists the
//      graphs depth first, the main graph first. Nodes of a graph no EP took whose op has an
//      ONNX function body are expanded into it (optimizer/function_expansion.h) and the graph is
//      placed again, its bodies first (their claims compiled again: ORT shows them as fused
//      nodes instead), as ORT inlines them and partitions again; the nodes the CPU EP and the
//      runtime took keep them, shown assigned. With an EP that claims whole graphs (an ORT
//      plugin) listed, SequenceMap and NegativeLogLikelihoodLoss, which nxrt runs natively and
//      ORT's CPU EP has no kernel for, are left to nobody, so that they are expanded as in ORT.
//      Each graph's view (ir::GraphView) is built here once and kept for the pipeline's life.
//      Nodes the runtime runs itself (control flow, sequence and optional ops) are offered to no
//      EP and count as the CPU EP's, as in ONNX Runtime, whose CPU EP holds those kernels; with
//      no CPU EP (no "cpu" entry, fallback disabled) they are unplaced, unless an EP that claims
//      whole graphs (ORT plugins, ep/graph_claimer.h) claims an If/Loop/Scan alone, as ORT
//      plugins do with OrtEpApi's control-flow kernels: the node is then that EP's and the
//      runtime still runs its subgraphs. EPs that claim whole graphs compile each graph's claims (fused groups and
//      single nodes) right after placing it; one whose compile fails is dropped under fallback
//      (the graph is placed again without it, and it stays out of every later graph).
// What follows placement (kernels, plans, runs) is the session's (runtime/plan_builder.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ep/ep_registry.h"
#include "ep/placement.h"
#include "ir/graph.h"
#include "ir/graph_view.h"
#include "ir/onnx_loader.h"
#include "nxrt/placement.h"
#include "nxrt/session.h"
#include "nxrt/status.h"

namespace nxrt::runtime {

// EP name → why it was dropped: EPs kept out of a placement.
using DroppedEps = std::map<std::string, std::string, std::less<>>;

// How a session with `options` loads a model (stage 1).
ir::LoadOptions LoadOptionsFor(const SessionOptions& options);

// Stage 1: the model at `path` (or in `bytes`) loaded with LoadOptionsFor(options), its free
// dimensions fixed by options.free_dimension_overrides (runtime/model_info.h). Errors: the
// loader's (kIoError, kInvalidModel), a bad override (kInvalidArgument).
Result<ir::Model> LoadModel(const std::string& path, const SessionOptions& options);
Result<ir::Model> LoadModel(std::span<const std::byte> bytes, const SessionOptions& options);

// A Session (stages 2 to 5, then the plan) over `model`, which the caller built or loaded itself
// (e.g. read from ONNX Runtime's OrtGraph by libnxrt_ort_ep.so, src/ort_ep). `source` names it in
// messages and the report. Errors: those of Session::Create after loading.
Result<std::unique_ptr<Session>> CreateSession(ir::Model model, const SessionOptions& options,
                                               std::string source);

// One graph, placed.
struct PlacedGraph {
  const ir::Graph* graph = nullptr;
  const ir::GraphView* view = nullptr;  // owned by the pipeline
  ep::Placement placement;
  std::vector<std::string> fused_names;  // per claim: the fused node's name, "" when not fused
  std::vector<bool> runtime_nodes;       // node id → run by the runtime, not by an EP
  int32_t runtime_ep = -1;  // EpRegistry entry the runtime's nodes count as: the CPU EP; -1: none
  GraphPlacement report;    // what PlacementReport::graphs holds for this graph
};

// Every graph, placed: what a plan is built from and what the report shows.
struct PlacedModel {
  std::vector<PlacedGraph> graphs;    // PlacementReport::graphs order
  std::vector<std::string> warnings;  // EPs dropped because compiling their claims failed
  DroppedEps dropped;  // EPs kept out: those PlaceAll was given and those whose compile failed

  // The placed graph of `graph`, or nullptr.
  const PlacedGraph* Find(const ir::Graph& graph) const;
};

class ModelPipeline {
 public:
  // Stages 2 to 4 on `model` (loaded with LoadOptionsFor(options)). `source` is the model's path
  // ("" for bytes), for the report. Errors: kInvalidArgument for bad options (negative threads,
  // an optimisation level or pass name the optimizer refuses, an unknown EP type, a bad EP
  // name); an optimizer pass's error; an EP that fails to load or initialize when fallback is
  // disabled.
  // `config_entries`: session config entries (ORT's AddSessionConfigEntry keys) for the EPs that
  // take them (ep/ep_context.h; nxrt::CompileModel gives the ep.context_* ones).
  static Result<std::unique_ptr<ModelPipeline>> Prepare(
      ir::Model model, const SessionOptions& options, std::string source,
      std::vector<std::pair<std::string, std::string>> config_entries = {});

  ModelPipeline(const ModelPipeline&) = delete;
  ModelPipeline& operator=(const ModelPipeline&) = delete;

  // Stage 5 with the EPs of `dropped` kept out (each node they would have been asked about
  // records why). With `allow_unplaced` nodes nobody runs are listed (the report), else they
  // are an error: kUnsupported listing each node with every EP's reason, prefixed with the
  // graph's label. Other errors: a graph's validation error, a compile error with fallback
  // disabled.
  Result<PlacedModel> PlaceAll(const DroppedEps& dropped, bool allow_unplaced);

  // The report of `placed`: the passes, the level, the warnings of stages 3 and 4 followed by
  // `placed`'s, and its graphs.
  PlacementReport Report(const PlacedModel& placed) const;

  ir::Model& model() { return model_; }
  const ir::Model& model() const { return model_; }
  ep::EpRegistry& eps() { return eps_; }
  const std::vector<OptimizerPassStats>& passes() const { return passes_; }
  // One line per EP dropped while loading or initializing (fallback allowed).
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Every EP is the CPU EP (no plugin EP can be dropped later, so a plan never changes).
  bool only_cpu() const { return only_cpu_; }
  // Keeps nodes from every EP: for a node of a graph of model() it returns the reason each EP
  // records as its decline, or nullopt. Read by PlaceAll; none by default. libnxrt_ort_ep.so
  // keeps the nodes ONNX Runtime assigned to another EP this way.
  using NodeFilter =
      std::function<std::optional<std::string>(const ir::Graph& graph, ir::NodeId node)>;
  void set_node_filter(NodeFilter filter) { node_filter_ = std::move(filter); }
  // The view of `graph` (the main graph or a subgraph of model()), built on first use and kept.
  // Errors: the graph's validation errors (ir::GraphView::Create).
  Result<const ir::GraphView*> View(const ir::Graph& graph);

 private:
  ModelPipeline(ir::Model model, const SessionOptions& options, std::string source,
                std::vector<std::pair<std::string, std::string>> config_entries);
  Status Prepare();
  // Places the bodies of `graph`'s nodes (nodes in order, a node's bodies in attribute order:
  // ORT's order) and then `graph` itself (labelled `label`, enclosed by graph `parent` of
  // `placed`); when nodes nobody took have a function body, expands them (ExpandFunctions) and
  // places the bodies and the graph again, as ORT partitions again after inlining them.
  // placed.graphs gets `graph` first (its slot is taken before its bodies are placed), then its
  // bodies depth first: PlacementReport::graphs order.
  Status PlaceGraph(ir::Graph& graph, std::string label, int32_t parent,
                    DroppedEps& dropped, bool allow_unplaced, PlacedModel& placed);
  // Expands the unplaced nodes of `placement` (of `graph`) that have an ONNX function body
  // (opt::ExpandFunctionNodes), drops the views it made stale and infers types again when the
  // session infers them; `expanded` tells whether there was any. Errors: those of the expansion.
  Status ExpandFunctions(ir::Graph& graph, const ep::Placement& placement, bool& expanded);
  // Compiles the fused claims of EPs with the GraphClaimer extension. False (after recording
  // the EP in `dropped`) when one failed and fallback is allowed: place the graph again.
  Result<bool> CompileClaims(const PlacedGraph& graph, DroppedEps& dropped,
                             std::vector<std::string>& warnings);

  ir::Model model_;
  const SessionOptions options_;
  const std::string source_;
  const std::vector<std::pair<std::string, std::string>> config_entries_;
  ep::EpRegistry eps_;
  int optimization_level_ = 0;
  std::vector<OptimizerPassStats> passes_;
  std::vector<std::string> warnings_;
  bool only_cpu_ = false;
  std::map<const ir::Graph*, std::unique_ptr<ir::GraphView>> views_;
  int fused_count_ = 0;  // fused nodes named so far by the current PlaceAll
  NodeFilter node_filter_;
};

}  // namespace nxrt::runtime
