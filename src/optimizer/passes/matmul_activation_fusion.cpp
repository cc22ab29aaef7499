// optimizer/passes/matmul_activation_fusion.cpp: MatMul (+ bias) (+ activation) →
// com.nxrt:FusedMatMul, Gemm + activation → com.nxrt:FusedGemm (level 2).
//
// Matched (float: some input of the MatMul or Gemm is a float constant or typed float;
// default-domain nodes, each node read only by the next one of the pattern and
// no intermediate a graph output):
//   y = MatMul(A, B), B of rank >= 2 with N = B's last dim known (from the constant or the type);
//   optionally b = Add(y, bias) in either order, bias a float constant of shape [N] or
//   [1, ..., 1, N] of rank at most y's (so the Add neither broadcasts y nor changes its shape);
//   optionally an activation of the result (activation_match.h: Relu, LeakyRelu, Clip, Sigmoid,
//   Tanh, Gelu, GeluTanh, Swish); at least one of the two.
//   → FusedMatMul(A, B, bias?) with `activation`, `activation_alpha`, `activation_beta`.
//   y = Gemm(A, B, C?) (opset >= 7: C broadcasts unidirectionally) followed by an activation
//   → FusedGemm(A, B, C?) with Gemm's attributes and the activation's.
// The kernels compute act(A @ B + bias) and act(Gemm(A, B, C)) with the bias and activation as
// oneDNN post-ops over the product in float, so results differ from the unfused nodes only by
// float rounding. The fused node takes over the pattern's last output and sits where its last
// node was (after every producer of the pattern's inputs).
#include <string>
#include <string_view>
#include <vector>

#include "ep/cpu/nxrt_ops.h"
#include "optimizer/passes.h"
#include "optimizer/passes/activation_match.h"

namespace nxrt::opt {
namespace {

using fuse::Activation;

// The activations FusedMatMul and FusedGemm take (ep/cpu/nxrt_ops.h).
const std::vector<std::string>& MatMulActivations() {
  static const std::vector<std::string> names =
      cpu::nxrt_ops::FusedActivationNames(&cpu::nxrt_ops::FusedActivation::matmul);
  return names;
}

bool IsDefault(const ir::Node& n, std::string_view op_type) {
  return n.domain.empty() && n.op_type == op_type;
}

// B's last dim (N) when B has rank >= 2 and N is known, else -1.
int64_t ColumnsOfB(const GraphEditor& editor, ir::ValueId b) {
  if (const Tensor* t = editor.Constant(b)) {
    return t->shape().size() >= 2 ? t->shape().back() : -1;
  }
  const ir::TypeInfo& type = editor.value(b).type;
  if (!type.shape || type.shape->size() < 2 || !type.shape->back().is_fixed()) return -1;
  return type.shape->back().value;
}

// True when `t` is a float [N] or [1, ..., 1, N] of rank at most `max_rank`.
bool IsBiasRow(const Tensor& t, int64_t n, size_t max_rank) {
  const Shape& s = t.shape();
  if (t.dtype() != DataType::kFloat || s.empty() || s.size() > max_rank || s.back() != n) {
    return false;
  }
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] != 1) return false;
  }
  return true;
}

// A node of the com.nxrt domain named after `like`, with `like`'s attributes when `copy_attrs`.
ir::Node FusedNode(const ir::Node& like, std::string_view op_type, bool copy_attrs) {
  ir::Node node;
  node.op_type = std::string(op_type);
  node.domain = std::string(cpu::nxrt_ops::kDomain);
  node.name = like.name;
  if (copy_attrs) node.attributes = like.attributes;
  return node;
}

class MatMulActivationFusion final : public GraphPass {
 public:
  std::string_view name() const override { return "matmul_activation_fusion"; }
  int level() const override { return 2; }

  Result<int> Apply(GraphEditor& editor) const override {
    int rewrites = 0;
    for (ir::NodeId id : editor.TopologicalOrder()) {
      if (editor.IsRemoved(id)) continue;
      const ir::Node& n = editor.node(id);
      if (n.outputs.size() != 1 || !fuse::HasFloatOperand(editor, n)) continue;
      if (IsDefault(n, "MatMul") && n.inputs.size() == 2) {
        rewrites += FuseMatMul(editor, n) ? 1 : 0;
      } else if (IsDefault(n, "Gemm") && editor.Opset(n) >= 7) {
        rewrites += FuseGemm(editor, n) ? 1 : 0;
      }
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return rewrites;
  }

 private:
  static bool FuseMatMul(GraphEditor& editor, const ir::Node& matmul) {
    const ir::ValueId y = matmul.outputs[0];
    ir::ValueId bias = ir::kNoValue;
    const ir::Node* add = nullptr;
    const int64_t n = ColumnsOfB(editor, matmul.inputs[1]);
    if (editor.HasSingleUse(y) && n >= 0) {
      const ir::Node& reader = editor.node(editor.Consumers(y)[0].node);
      const ir::ValueId other =
          reader.inputs.size() == 2 && reader.inputs[0] != reader.inputs[1]
              ? (reader.inputs[0] == y ? reader.inputs[1] : reader.inputs[0])
              : ir::kNoValue;
      const Tensor* t = editor.Constant(other);
      if (IsDefault(reader, "Add") && !editor.IsRemoved(reader.id) && t != nullptr &&
          IsBiasRow(*t, n, editor.Rank(y).value_or(1))) {
        add = &reader;
        bias = other;
      }
    }
    const ir::ValueId before_activation = add != nullptr ? add->outputs[0] : y;
    const std::optional<Activation> act =
        fuse::MatchActivation(editor, before_activation, MatMulActivations());
    if (add == nullptr && !act) return false;
    ir::Node fused = FusedNode(matmul, cpu::nxrt_ops::kFusedMatMul, false);
    fused.inputs = {matmul.inputs[0], matmul.inputs[1]};
    if (bias != ir::kNoValue) fused.inputs.push_back(bias);
    fused.outputs = {act ? act->output : before_activation};
    fuse::AddActivationAttributes(act ? &*act : nullptr, fused);
    const ir::NodeId last = act ? act->nodes.back() : add->id;
    editor.RemoveNode(matmul.id);
    if (add != nullptr) editor.RemoveNode(add->id);
    if (act) {
      for (ir::NodeId id : act->nodes) editor.RemoveNode(id);
    }
    editor.AddNode(std::move(fused), last);
    return true;
  }

  static bool FuseGemm(GraphEditor& editor, const ir::Node& gemm) {
    const std::optional<Activation> act =
        fuse::MatchActivation(editor, gemm.outputs[0], MatMulActivations());
    if (!act) return false;
    ir::Node fused = FusedNode(gemm, cpu::nxrt_ops::kFusedGemm, true);
    fused.inputs = gemm.inputs;
    fused.outputs = {act->output};
    fuse::AddActivationAttributes(&*act, fused);
    editor.RemoveNode(gemm.id);
    for (ir::NodeId id : act->nodes) editor.RemoveNode(id);
    editor.AddNode(std::move(fused), act->nodes.back());
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeMatMulActivationFusionPass() {
  return std::make_unique<MatMulActivationFusion>();
}

}  // namespace nxrt::opt
