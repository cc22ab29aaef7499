// optimizer/passes/constant_folding.cpp: computes nodes whose inputs are all constant once, ahead
// of time, and replaces them by initializers.
//
// A node folds when every present input is a constant initializer (not a graph input, which a
// caller may feed) or an output of a node folded before it in the same sweep (Constant nodes,
// having no inputs, fold first), and ConstantEvaluator::CanFold accepts the op: default ONNX
// domain, deterministic, no subgraphs, not DequantizeLinear. The CPU EP's kernel computes it, so
// the initializer holds exactly what the node would have produced at run time. Nodes the CPU EP
// has no kernel for are left as they are.
#include "optimizer/passes.h"
#include "optimizer/passes/constant_evaluator.h"

namespace nxrt::opt {
namespace {

class ConstantFolding final : public GraphPass {
 public:
  std::string_view name() const override { return "constant_folding"; }
  int level() const override { return 1; }

  Result<int> Apply(GraphEditor& editor) const override {
    ConstantEvaluator evaluator(editor);
    int folded = 0;
    for (ir::NodeId id : editor.TopologicalOrder()) {
      if (!evaluator.CanFold(editor.node(id))) continue;
      NXRT_ASSIGN_OR_RETURN(bool done, evaluator.Fold(id));
      folded += done ? 1 : 0;
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return folded;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeConstantFoldingPass() { return std::make_unique<ConstantFolding>(); }

}  // namespace nxrt::opt
