// optimizer/passes/identity_elimination.cpp: removes Identity nodes on tensors.
//
// Identity(x) → y copies x. Two rewrites make the copy disappear:
//   - y is a graph output and x comes from a node of this graph whose only reader is the
//     Identity (and x is no graph output): that node writes y directly (its output slot becomes
//     y), the Identity goes. This is the common "output = Identity(last)" of exported models,
//     whose copy of a large output (a language model's logits) costs a full pass over it.
//   - y is not a graph output and no subgraph reads it by name: y's readers read x instead.
// Identity of sequences and optionals (opset 14+) is left alone: runtime steps handle those.
#include <set>
#include <vector>

#include "optimizer/passes.h"

namespace nxrt::opt {
namespace {

class IdentityElimination final : public GraphPass {
 public:
  std::string_view name() const override { return "identity_elimination"; }
  int level() const override { return 1; }

  Result<int> Apply(GraphEditor& editor) const override {
    int rewrites = 0;
    std::set<ir::NodeId> rewired;  // producers whose output slot changes in this commit
    for (ir::NodeId id : editor.TopologicalOrder()) {
      const ir::Node& node = editor.node(id);
      if (node.op_type != "Identity" || !node.domain.empty() || node.inputs.size() != 1 ||
          node.outputs.size() != 1) {
        continue;
      }
      const ir::ValueId x = node.inputs[0];
      const ir::ValueId y = node.outputs[0];
      if (x == ir::kNoValue || y == ir::kNoValue || !IsTensorOrUnknown(editor, x)) continue;
      if (editor.IsGraphOutput(y)) {
        const ir::NodeId producer = editor.Producer(x);
        if (producer == ir::kNoNode || rewired.count(producer) || editor.IsRemoved(producer) ||
            !editor.HasSingleUse(x)) {
          continue;
        }
        ir::Node rewritten = editor.node(producer);
        for (ir::ValueId& out : rewritten.outputs) {
          if (out == x) out = y;
        }
        editor.RemoveNode(producer);
        editor.AddNode(std::move(rewritten), producer);
        rewired.insert(producer);
      } else {
        bool read_by_subgraph = false;
        for (const ir::Consumer& c : editor.Consumers(y)) {
          read_by_subgraph = read_by_subgraph || c.slot == ir::kImplicitSlot;
        }
        if (read_by_subgraph) continue;
        editor.ReplaceInputUses(y, x);
      }
      editor.RemoveNode(id);
      ++rewrites;
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return rewrites;
  }

 private:
  static bool IsTensorOrUnknown(const GraphEditor& editor, ir::ValueId v) {
    const ir::TypeInfo::Kind kind = editor.value(v).type.kind;
    return kind == ir::TypeInfo::Kind::kTensor || kind == ir::TypeInfo::Kind::kUnknown;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeIdentityEliminationPass() {
  return std::make_unique<IdentityElimination>();
}

}  // namespace nxrt::opt
