// optimizer/optimizer.cpp: the pass table and the driver (see optimizer.h).
#include "optimizer/optimizer.h"

#include <algorithm>
#include <map>
#include <optional>

#include "ir/onnx_loader.h"
#include "optimizer/passes.h"

namespace nxrt::opt {

const std::vector<std::unique_ptr<GraphPass>>& AllPasses() {
  static const std::vector<std::unique_ptr<GraphPass>> passes = [] {
    std::vector<std::unique_ptr<GraphPass>> p;
    p.push_back(MakeGradientExpansionPass());
    // Equal small constants become one before anything else rewrites the graph: ONNX Runtime
    // shares them before it folds, and the pass makes Constant nodes initializers, as ORT does
    // when it loads a model, so that the next pass sees their values.
    p.push_back(MakeConstantSharingPass());
    // Copies go next, as ONNX Runtime's rewrite rules run before its constant folding: a copy
    // of a constant is dropped, not folded under the copy's name.
    p.push_back(MakeIdentityEliminationPass());
    // Equal nodes merge before folding, as in ONNX Runtime's level 1.
    p.push_back(MakeCommonSubexpressionEliminationPass());
    p.push_back(MakeConstantFoldingPass());
    p.push_back(MakeShapeFoldingPass());
    p.push_back(MakeDimFoldingPass());
    p.push_back(MakeDeadNodeEliminationPass());
    p.push_back(MakeInsertCastPass());
    p.push_back(MakeConvBnFoldingPass());
    p.push_back(MakeMatMulAddToGemmPass());
    p.push_back(MakeReshapeFusionPass());
    // Last of level 1, as ONNX Runtime runs its TransposeOptimizer after its other level-1
    // transformers.
    p.push_back(MakeTransposeOptimizerPass());
    p.push_back(MakeQdqFusionPass());
    p.push_back(MakeMatMulIntegerToFloatFusionPass());
    p.push_back(MakeLayerNormFusionPass());
    p.push_back(MakeGeluFusionPass());
    p.push_back(MakeMatMulActivationFusionPass());
    p.push_back(MakeConvActivationFusionPass());
    p.push_back(MakeNhwcLayoutPass());
    // After the epilogue fusions, which take x * Sigmoid(x) after a MatMul or Conv as Swish,
    // and after nhwc_layout, which runs Sigmoid and Mul on channels-last values as they are.
    p.push_back(MakeQuickGeluFusionPass());
    return p;
  }();
  return passes;
}

namespace {

// The editors of one OptimizeModel call, one per graph, kept from pass to pass, so that a graph's
// view is built once and rebuilt only after an edit: by its editor's Commit for the graph itself,
// and here when a graph nested in it changed (the view counts the subgraphs' reads of outer
// values as implicit uses).
class Editors {
 public:
  explicit Editors(ir::Model& model) : model_(model) {}

  Result<GraphEditor*> For(const std::shared_ptr<ir::Graph>& graph) {
    auto it = entries_.find(graph.get());
    if (it == entries_.end() || it->second.stale) {
      NXRT_ASSIGN_OR_RETURN(GraphEditor editor, GraphEditor::Create(model_, *graph));
      Entry& entry = entries_[graph.get()];
      entry.graph = graph;  // holds the graph, so its address stays its own
      entry.editor.emplace(std::move(editor));
      entry.stale = false;
      return &*entry.editor;
    }
    return &*it->second.editor;
  }

  // `graph` changed: the views of the graphs around it are stale.
  void Changed(const ir::Graph& graph) {
    for (const ir::Graph* g = graph.parent; g != nullptr; g = g->parent) {
      auto it = entries_.find(g);
      if (it != entries_.end()) it->second.stale = true;
    }
  }

 private:
  struct Entry {
    std::shared_ptr<ir::Graph> graph;
    std::optional<GraphEditor> editor;
    bool stale = false;
  };
  ir::Model& model_;
  std::map<const ir::Graph*, Entry> entries_;
};

// Applies `pass` to `graph` and then to every subgraph below it; returns the rewrites and sets
// `*changed` when `graph` or a graph nested in it changed.
Result<int> ApplyRecursively(const GraphPass& pass, Editors& editors,
                             const std::shared_ptr<ir::Graph>& graph, bool* changed) {
  NXRT_ASSIGN_OR_RETURN(GraphEditor* editor, editors.For(graph));
  const int version = editor->version();
  NXRT_ASSIGN_OR_RETURN(int rewrites, pass.Apply(*editor));
  *changed = editor->version() != version;
  if (*changed) editors.Changed(*graph);
  bool nested_changed = false;
  for (ir::Node& node : graph->nodes) {
    for (ir::Attribute& a : node.attributes) {
      std::vector<std::shared_ptr<ir::Graph>> subgraphs = a.graphs;
      if (a.g) subgraphs.push_back(a.g);
      for (const auto& g : subgraphs) {
        bool inner_changed = false;
        NXRT_ASSIGN_OR_RETURN(int inner, ApplyRecursively(pass, editors, g, &inner_changed));
        nested_changed = nested_changed || inner_changed;
        rewrites += inner;
      }
    }
  }
  if (nested_changed) {
    // A body may read fewer outer values now: drop the initializers nothing reads any more, as
    // ONNX Runtime does when it resolves the graph.
    NXRT_ASSIGN_OR_RETURN(GraphEditor* outer, editors.For(graph));
    outer->NestedGraphChanged();
    NXRT_RETURN_IF_ERROR(outer->Commit());
    editors.Changed(*graph);
    *changed = true;
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
  for (const auto& pass : AllPasses()) {
    if (pass->level() > 0) known += (known.empty() ? "" : ", ") + std::string(pass->name());
  }
  for (const std::string& name : options.disabled) {
    auto found = std::find_if(AllPasses().begin(), AllPasses().end(),
                              [&](const auto& p) { return p->name() == name; });
    if (found == AllPasses().end()) {
      return MakeStatus(StatusCode::kInvalidArgument, "unknown optimizer pass '", name,
                        "'; the passes are: ", known);
    }
    if ((*found)->level() == 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "optimizer pass '", name,
                        "' always runs (no EP runs the nodes it rewrites), so it cannot be "
                        "switched off; the passes that can are: ", known);
    }
  }
  std::vector<PassReport> reports;
  if (model.graph == nullptr) return reports;
  Editors editors(model);
  std::vector<const GraphPass*> enabled;
  for (const auto& pass : AllPasses()) {
    if (pass->level() > options.level) continue;
    if (std::find(options.disabled.begin(), options.disabled.end(), pass->name()) !=
        options.disabled.end()) {
      continue;
    }
    enabled.push_back(pass.get());
    reports.push_back({std::string(pass->name()), 0});
  }
  // Round 1 runs every enabled pass in table order; later rounds run the level-1 passes again
  // (all but constant_sharing) while one of them still rewrites something, as ONNX Runtime's
  // transformer manager repeats its level-1 transformers, up to its default step limit.
  for (int round = 0; round < kLevel1Rounds; ++round) {
    bool changed = false;
    for (size_t i = 0; i < enabled.size(); ++i) {
      const GraphPass& pass = *enabled[i];
      if (round > 0 && (pass.level() != 1 || !pass.RepeatsInLaterRounds())) continue;
      bool graph_changed = false;
      Result<int> rewrites = ApplyRecursively(pass, editors, model.graph, &graph_changed);
      if (!rewrites.ok()) {
        return MakeStatus(rewrites.status().code(), "optimizer pass '", pass.name(),
                          "': ", rewrites.status().message());
      }
      reports[i].rewrites += *rewrites;
      changed = changed || (pass.level() == 1 && *rewrites > 0);
    }
    if (!changed) break;
    // At level 1 (the graph a plugin EP is shown) types are inferred again after a round that
    // rewrote, as ONNX Runtime infers them again after each rewrite: the next round's patterns
    // and the plugin see them.
    if (options.level == 1) ir::InferTypesAgain(model);
  }
  return reports;
}

}  // namespace nxrt::opt
