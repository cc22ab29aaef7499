// optimizer/passes/gelu_fusion.cpp: GELU written out as elementwise ops (how PyTorch exports
// nn.GELU and how GPT-2 writes its "gelu_new") → com.nxrt:Gelu, Gelu-20's semantics.
//
// Matched (all nodes of the default domain, every constant a one-element float constant compared
// with a relative tolerance of 1e-4, binary ops in either operand order):
//   approximate = "none":  u = Div(x, sqrt(2)) or Mul(x, 1/sqrt(2));  e = Erf(u)
//   approximate = "tanh":  c = Pow(x, 3) or Mul(Mul(x, x), x);  i = Add(x, Mul(c, 0.044715));
//                          e = Tanh(Mul(i, sqrt(2/pi)))
// then a = Add(e, 1) and the product of x, 0.5 and a in any of the groupings
//   Mul(Mul(a, 0.5), x), Mul(Mul(a, x), 0.5), Mul(Mul(x, 0.5), a).
// The float constants make x float (the ops take one type T). Every intermediate value is read
// once, inside the pattern, and is no graph output. The constants have rank 0, or at most the
// rank of the value they scale when its type states it, so they never change the shape and
// Gelu(x) takes over the last Mul's output. Gelu-20 defines exactly these formulas: 0.5 x (1 +
// erf(x / sqrt(2))) and 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), so results differ only by
// float rounding.
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "ep/cpu/nxrt_ops.h"
#include "optimizer/passes.h"
#include "optimizer/passes/transformer_match.h"

namespace nxrt::opt {
namespace {

using match::Near;
using match::OtherInput;
using match::ProducerOp;
using match::ScalarConstant;
using match::SingleConsumerOp;

struct GeluMatch {
  std::vector<ir::NodeId> nodes;  // every node of the pattern
  ir::ValueId x = ir::kNoValue;
  ir::NodeId last = ir::kNoNode;  // its output is the fused node's output
  bool tanh = false;
};

// The rank a constant scaling `x` may have: x's when its type states it, else 0.
size_t MaxConstantRank(const GraphEditor& editor, ir::ValueId x) {
  return editor.Rank(x).value_or(0);
}

// True when `v` is a one-element float constant near `expected` that does not raise the rank of
// `x`, the value it scales.
bool IsScalar(const GraphEditor& editor, ir::ValueId v, double expected, ir::ValueId x) {
  return v != ir::kNoValue &&
         Near(match::FloatScalar(editor, v, MaxConstantRank(editor, x)), expected);
}

// For a Mul or Div `n` of a value and a one-element constant near `expected` (of rank at most
// the value's): the value, which must be input `operand_slot` (either when -1); else kNoValue.
ir::ValueId OperandScaledBy(const GraphEditor& editor, const ir::Node& n, double expected,
                            int operand_slot) {
  if (n.inputs.size() != 2) return ir::kNoValue;
  for (int slot : {0, 1}) {
    if (operand_slot >= 0 && slot != operand_slot) continue;
    const ir::ValueId operand = n.inputs[static_cast<size_t>(slot)];
    if (IsScalar(editor, n.inputs[static_cast<size_t>(1 - slot)], expected, operand)) {
      return operand;
    }
  }
  return ir::kNoValue;
}

// Erf branch: e = Erf(Div(x, sqrt 2) or Mul(x, 1/sqrt 2)); fills x and the nodes.
bool MatchErf(const GraphEditor& editor, const ir::Node& erf, GeluMatch& m) {
  const ir::ValueId u = erf.inputs[0];
  if (!editor.HasSingleUse(u)) return false;
  if (const ir::Node* div = ProducerOp(editor, u, "Div")) {
    m.x = OperandScaledBy(editor, *div, std::numbers::sqrt2, 0);
    m.nodes = {div->id, erf.id};
  } else if (const ir::Node* mul = ProducerOp(editor, u, "Mul")) {
    m.x = OperandScaledBy(editor, *mul, 1.0 / std::numbers::sqrt2, -1);
    m.nodes = {mul->id, erf.id};
  }
  return m.x != ir::kNoValue;
}

// x^3 as Pow(x, 3) or Mul(Mul(x, x), x) (either order), `cube` read once; appends its nodes.
bool IsCubeOf(const GraphEditor& editor, ir::ValueId cube, ir::ValueId x,
              std::vector<ir::NodeId>& nodes) {
  if (!editor.HasSingleUse(cube)) return false;
  if (const ir::Node* pow = ProducerOp(editor, cube, "Pow")) {
    if (pow->inputs.size() != 2 || pow->inputs[0] != x ||
        !Near(ScalarConstant(editor, pow->inputs[1], MaxConstantRank(editor, x)), 3.0, 0.0)) {
      return false;
    }
    nodes.push_back(pow->id);
    return true;
  }
  const ir::Node* outer = ProducerOp(editor, cube, "Mul");
  if (outer == nullptr) return false;
  const ir::ValueId square = OtherInput(*outer, x);
  const ir::Node* inner = ProducerOp(editor, square, "Mul");
  if (inner == nullptr || !editor.HasSingleUse(square) || inner->inputs[0] != x ||
      inner->inputs[1] != x) {
    return false;
  }
  nodes.push_back(inner->id);
  nodes.push_back(outer->id);
  return true;
}

// Tanh branch: e = Tanh(Mul(Add(x, Mul(x^3, 0.044715)), sqrt(2/pi))); fills x and the nodes.
bool MatchTanh(const GraphEditor& editor, const ir::Node& tanh, GeluMatch& m) {
  const ir::ValueId w = tanh.inputs[0];
  const ir::Node* scale = ProducerOp(editor, w, "Mul");
  if (scale == nullptr || !editor.HasSingleUse(w)) return false;
  const ir::ValueId inner = OperandScaledBy(editor, *scale, std::sqrt(2.0 / std::numbers::pi), -1);
  const ir::Node* add = ProducerOp(editor, inner, "Add");
  if (add == nullptr || !editor.HasSingleUse(inner) || add->inputs.size() != 2) return false;
  for (int slot : {0, 1}) {
    const ir::ValueId x = add->inputs[static_cast<size_t>(slot)];
    const ir::ValueId term = add->inputs[static_cast<size_t>(1 - slot)];
    const ir::Node* mul = ProducerOp(editor, term, "Mul");
    if (mul == nullptr || !editor.HasSingleUse(term)) continue;
    const ir::ValueId cube = OperandScaledBy(editor, *mul, 0.044715, -1);
    std::vector<ir::NodeId> nodes;
    if (cube == ir::kNoValue || !IsCubeOf(editor, cube, x, nodes)) continue;
    m.x = x;
    m.nodes = nodes;
    m.nodes.insert(m.nodes.end(), {mul->id, add->id, scale->id, tanh.id});
    m.tanh = true;
    return true;
  }
  return false;
}

// a = Add(e, 1), then 0.5 * x * a in one of the groupings of the file comment; appends the nodes
// and sets the last one.
bool MatchProduct(const GraphEditor& editor, ir::ValueId e, GeluMatch& m) {
  const ir::Node* add = SingleConsumerOp(editor, e, "Add");
  if (add == nullptr || OtherInput(*add, e) == e ||
      !IsScalar(editor, OtherInput(*add, e), 1.0, m.x)) {
    return false;
  }
  const ir::ValueId a = add->outputs[0];
  const ir::Node* first = SingleConsumerOp(editor, a, "Mul");
  if (first == nullptr) return false;
  const ir::ValueId other = OtherInput(*first, a);
  if (other == a) return false;
  m.nodes.push_back(add->id);
  m.nodes.push_back(first->id);
  if (IsScalar(editor, other, 0.5, m.x) || other == m.x) {
    // Mul(Mul(a, 0.5), x) or Mul(Mul(a, x), 0.5).
    const ir::Node* second = SingleConsumerOp(editor, first->outputs[0], "Mul");
    if (second == nullptr) return false;
    const ir::ValueId rest = OtherInput(*second, first->outputs[0]);
    const bool ok = other == m.x ? IsScalar(editor, rest, 0.5, m.x) : rest == m.x;
    if (!ok) return false;
    m.nodes.push_back(second->id);
    m.last = second->id;
    return true;
  }
  // Mul(Mul(x, 0.5), a).
  const ir::Node* half = ProducerOp(editor, other, "Mul");
  if (half == nullptr || !editor.HasSingleUse(other) ||
      OperandScaledBy(editor, *half, 0.5, -1) != m.x) {
    return false;
  }
  m.nodes.push_back(half->id);
  m.last = first->id;
  return true;
}

class GeluFusion final : public GraphPass {
 public:
  std::string_view name() const override { return "gelu_fusion"; }
  int level() const override { return 2; }

  Result<int> Apply(GraphEditor& editor) const override {
    int fused = 0;
    for (ir::NodeId id : editor.TopologicalOrder()) {
      const ir::Node& n = editor.node(id);
      if (!n.domain.empty() || (n.op_type != "Erf" && n.op_type != "Tanh")) continue;
      if (n.inputs.size() != 1 || n.outputs.size() != 1) continue;
      GeluMatch m;
      const bool core = n.op_type == "Erf" ? MatchErf(editor, n, m) : MatchTanh(editor, n, m);
      if (!core || !MatchProduct(editor, n.outputs[0], m)) {
        continue;
      }
      ir::Node gelu;
      gelu.op_type = std::string(cpu::nxrt_ops::kGelu);
      gelu.domain = std::string(cpu::nxrt_ops::kDomain);
      gelu.name = editor.node(m.last).name + "_gelu";
      gelu.inputs = {m.x};
      gelu.outputs = {editor.node(m.last).outputs[0]};
      ir::Attribute approximate;
      approximate.name = "approximate";
      approximate.type = ir::Attribute::Type::kString;
      approximate.s = m.tanh ? "tanh" : "none";
      gelu.attributes = {approximate};
      for (ir::NodeId p : m.nodes) editor.RemoveNode(p);
      editor.AddNode(std::move(gelu), m.last);
      ++fused;
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return fused;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeGeluFusionPass() { return std::make_unique<GeluFusion>(); }

}  // namespace nxrt::opt
