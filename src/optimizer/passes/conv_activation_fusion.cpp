// optimizer/passes/conv_activation_fusion.cpp: Conv (+ scalar affine) (+ residual Add)
// (+ activation) → com.nxrt:FusedConv (level 2).
//
// Matched (float: some input of the Conv is a float constant or typed float; default-domain
// nodes, each node read only by the next one of the pattern, no intermediate a graph output):
//   y = Conv(X, W, B?);
//   when W and B are float constants (B may be absent): optionally Mul(·, s), then optionally
//   Add(·, t), operands in either order, s and t one-element float constants of rank at most W's:
//   folded into W' = s W and B' = s B + t (computed in double, stored as float), PaddlePaddle's
//   learnable affine after a convolution (PP-LCNetV3);
//   optionally Add(·, Z) in either order, where the types of y and Z give one shape
//   (every dim the same fixed size or the same symbolic name), so the Add broadcasts nothing (the
//   ResNet residual; left alone when a model's values carry no shapes);
//   optionally an activation of the result (activation_match.h: Relu, LeakyRelu, Clip,
//   HardSigmoid, Sigmoid, Tanh, HardSwish (also written out), Swish); at least one of the three;
//   after an activation, optionally Mul(·, s2) then optionally Add(·, t2) with one-element float
//   constants (the affine PP-LCNet puts after HardSwish) as `output_scale`/`output_shift`.
//   → FusedConv(X, W or W', B or B' or omitted, Z?) with Conv's attributes and `activation`,
//   `activation_alpha`, `activation_beta` (and `output_scale`, `output_shift` when not 1, 0).
// The kernel runs Z as oneDNN's sum post-op (Z copied into the output first) and the activation
// as an eltwise post-op in the convolution's pass over the output, in float: results differ
// from the unfused nodes only by float rounding. The fused node takes over the pattern's last
// output and sits where its last node was, after the producer of Z.
#include <string>
#include <utility>
#include <vector>

#include "ep/cpu/nxrt_ops.h"
#include "optimizer/passes.h"
#include "optimizer/passes/activation_match.h"

namespace nxrt::opt {
namespace {

using fuse::Activation;

// The activations FusedConv takes (ep/cpu/nxrt_ops.h).
const std::vector<std::string>& ConvActivations() {
  static const std::vector<std::string> names =
      cpu::nxrt_ops::FusedActivationNames(&cpu::nxrt_ops::FusedActivation::conv);
  return names;
}

// True when the types of `a` and `b` give the same shape: equal rank, each dim the same fixed
// size or the same symbolic name.
bool SameKnownShape(const GraphEditor& editor, ir::ValueId a, ir::ValueId b) {
  const ir::TypeInfo& ta = editor.value(a).type;
  const ir::TypeInfo& tb = editor.value(b).type;
  if (!ta.shape || !tb.shape || ta.shape->size() != tb.shape->size()) return false;
  for (size_t i = 0; i < ta.shape->size(); ++i) {
    const ir::Dim& da = (*ta.shape)[i];
    const ir::Dim& db = (*tb.shape)[i];
    const bool same = da.kind == db.kind &&
                      ((da.is_fixed() && da.value == db.value) ||
                       (da.kind == ir::Dim::Kind::kSymbolic && !da.symbol.empty() &&
                        da.symbol == db.symbol));
    if (!same) return false;
  }
  return true;
}

// The node of type `op_type` reading `v` as its only use (GraphEditor::HasSingleUse), with
// `v` and a one-element float constant of rank at most `rank` as its two inputs; nullptr
// otherwise. `constant` receives the constant.
const ir::Node* ScalarOp(const GraphEditor& editor, ir::ValueId v, std::string_view op_type,
                         size_t rank, float& constant) {
  if (!editor.HasSingleUse(v)) return nullptr;
  const ir::Node& n = editor.node(editor.Consumers(v)[0].node);
  if (!n.domain.empty() || n.op_type != op_type || n.inputs.size() != 2 || n.outputs.size() != 1 ||
      editor.IsRemoved(n.id)) {
    return nullptr;
  }
  const std::optional<float> c =
      fuse::ScalarFloat(editor, n.inputs[0] == v ? n.inputs[1] : n.inputs[0], rank);
  if (!c) return nullptr;
  constant = *c;
  return &n;
}

// W' = scale W and B' = scale B + shift ([M]; B absent counts as zeros).
std::pair<Tensor, Tensor> ScaleWeights(const Tensor& w, const Tensor* b, float scale, float shift) {
  Tensor w2 = Tensor::Allocate(DataType::kFloat, w.shape()).value();
  const int64_t m = w.shape()[0];
  Tensor b2 = Tensor::Allocate(DataType::kFloat, {m}).value();
  const float* pw = w.data<float>();
  float* qw = w2.mutable_data<float>();
  for (int64_t i = 0; i < w.element_count(); ++i) {
    qw[i] = static_cast<float>(static_cast<double>(pw[i]) * scale);
  }
  float* qb = b2.mutable_data<float>();
  for (int64_t i = 0; i < m; ++i) {
    const double bias = b != nullptr ? static_cast<double>(b->data<float>()[i]) : 0.0;
    qb[i] = static_cast<float>(bias * scale + shift);
  }
  return {std::move(w2), std::move(b2)};
}

class ConvActivationFusion final : public GraphPass {
 public:
  std::string_view name() const override { return "conv_activation_fusion"; }
  int level() const override { return 2; }

  Result<int> Apply(GraphEditor& editor) const override {
    int rewrites = 0;
    for (ir::NodeId id : editor.TopologicalOrder()) {
      if (editor.IsRemoved(id)) continue;
      const ir::Node& n = editor.node(id);
      if (!n.domain.empty() || n.op_type != "Conv" || n.inputs.size() < 2 ||
          n.inputs.size() > 3 || n.outputs.size() != 1 ||
          !fuse::HasFloatOperand(editor, n)) {
        continue;
      }
      rewrites += Fuse(editor, n) ? 1 : 0;
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return rewrites;
  }

 private:
  static bool Fuse(GraphEditor& editor, const ir::Node& conv) {
    const ir::ValueId y = conv.outputs[0];
    // The affine: W and B constant (B may be absent), float.
    const Tensor* w = editor.Constant(conv.inputs[1]);
    const bool has_b = conv.inputs.size() > 2 && conv.inputs[2] != ir::kNoValue;
    const Tensor* b = has_b ? editor.Constant(conv.inputs[2]) : nullptr;
    float scale = 1.0f;
    float shift = 0.0f;
    const ir::Node* scale_node = nullptr;
    const ir::Node* shift_node = nullptr;
    ir::ValueId after_affine = y;
    if (w != nullptr && w->dtype() == DataType::kFloat && !w->shape().empty() &&
        (!has_b || (b != nullptr && b->dtype() == DataType::kFloat))) {
      const size_t rank = w->shape().size();
      scale_node = ScalarOp(editor, after_affine, "Mul", rank, scale);
      if (scale_node != nullptr) after_affine = scale_node->outputs[0];
      shift_node = ScalarOp(editor, after_affine, "Add", rank, shift);
      if (shift_node != nullptr) after_affine = shift_node->outputs[0];
    }
    const bool affine = scale_node != nullptr || shift_node != nullptr;
    const ir::Node* add = nullptr;
    ir::ValueId z = ir::kNoValue;
    if (editor.HasSingleUse(after_affine)) {
      const ir::Node& reader = editor.node(editor.Consumers(after_affine)[0].node);
      if (reader.domain.empty() && reader.op_type == "Add" && reader.inputs.size() == 2 &&
          reader.inputs[0] != reader.inputs[1] && !editor.IsRemoved(reader.id)) {
        const ir::ValueId other =
            reader.inputs[0] == after_affine ? reader.inputs[1] : reader.inputs[0];
        if (SameKnownShape(editor, y, other)) {
          add = &reader;
          z = other;
        }
      }
    }
    const ir::ValueId before_activation = add != nullptr ? add->outputs[0] : after_affine;
    const std::optional<Activation> act =
        fuse::MatchActivation(editor, before_activation, ConvActivations());
    if (!affine && add == nullptr && !act) return false;
    ir::Node fused;
    fused.op_type = std::string(cpu::nxrt_ops::kFusedConv);
    fused.domain = std::string(cpu::nxrt_ops::kDomain);
    fused.name = conv.name;
    fused.attributes = conv.attributes;
    fused.inputs = conv.inputs;
    // Before AddInitializer, which may move the initializers `w` points into.
    const size_t w_rank = w != nullptr ? w->shape().size() : 0;
    if (affine) {
      auto [w2, b2] = ScaleWeights(*w, b, scale, shift);
      // A copy: AddInitializer adds values, which may move the names.
      const std::string w_name = editor.value(conv.inputs[1]).name;
      fused.inputs.resize(3);
      fused.inputs[1] = editor.AddInitializer(w_name + "_scaled", std::move(w2));
      fused.inputs[2] = editor.AddInitializer(w_name + "_scaled_bias", std::move(b2));
    }
    if (z != ir::kNoValue) {
      fused.inputs.resize(3, ir::kNoValue);
      fused.inputs.push_back(z);
    }
    // After an activation, a scalar affine (Mul(s) → Add(t), either optional) becomes the
    // output_scale/output_shift post-op.
    float output_scale = 1.0f;
    float output_shift = 0.0f;
    const ir::Node* out_scale_node = nullptr;
    const ir::Node* out_shift_node = nullptr;
    ir::ValueId output = act ? act->output : before_activation;
    if (act) {
      const size_t rank = editor.Rank(y).value_or(w_rank);
      out_scale_node = rank > 0 ? ScalarOp(editor, output, "Mul", rank, output_scale) : nullptr;
      if (out_scale_node != nullptr) output = out_scale_node->outputs[0];
      out_shift_node = rank > 0 ? ScalarOp(editor, output, "Add", rank, output_shift) : nullptr;
      if (out_shift_node != nullptr) output = out_shift_node->outputs[0];
    }
    fused.outputs = {output};
    fuse::AddActivationAttributes(act ? &*act : nullptr, fused);
    for (auto [attr_name, value] : {std::pair{"output_scale", output_scale},
                                    std::pair{"output_shift", output_shift}}) {
      if (value == (std::string_view(attr_name) == "output_scale" ? 1.0f : 0.0f)) continue;
      ir::Attribute a;
      a.name = attr_name;
      a.type = ir::Attribute::Type::kFloat;
      a.f = value;
      fused.attributes.push_back(std::move(a));
    }
    const ir::NodeId last = out_shift_node != nullptr ? out_shift_node->id
                            : out_scale_node != nullptr ? out_scale_node->id
                            : act                       ? act->nodes.back()
                            : add != nullptr            ? add->id
                            : shift_node != nullptr     ? shift_node->id
                                                        : scale_node->id;
    editor.RemoveNode(conv.id);
    if (scale_node != nullptr) editor.RemoveNode(scale_node->id);
    if (shift_node != nullptr) editor.RemoveNode(shift_node->id);
    if (add != nullptr) editor.RemoveNode(add->id);
    if (act) {
      for (ir::NodeId id : act->nodes) editor.RemoveNode(id);
    }
    if (out_scale_node != nullptr) editor.RemoveNode(out_scale_node->id);
    if (out_shift_node != nullptr) editor.RemoveNode(out_shift_node->id);
    editor.AddNode(std::move(fused), last);
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeConvActivationFusionPass() {
  return std::make_unique<ConvActivationFusion>();
}

}  // namespace nxrt::opt
