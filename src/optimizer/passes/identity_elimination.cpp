// optimizer/passes/identity_elimination.cpp: removes nodes that copy their input: Identity, a
// Cast to the type its input already has, Add/Sub of 0 or Mul/Div by 1, and a Slice that takes
// its whole input (ONNX Runtime's EliminateIdentity, CastElimination, NoopElimination and
// EliminateSlice, rewrite rules it runs at level 1).
//
// Such a node N(x) → y copies x. Two rewrites make the copy disappear, under the conditions of
// ORT's node removal (its graph_utils::CanRemoveNode), so a plugin EP sees the nodes ORT keeps:
//   - y is not a graph output, no subgraph reads it by name, and x comes from a node of this
//     graph or is N's only input (Add(x, 0) of a graph input, an initializer or an outer-scope
//     value stays, as ORT only removes a node whose one input edge or one input it can rewire):
//     y's readers read x instead;
//   - Identity only: y is a graph output and x comes from a node of this graph whose only reader
//     is N (and x is no graph output): that node writes y directly (its output slot becomes y),
//     N goes. This is the common "output = Identity(last)" of exported models, whose copy of a
//     large output (a language model's logits) costs a full pass over it. A node may write
//     several graph outputs this way in one sweep (an If whose outputs each pass through an
//     Identity).
// x must be a tensor (or of unknown type); copies of sequences and optionals (Identity 14+) are
// left alone: runtime steps handle those. The arithmetic no-ops need a constant operand of one
// element equal to 0 (Add either side, Sub second) or 1 (Mul either side, Div second) with the
// element type of x and a rank no larger than x's known rank, so broadcasting keeps x's shape,
// and x not constant itself (constant_folding computes that node). The Slice takes starts all 0
// and ends all INT64_MAX (attributes before opset 10, constant int32/int64 inputs of one size
// since, with constant axes of that size and steps all 1 when given).
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
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
    // Producers whose output slots change in this commit, as rewritten so far.
    std::map<ir::NodeId, ir::Node> rewired;
    for (ir::NodeId id : editor.TopologicalOrder()) {
      const ir::Node& node = editor.node(id);
      if (!node.domain.empty() || node.outputs.size() != 1) continue;
      const ir::ValueId x = CopiedInput(editor, node);
      const ir::ValueId y = node.outputs[0];
      if (x == ir::kNoValue || y == ir::kNoValue || !IsTensorOrUnknown(editor, x)) continue;
      if (editor.IsGraphOutput(y)) {
        if (node.op_type != "Identity") continue;
        const ir::NodeId producer = editor.Producer(x);
        if (producer == ir::kNoNode || editor.IsRemoved(producer) || !editor.HasSingleUse(x)) {
          continue;
        }
        ir::Node& rewritten = rewired.try_emplace(producer, editor.node(producer)).first->second;
        for (ir::ValueId& out : rewritten.outputs) {
          if (out == x) out = y;
        }
      } else {
        bool read_by_subgraph = false;
        for (const ir::Consumer& c : editor.Consumers(y)) {
          read_by_subgraph = read_by_subgraph || c.slot == ir::kImplicitSlot;
        }
        if (read_by_subgraph) continue;
        if (node.inputs.size() > 1 && editor.Producer(x) == ir::kNoNode) continue;
        editor.ReplaceInputUses(y, x);
      }
      editor.RemoveNode(id);
      ++rewrites;
    }
    for (auto& [producer, rewritten] : rewired) {
      editor.RemoveNode(producer);
      editor.AddNode(std::move(rewritten), producer);
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return rewrites;
  }

 private:
  // The input `node` copies to its output, or kNoValue when it computes something else.
  static ir::ValueId CopiedInput(const GraphEditor& editor, const ir::Node& node) {
    const std::string& op = node.op_type;
    if (op == "Identity" && node.inputs.size() == 1) return node.inputs[0];
    if (op == "Cast" && node.inputs.size() == 1 && node.inputs[0] != ir::kNoValue) {
      const ir::TypeInfo& type = editor.value(node.inputs[0]).type;
      const int64_t to = GraphEditor::IntAttr(node, "to", -1);
      const bool same = type.kind == ir::TypeInfo::Kind::kTensor &&
                        static_cast<int64_t>(type.elem_type) == to;
      return same ? node.inputs[0] : ir::kNoValue;
    }
    if (op == "Slice" && !node.inputs.empty() && node.inputs[0] != ir::kNoValue) {
      return TakesWholeInput(editor, node) ? node.inputs[0] : ir::kNoValue;
    }
    const bool add = op == "Add", sub = op == "Sub", mul = op == "Mul", div = op == "Div";
    if (!(add || sub || mul || div) || node.inputs.size() != 2) return ir::kNoValue;
    const double neutral = add || sub ? 0.0 : 1.0;
    // (constant operand, copied operand): either order for Add and Mul, the second for Sub, Div.
    for (int c = 1; c >= ((add || mul) ? 0 : 1); --c) {
      const ir::ValueId other = node.inputs[1 - c];
      if (other != ir::kNoValue && IsNeutral(editor, node.inputs[c], other, neutral)) return other;
    }
    return ir::kNoValue;
  }

  // True when the Slice `node` takes its whole input: every start 0 and every end INT64_MAX.
  static bool TakesWholeInput(const GraphEditor& editor, const ir::Node& node) {
    std::vector<int64_t> starts, ends;
    if (editor.Opset(node) < 10) {
      starts = GraphEditor::IntsAttr(node, "starts");
      ends = GraphEditor::IntsAttr(node, "ends");
      const ir::Attribute* axes = node.FindAttribute("axes");
      if (axes != nullptr && axes->ints.size() != starts.size()) return false;
    } else {
      auto input = [&](size_t i) {
        return i < node.inputs.size() && node.inputs[i] != ir::kNoValue ? node.inputs[i]
                                                                          : ir::kNoValue;
      };
      if (input(1) == ir::kNoValue || input(2) == ir::kNoValue) return false;
      std::optional<std::vector<int64_t>> s =
          GraphEditor::IntElements(editor.Constant(input(1)));
      std::optional<std::vector<int64_t>> e =
          GraphEditor::IntElements(editor.Constant(input(2)));
      if (!s || !e) return false;
      starts = std::move(*s);
      ends = std::move(*e);
      if (input(3) != ir::kNoValue) {
        const Tensor* axes = editor.Constant(input(3));
        if (axes == nullptr || axes->shape().size() != 1 ||
            axes->shape()[0] != static_cast<int64_t>(starts.size())) {
          return false;
        }
      }
      if (input(4) != ir::kNoValue) {
        std::optional<std::vector<int64_t>> steps =
            GraphEditor::IntElements(editor.Constant(input(4)));
        if (!steps || steps->size() != starts.size()) return false;
        for (int64_t step : *steps) {
          if (step != 1) return false;
        }
      }
    }
    if (starts.empty() || starts.size() != ends.size()) return false;
    for (size_t i = 0; i < starts.size(); ++i) {
      if (starts[i] != 0 || ends[i] != std::numeric_limits<int64_t>::max()) return false;
    }
    return true;
  }

  // True when `constant` is a constant of one element equal to `neutral`, of `other`'s element
  // type, whose rank does not exceed `other`'s known rank, and `other` is not a constant.
  static bool IsNeutral(const GraphEditor& editor, ir::ValueId constant, ir::ValueId other,
                        double neutral) {
    const Tensor* t = editor.Constant(constant);
    if (t == nullptr || t->element_count() != 1 || editor.Constant(other) != nullptr) return false;
    const ir::TypeInfo& type = editor.value(other).type;
    if (type.kind != ir::TypeInfo::Kind::kTensor || type.elem_type != t->dtype()) return false;
    const std::optional<size_t> rank = editor.Rank(other);
    if (!rank || t->shape().size() > *rank) return false;
    switch (t->dtype()) {
      case DataType::kFloat: return t->data<float>()[0] == static_cast<float>(neutral);
      case DataType::kDouble: return t->data<double>()[0] == neutral;
      case DataType::kInt32: return t->data<int32_t>()[0] == static_cast<int32_t>(neutral);
      case DataType::kInt64: return t->data<int64_t>()[0] == static_cast<int64_t>(neutral);
      default: return false;
    }
  }

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
