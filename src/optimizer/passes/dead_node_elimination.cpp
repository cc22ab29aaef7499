// optimizer/passes/dead_node_elimination.cpp: removes nodes none of whose outputs is read.
//
// A node is dead when no node, subgraph or graph output reads any of its outputs, directly or
// through other dead nodes. Nodes with effects beyond their outputs are kept: none in the
// default ONNX domain has any, so only nodes of other domains (custom ops may do I/O) are kept
// regardless. Removal runs in reverse topological order, so a whole dead chain goes in one pass.
#include <vector>

#include "ep/cpu/nxrt_ops.h"
#include "optimizer/passes.h"

namespace nxrt::opt {
namespace {

class DeadNodeElimination final : public GraphPass {
 public:
  std::string_view name() const override { return "dead_node_elimination"; }
  int level() const override { return 1; }

  Result<int> Apply(GraphEditor& editor) const override {
    const ir::Graph& graph = editor.graph();
    // Readers still alive per value: uses by nodes (each node once per slot), subgraphs, or
    // the graph's outputs (counted as one reader that never goes away).
    std::vector<int> readers(graph.values.size(), 0);
    for (size_t v = 0; v < graph.values.size(); ++v) {
      readers[v] = static_cast<int>(editor.Consumers(static_cast<ir::ValueId>(v)).size()) +
                   (editor.IsGraphOutput(static_cast<ir::ValueId>(v)) ? 1 : 0);
    }
    int removed = 0;
    const std::vector<ir::NodeId>& order = editor.TopologicalOrder();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const ir::Node& node = editor.node(*it);
      if (!node.domain.empty() && node.domain != cpu::nxrt_ops::kDomain) continue;
      bool used = false;
      for (ir::ValueId out : node.outputs) used = used || (out != ir::kNoValue && readers[out] > 0);
      if (used) continue;
      editor.RemoveNode(*it);
      ++removed;
      for (ir::ValueId in : node.inputs) {
        if (in != ir::kNoValue) --readers[in];
      }
      for (ir::ValueId in : editor.view().implicit_inputs(*it)) --readers[in];
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return removed;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeDeadNodeEliminationPass() {
  return std::make_unique<DeadNodeElimination>();
}

}  // namespace nxrt::opt
