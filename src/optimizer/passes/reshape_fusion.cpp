// optimizer/passes/reshape_fusion.cpp: replaces the computed shape input of a Reshape by a
// constant when every element of it is a constant, a dim of the Reshape's own input at the same
// position, or the one element left to infer, as ONNX Runtime 1.30's ReshapeFusion (a level-1
// rewrite it makes before showing a plugin EP the graph) does.
//
// Matched: Reshape (since opset 5; not with allowzero 1, where a 0 is a size) whose shape input is the one use of a Concat's output (no
// graph output, no subgraph read). Each Concat input i, in order, with n elements of the target
// taken so far, is one of
//   - a constant of int64 or int32 elements: those elements;
//   - Unsqueeze(axes [0]; attribute, or constant input from opset 13) of Gather(Shape(X), n)
//     with a constant index n, where X is the Reshape's input (or a value whose type gives the
//     same shape): 0, Reshape's "copy this dim";
//   - a one-element value, which Reshape may leave to infer: -1. One element means the input's
//     type gives a shape of fixed dims whose product is 1, or it is Unsqueeze(axes [0]) of such a
//     value, of Gather(Shape(·), one-element index), of Squeeze(Slice(Shape(X), one start, one
//     end one apart)) or of Div/Mul whose inputs are each a one-element value or such a Squeeze.
// Anything else, or a second -1 (from a constant or an inferred element), and the Reshape stays.
// The Concat's output becomes an int64 constant [shape] under the same name; the nodes that made
// its inputs go when nothing else reads them, up the chain (Unsqueeze, Gather, Shape, ...).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "optimizer/passes.h"

namespace nxrt::opt {
namespace {

// The node producing `v` if it is a live default-domain node of type `op_type`, else null.
const ir::Node* ProducerOf(const GraphEditor& editor, ir::ValueId v, std::string_view op_type) {
  if (v == ir::kNoValue) return nullptr;
  const ir::NodeId id = editor.Producer(v);
  if (id == ir::kNoNode || editor.IsRemoved(id)) return nullptr;
  const ir::Node& node = editor.node(id);
  if (node.op_type != op_type || !node.domain.empty() || node.inputs.empty()) return nullptr;
  return &node;
}

// True when `v`'s type gives a shape of fixed dims whose product is 1.
bool OneElementType(const GraphEditor& editor, ir::ValueId v) {
  if (v == ir::kNoValue) return false;
  const ir::TypeInfo& type = editor.value(v).type;
  if (type.kind != ir::TypeInfo::Kind::kTensor || !type.shape) return false;
  int64_t count = 1;
  for (const ir::Dim& d : *type.shape) {
    if (!d.is_fixed()) return false;
    count *= d.value;
  }
  return count == 1;
}

// The Unsqueeze producing `v` when it inserts axis 0 only (attribute before opset 13, constant
// input since), else null.
const ir::Node* UnsqueezeAxis0(const GraphEditor& editor, ir::ValueId v) {
  const ir::Node* unsqueeze = ProducerOf(editor, v, "Unsqueeze");
  if (unsqueeze == nullptr) return nullptr;
  std::vector<int64_t> axes;
  if (editor.Opset(*unsqueeze) >= 13) {
    if (unsqueeze->inputs.size() < 2) return nullptr;
    std::optional<std::vector<int64_t>> given =
        GraphEditor::IntElements(editor.Constant(unsqueeze->inputs[1]));
    if (!given) return nullptr;
    axes = *given;
  } else {
    axes = GraphEditor::IntsAttr(*unsqueeze, "axes");
  }
  return axes.size() == 1 && axes[0] == 0 ? unsqueeze : nullptr;
}

// The Shape producing `v` when it reports its whole input (no start/end of opset 15 other than
// the defaults), else null.
const ir::Node* WholeShape(const GraphEditor& editor, ir::ValueId v) {
  const ir::Node* shape = ProducerOf(editor, v, "Shape");
  if (shape == nullptr) return nullptr;
  for (const ir::Attribute& attr : shape->attributes) {
    if (attr.name == "end" || (attr.name == "start" && attr.i != 0)) return nullptr;
  }
  return shape;
}

// True when `x` is `root`, or both types give the same shape (every dim equal).
bool SameShapeAsRoot(const GraphEditor& editor, ir::ValueId x, ir::ValueId root) {
  if (x == root) return true;
  const ir::TypeInfo& a = editor.value(x).type;
  const ir::TypeInfo& b = editor.value(root).type;
  if (a.kind != ir::TypeInfo::Kind::kTensor || b.kind != ir::TypeInfo::Kind::kTensor ||
      !a.shape || !b.shape || a.shape->size() != b.shape->size()) {
    return false;
  }
  for (size_t i = 0; i < a.shape->size(); ++i) {
    const ir::Dim& p = (*a.shape)[i];
    const ir::Dim& q = (*b.shape)[i];
    if (p.kind == ir::Dim::Kind::kUnknown || !(p == q)) return false;
  }
  return true;
}

// Squeeze(Slice(Shape(root), start, end)) producing `v` with one start and one end one apart (or
// -1 to the end): one dim of `root`.
bool SqueezedShapeSlice(const GraphEditor& editor, ir::ValueId v, ir::ValueId root) {
  const ir::Node* squeeze = ProducerOf(editor, v, "Squeeze");
  if (squeeze == nullptr) return false;
  const ir::Node* slice = ProducerOf(editor, squeeze->inputs[0], "Slice");
  if (slice == nullptr) return false;
  const ir::Node* shape = ProducerOf(editor, slice->inputs[0], "Shape");
  if (shape == nullptr || shape->inputs[0] != root) return false;
  std::optional<std::vector<int64_t>> starts;
  std::optional<std::vector<int64_t>> ends;
  if (editor.Opset(*slice) >= 10) {
    if (slice->inputs.size() < 3) return false;
    starts = GraphEditor::IntElements(editor.Constant(slice->inputs[1]));
    ends = GraphEditor::IntElements(editor.Constant(slice->inputs[2]));
  } else {
    starts = GraphEditor::IntsAttr(*slice, "starts");
    ends = GraphEditor::IntsAttr(*slice, "ends");
  }
  if (!starts || !ends || starts->size() != 1 || ends->size() != 1) return false;
  const int64_t start = (*starts)[0];
  const int64_t end = (*ends)[0];
  return (start == -1 && end >= std::numeric_limits<int32_t>::max()) || end - start == 1 ||
         start - end == 1;
}

// True when Concat input `v` is one element Reshape may infer (the file comment's last case).
bool OneElementSubgraph(const GraphEditor& editor, ir::ValueId v, ir::ValueId root) {
  if (OneElementType(editor, v)) return true;
  const ir::Node* unsqueeze = UnsqueezeAxis0(editor, v);
  if (unsqueeze == nullptr) return false;
  const ir::ValueId inner = unsqueeze->inputs[0];
  if (const ir::Node* gather = ProducerOf(editor, inner, "Gather")) {
    if (gather->inputs.size() == 2 && WholeShape(editor, gather->inputs[0]) != nullptr) {
      return OneElementType(editor, gather->inputs[1]);
    }
  }
  const ir::Node* binary = ProducerOf(editor, inner, "Div");
  if (binary == nullptr) binary = ProducerOf(editor, inner, "Mul");
  if (binary != nullptr) {
    for (ir::ValueId operand : binary->inputs) {
      if (!OneElementType(editor, operand) && !SqueezedShapeSlice(editor, operand, root)) {
        return false;
      }
    }
    return true;
  }
  return OneElementType(editor, inner) || SqueezedShapeSlice(editor, inner, root);
}

// True when Concat input `v` is dim `position` of `root` (Unsqueeze(Gather(Shape(X), position))).
bool DimOfRoot(const GraphEditor& editor, ir::ValueId v, ir::ValueId root, size_t position) {
  const ir::Node* unsqueeze = UnsqueezeAxis0(editor, v);
  if (unsqueeze == nullptr) return false;
  const ir::Node* gather = ProducerOf(editor, unsqueeze->inputs[0], "Gather");
  if (gather == nullptr || gather->inputs.size() != 2) return false;
  const ir::Node* shape = WholeShape(editor, gather->inputs[0]);
  if (shape == nullptr) return false;
  std::optional<std::vector<int64_t>> index =
      GraphEditor::IntElements(editor.Constant(gather->inputs[1]));
  if (!index || index->size() != 1 || (*index)[0] != static_cast<int64_t>(position)) return false;
  return SameShapeAsRoot(editor, shape->inputs[0], root);
}

// Removes `start` and, up its inputs, every node all of whose outputs are read only by nodes
// removed here (or already removed), none a graph output or read by a subgraph.
void RemoveChain(GraphEditor& editor, ir::NodeId start, ir::NodeId concat) {
  std::vector<ir::NodeId> pending = {start};
  while (!pending.empty()) {
    const ir::NodeId id = pending.back();
    pending.pop_back();
    if (editor.IsRemoved(id)) continue;
    const ir::Node& node = editor.node(id);
    bool unread = true;
    for (ir::ValueId out : node.outputs) {
      if (out == ir::kNoValue) continue;
      if (editor.IsGraphOutput(out)) unread = false;
      for (const ir::Consumer& use : editor.Consumers(out)) {
        if (use.slot == ir::kImplicitSlot || (use.node != concat && !editor.IsRemoved(use.node))) {
          unread = false;
        }
      }
    }
    if (!unread) continue;
    editor.RemoveNode(id);
    for (ir::ValueId in : node.inputs) {
      const ir::NodeId producer = in == ir::kNoValue ? ir::kNoNode : editor.Producer(in);
      if (producer != ir::kNoNode) pending.push_back(producer);
    }
  }
}

class ReshapeFusion final : public GraphPass {
 public:
  std::string_view name() const override { return "reshape_fusion"; }
  int level() const override { return 1; }

  Result<int> Apply(GraphEditor& editor) const override {
    int fused = 0;
    for (ir::NodeId id : editor.TopologicalOrder()) {
      if (editor.IsRemoved(id)) continue;
      const ir::Node& reshape = editor.node(id);
      if (reshape.op_type != "Reshape" || !reshape.domain.empty() || reshape.inputs.size() < 2 ||
          editor.Opset(reshape) < 5 || GraphEditor::IntAttr(reshape, "allowzero", 0) != 0) {
        continue;
      }
      if (TryFuse(editor, reshape)) ++fused;
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return fused;
  }

 private:
  static bool TryFuse(GraphEditor& editor, const ir::Node& reshape) {
    const ir::ValueId root = reshape.inputs[0];
    const ir::ValueId target = reshape.inputs[1];
    const ir::NodeId concat_id = target == ir::kNoValue ? ir::kNoNode : editor.Producer(target);
    if (concat_id == ir::kNoNode || editor.IsRemoved(concat_id) || !editor.HasSingleUse(target)) {
      return false;
    }
    const ir::Node& concat = editor.node(concat_id);
    if (concat.op_type != "Concat" || !concat.domain.empty()) return false;
    std::vector<int64_t> shape;
    for (ir::ValueId input : concat.inputs) {
      if (std::optional<std::vector<int64_t>> values =
              GraphEditor::IntElements(editor.Constant(input))) {
        shape.insert(shape.end(), values->begin(), values->end());
      } else if (DimOfRoot(editor, input, root, shape.size())) {
        shape.push_back(0);
      } else if (OneElementSubgraph(editor, input, root)) {
        shape.push_back(-1);
      } else {
        return false;
      }
    }
    if (std::count(shape.begin(), shape.end(), int64_t{-1}) > 1) return false;
    Result<Tensor> constant =
        Tensor::FromVector<int64_t>({static_cast<int64_t>(shape.size())}, shape);
    if (!constant.ok()) return false;
    editor.RemoveNode(concat_id);
    editor.BindConstant(target, std::move(constant).value());
    for (ir::ValueId input : concat.inputs) {
      const ir::NodeId producer = input == ir::kNoValue ? ir::kNoNode : editor.Producer(input);
      if (producer != ir::kNoNode) RemoveChain(editor, producer, concat_id);
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeReshapeFusionPass() { return std::make_unique<ReshapeFusion>(); }

}  // namespace nxrt::opt
