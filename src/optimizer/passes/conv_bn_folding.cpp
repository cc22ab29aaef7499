// optimizer/passes/conv_bn_folding.cpp: folds an inference-mode BatchNormalization into the Conv
// that feeds it.
//
// Matched: Conv(X, W[, B]) → BatchNormalization(scale, bias, mean, var) where the Conv output has
// no other reader (not a graph output, not read by a subgraph), W, B and the four BN inputs are
// float constant initializers, the BN inputs and B hold M elements (M = W's dim 0, the Conv's
// output channels, for any group), and BN runs in inference mode: training_mode 0 (opset 14+),
// spatial 1 (opsets 7-8), is_test 1 (opsets 1-6), no optional outputs (running mean/var, saved
// mean/var).
// ONNX BatchNormalization computes Y = (X - mean) / sqrt(var + epsilon) * scale + bias per
// channel, an affine map of each Conv output channel; with s = scale / sqrt(var + epsilon) it is
// Conv(X, W * s[m] per output channel m, (B - mean) * s + bias). The new weights are computed in
// double and rounded once to float. The new Conv keeps the old one's attributes and takes over
// the BN's output value.
#include <cmath>
#include <string>
#include <vector>

#include "optimizer/passes.h"

namespace nxrt::opt {
namespace {

// The float constant behind `v`, or nullptr.
const Tensor* FloatConstant(const GraphEditor& editor, ir::ValueId v) {
  const Tensor* t = editor.Constant(v);
  return t != nullptr && t->dtype() == DataType::kFloat ? t : nullptr;
}

class ConvBnFolding final : public GraphPass {
 public:
  std::string_view name() const override { return "conv_bn_folding"; }
  int level() const override { return 1; }

  Result<int> Apply(GraphEditor& editor) const override {
    int folded = 0;
    for (ir::NodeId id : editor.TopologicalOrder()) {
      const ir::Node& bn = editor.node(id);
      if (bn.op_type != "BatchNormalization" || !bn.domain.empty()) continue;
      NXRT_ASSIGN_OR_RETURN(bool done, TryFold(editor, id));
      folded += done ? 1 : 0;
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return folded;
  }

 private:
  static Result<bool> TryFold(GraphEditor& editor, ir::NodeId bn_id) {
    const ir::Node& bn = editor.node(bn_id);
    if (bn.inputs.size() != 5 || bn.outputs.empty() || bn.outputs[0] == ir::kNoValue) {
      return false;
    }
    for (size_t o = 1; o < bn.outputs.size(); ++o) {
      if (bn.outputs[o] != ir::kNoValue) return false;
    }
    if (GraphEditor::IntAttr(bn, "training_mode", 0) != 0 ||
        GraphEditor::IntAttr(bn, "spatial", 1) != 1 ||
        (editor.Opset(bn) < 7 && GraphEditor::IntAttr(bn, "is_test", 0) == 0)) {
      return false;
    }
    const ir::ValueId x = bn.inputs[0];
    const ir::NodeId conv_id = editor.Producer(x);
    if (conv_id == ir::kNoNode || !editor.HasSingleUse(x)) return false;
    const ir::Node& conv = editor.node(conv_id);
    if (conv.op_type != "Conv" || !conv.domain.empty() || conv.inputs.size() < 2) return false;
    const Tensor* w = FloatConstant(editor, conv.inputs[1]);
    if (w == nullptr || w->rank() < 3) return false;
    const int64_t m = w->shape()[0];
    const bool has_b = conv.inputs.size() > 2 && conv.inputs[2] != ir::kNoValue;
    const Tensor* b = has_b ? FloatConstant(editor, conv.inputs[2]) : nullptr;
    if (has_b && (b == nullptr || b->element_count() != m)) return false;
    std::vector<const Tensor*> params;  // scale, bias, mean, var
    for (size_t i = 1; i < 5; ++i) {
      const Tensor* p = FloatConstant(editor, bn.inputs[i]);
      if (p == nullptr || p->element_count() != m) return false;
      params.push_back(p);
    }
    const double epsilon = GraphEditor::FloatAttr(bn, "epsilon", 1e-5f);

    NXRT_ASSIGN_OR_RETURN(Tensor new_w, Tensor::Allocate(DataType::kFloat, w->shape()));
    NXRT_ASSIGN_OR_RETURN(Tensor new_b, Tensor::Allocate(DataType::kFloat, {m}));
    const float* scale = params[0]->data<float>();
    const float* bias = params[1]->data<float>();
    const float* mean = params[2]->data<float>();
    const float* var = params[3]->data<float>();
    const int64_t per_channel = w->element_count() / m;
    const float* src = w->data<float>();
    float* dst = new_w.mutable_data<float>();
    // In float, in ONNX Runtime's order (its ConvBNFusion), so the folded tensors are bit for bit
    // the ones ORT shows a plugin: s = scale / sqrt(var + ε); W·s; bias − mean·s, or with a Conv
    // bias (B − mean)·s + bias.
    const float eps = static_cast<float>(epsilon);
    for (int64_t c = 0; c < m; ++c) {
      const float s = scale[c] / std::sqrt(var[c] + eps);
      for (int64_t k = c * per_channel; k < (c + 1) * per_channel; ++k) dst[k] = src[k] * s;
      new_b.mutable_data<float>()[c] =
          has_b ? (b->data<float>()[c] - mean[c]) * s + bias[c] : bias[c] - mean[c] * s;
    }

    // AddInitializer grows the graph's values and initializers: nothing read from them is used
    // after this point (the nodes stay where they are).
    ir::Node fused = conv;
    const std::string w_name = editor.value(conv.inputs[1]).name;
    // ONNX Runtime's names for the folded tensors.
    const ir::ValueId folded_w = editor.AddInitializer("ConvBnFusion_W_" + w_name, std::move(new_w));
    const std::string b_name = has_b ? "ConvBnFusion_B_" + editor.value(conv.inputs[2]).name
                                     : "ConvBnFusion_BN_B_" + editor.value(bn.inputs[2]).name;
    const ir::ValueId folded_b = editor.AddInitializer(b_name, std::move(new_b));
    fused.inputs = {conv.inputs[0], folded_w, folded_b};
    fused.outputs = {bn.outputs[0]};
    editor.RemoveNode(conv_id);
    editor.RemoveNode(bn_id);
    editor.AddNode(std::move(fused), bn_id);
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeConvBnFoldingPass() { return std::make_unique<ConvBnFolding>(); }

}  // namespace nxrt::opt
