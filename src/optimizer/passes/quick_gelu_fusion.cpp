// optimizer/passes/quick_gelu_fusion.cpp: x * Sigmoid(alpha * x), the SiLU of Llama-style MLPs
// (alpha 1) and CLIP's QuickGelu (alpha 1.702) → com.microsoft:QuickGelu(x, alpha), as ONNX
// Runtime 1.30's QuickGeluFusion rewrites it at its default level (onnxruntime/core/optimizer/
// quick_gelu_fusion.cc, read for its pattern): one pass over the tensor instead of a Sigmoid and a
// Mul writing and reading an intermediate.
//
// Matched, all nodes of the default domain, binary ops in either operand order:
//   s = Sigmoid(x), y = Mul(x, s)                                → QuickGelu(x), alpha 1
//   u = Mul(x, c), s = Sigmoid(u), y = Mul(x, s)                 → QuickGelu(x), alpha c
// with c a one-element float constant of rank at most x's (it then never changes the shape). u
// and s are read once, inside the pattern, and are no graph outputs; x may have other readers (it
// stays). x is float (the CPU EP's QuickGelu is float only): by its type; with c, by c's (Mul
// takes one type T); or, when the model leaves x untyped, because every CPU EP kernel of its
// producer's op writes that output in float only (ONNX 1.12's type inference does not know the
// com.microsoft ops, so a SiLU after MatMulNBits has no type). The fused node takes over y; it is
// named after the last Mul (`<name>/QuickGeluFusion/`, ONNX Runtime's naming). Results differ by
// float rounding only: the kernel computes x * sigmoid(alpha * x) (math/contrib/
// transformer_ops.h).
//
// The pass runs after matmul_activation_fusion and conv_activation_fusion, which move the same
// pattern (their "Swish") into a MatMul's or Conv's epilogue when it follows one; what they leave
// (the SiLU after MatMulNBits, say) is fused here.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "optimizer/passes.h"
#include "optimizer/passes/activation_match.h"
#include "optimizer/passes/constant_evaluator.h"
#include "optimizer/passes/transformer_match.h"

namespace nxrt::opt {
namespace {

using match::OtherInput;
using match::ProducerOp;
using match::SingleConsumerOp;

struct Match {
  ir::ValueId x = ir::kNoValue;
  float alpha = 1.0f;
  std::vector<ir::NodeId> nodes;  // the pattern, the Mul writing y last
};

// True when `v` is float by its type or, untyped, by its producer's CPU kernels (file comment).
bool IsFloat(const GraphEditor& editor, ir::ValueId v) {
  if (fuse::IsFloatTensor(editor, v)) return true;
  const ir::NodeId id = editor.Producer(v);
  if (editor.value(v).type.known() || id == ir::kNoNode) return false;
  const ir::Node& producer = editor.node(id);
  const auto slot = static_cast<int>(
      std::find(producer.outputs.begin(), producer.outputs.end(), v) - producer.outputs.begin());
  bool float_only = false;
  for (const ep::KernelDef* def : CpuKernels().Entries()) {
    if (def->domain != producer.domain || def->op_type != producer.op_type) continue;
    for (const ep::TypeConstraint& t : def->types) {
      if (std::find(t.outputs.begin(), t.outputs.end(), slot) == t.outputs.end()) continue;
      if (t.allowed != std::vector<DataType>{DataType::kFloat}) return false;
      float_only = true;
    }
  }
  return float_only;
}

// The pattern around `sigmoid` (file comment), or nullopt.
std::optional<Match> MatchAround(const GraphEditor& editor, const ir::Node& sigmoid) {
  if (sigmoid.inputs.size() != 1 || sigmoid.outputs.size() != 1) return std::nullopt;
  const ir::ValueId s = sigmoid.outputs[0];
  const ir::Node* mul = SingleConsumerOp(editor, s, "Mul");
  if (mul == nullptr || editor.IsRemoved(mul->id) || mul->outputs.size() != 1 ||
      mul->inputs.size() != 2 || mul->inputs[0] == mul->inputs[1]) {
    return std::nullopt;
  }
  const ir::ValueId gated = OtherInput(*mul, s);
  Match m;
  const ir::ValueId u = sigmoid.inputs[0];
  // Mul(x, c) feeding the Sigmoid, with x the value the last Mul gates.
  if (const ir::Node* scale = ProducerOp(editor, u, "Mul");
      scale != nullptr && !editor.IsRemoved(scale->id) && editor.HasSingleUse(u) &&
      OtherInput(*scale, gated) != ir::kNoValue && scale->inputs[0] != scale->inputs[1]) {
    const std::optional<float> c =
        fuse::ScalarFloat(editor, OtherInput(*scale, gated), editor.Rank(gated).value_or(0));
    if (c) {
      m.x = gated;
      m.alpha = *c;
      m.nodes = {scale->id, sigmoid.id, mul->id};
      return m;
    }
  }
  if (u != gated || !IsFloat(editor, u)) return std::nullopt;
  m.x = u;
  m.nodes = {sigmoid.id, mul->id};
  return m;
}

class QuickGeluFusion final : public GraphPass {
 public:
  std::string_view name() const override { return "quick_gelu_fusion"; }
  int level() const override { return 2; }

  Result<int> Apply(GraphEditor& editor) const override {
    int fused = 0;
    for (ir::NodeId id : editor.TopologicalOrder()) {
      const ir::Node& n = editor.node(id);
      if (!n.domain.empty() || n.op_type != "Sigmoid" || editor.IsRemoved(id)) continue;
      const std::optional<Match> m = MatchAround(editor, n);
      if (!m) continue;
      const ir::Node& last = editor.node(m->nodes.back());
      ir::Node gelu;
      gelu.op_type = "QuickGelu";
      gelu.domain = "com.microsoft";
      gelu.name = last.name + "/QuickGeluFusion/";
      gelu.inputs = {m->x};
      gelu.outputs = {last.outputs[0]};
      ir::Attribute alpha;
      alpha.name = "alpha";
      alpha.type = ir::Attribute::Type::kFloat;
      alpha.f = m->alpha;
      gelu.attributes = {alpha};
      const ir::NodeId anchor = last.id;
      for (ir::NodeId p : m->nodes) editor.RemoveNode(p);
      editor.AddNode(std::move(gelu), anchor);
      ++fused;
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return fused;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeQuickGeluFusionPass() {
  return std::make_unique<QuickGeluFusion>();
}

}  // namespace nxrt::opt
