// optimizer/passes/layer_norm_fusion.cpp: a LayerNormalization over the last axis written out
// as elementwise ops (how PyTorch and TensorFlow exporters emit it) → com.nxrt:LayerNormalization.
//
// Matched (all nodes of the default domain):
//   mean = ReduceMean(x, axes = [-1] or [rank-1], keepdims = 1)   (axes as input from opset 18)
//   d    = Sub(x, mean)
//   var  = ReduceMean(Pow(d, 2) or Mul(d, d), the same axes, keepdims = 1)
//   std  = Sqrt(Add(var, eps))                 eps a one-element float constant
//   y    = Div(d, std) or Mul(d, Reciprocal(std))
//   y    = Mul(y, gamma)    optional, gamma a float constant of H elements, [H] or [1, ..., H]
//   y    = Add(y, beta)     optional, beta likewise
// The float eps makes x float (Add takes one type). H is x's last dim when its type fixes it
// (gamma and beta must then hold H elements), else gamma's or beta's element count; with neither
// known the pattern is left alone. [1, ..., H] shapes are accepted only up to x's rank (1 when
// x's rank is unknown), so the broadcast never raises the rank. Every intermediate value is read
// only inside the pattern (d by the variance branch and the normaliser, the others once) and is
// no graph output, so removing them changes nothing outside.
// The result is LayerNormalization-17's formula with axis = -1, epsilon = eps:
// (x - mean) / sqrt(var + eps) * gamma + beta with the biased variance (the mean of squared
// deviations, as ReduceMean of (x - mean)^2 is), differing only by float rounding. A missing
// gamma becomes a constant of H ones; a missing beta is left out (B is optional in
// LayerNormalization-17). One difference remains when x's last dim is not in its type: an x
// whose last dim is 1 broadcast against gamma [H] in the unfused graph (giving beta), while the
// fused kernel rejects it at Prepare with the element-count error; a normalisation over one
// element is no model's intent.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ep/cpu/nxrt_ops.h"
#include "optimizer/passes.h"
#include "optimizer/passes/transformer_match.h"

namespace nxrt::opt {
namespace {

using match::OtherInput;
using match::ScalarConstant;
using match::SingleConsumerOp;

// True when `n` is ReduceMean over only the last axis of its input (of rank `rank` when known),
// keeping dims.
bool IsLastAxisMean(const GraphEditor& editor, const ir::Node& n, std::optional<size_t> rank) {
  if (!n.domain.empty() || n.op_type != "ReduceMean" || n.inputs.empty()) return false;
  if (GraphEditor::IntAttr(n, "keepdims", 1) != 1) return false;
  std::vector<int64_t> axes;
  if (editor.Opset(n) >= 18) {
    // ReduceMean-18 takes axes as an optional input; absent means all axes (or none).
    if (n.inputs.size() < 2 || n.inputs[1] == ir::kNoValue) return false;
    const Tensor* t = editor.Constant(n.inputs[1]);
    if (t == nullptr || t->dtype() != DataType::kInt64) return false;
    axes.assign(t->data<int64_t>(), t->data<int64_t>() + t->element_count());
  } else {
    axes = GraphEditor::IntsAttr(n, "axes");
  }
  return axes.size() == 1 &&
         (axes[0] == -1 || (rank && axes[0] == static_cast<int64_t>(*rank) - 1));
}

// A float constant of H elements shaped [H] or [1, ..., 1, H] with at most `max_rank` dims, H
// being `*hidden` when known (else set from the constant); nullptr when `v` is not one.
const Tensor* LastAxisConstant(const GraphEditor& editor, ir::ValueId v,
                               std::optional<int64_t>& hidden, size_t max_rank) {
  const Tensor* t = editor.Constant(v);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->shape().empty()) return nullptr;
  const Shape& s = t->shape();
  if (s.size() > max_rank || (hidden && s.back() != *hidden)) return nullptr;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] != 1) return nullptr;
  }
  hidden = s.back();
  return t;
}

// `t` as a [H] float tensor (a copy; t holds H elements).
Tensor Flat(const Tensor& t) {
  Tensor flat = Tensor::Allocate(DataType::kFloat, {t.element_count()}).value();
  std::copy(t.data<float>(), t.data<float>() + t.element_count(), flat.mutable_data<float>());
  return flat;
}

struct LayerNormMatch {
  std::vector<ir::NodeId> nodes;  // every node of the pattern
  ir::ValueId x = ir::kNoValue;
  ir::ValueId out = ir::kNoValue;  // the last node's output, taken over by the fused node
  ir::NodeId last = ir::kNoNode;
  float epsilon = 0;
  const Tensor* gamma = nullptr;
  ir::ValueId gamma_value = ir::kNoValue;
  const Tensor* beta = nullptr;
  ir::ValueId beta_value = ir::kNoValue;
  std::optional<int64_t> hidden;
};

// The pattern of the file comment starting at `mean_node`, or nullopt.
std::optional<LayerNormMatch> MatchAt(const GraphEditor& editor, const ir::Node& mean_node) {
  LayerNormMatch m;
  m.x = mean_node.inputs.empty() ? ir::kNoValue : mean_node.inputs[0];
  if (m.x == ir::kNoValue) return std::nullopt;
  const std::optional<size_t> rank = editor.Rank(m.x);
  // ReduceMean over axis -1 needs rank >= 1, so rank-1 constants never raise x's rank.
  const size_t max_rank = rank.value_or(1);
  if (rank == 0u) return std::nullopt;
  if (rank) {
    const ir::Dim& last_dim = editor.value(m.x).type.shape->back();
    if (last_dim.kind == ir::Dim::Kind::kFixed) m.hidden = last_dim.value;
  }
  if (!IsLastAxisMean(editor, mean_node, rank)) return std::nullopt;

  const ir::Node* sub = SingleConsumerOp(editor, mean_node.outputs[0], "Sub");
  if (sub == nullptr || sub->inputs[0] != m.x || sub->inputs[1] != mean_node.outputs[0]) {
    return std::nullopt;
  }
  const ir::ValueId d = sub->outputs[0];
  if (editor.IsGraphOutput(d)) return std::nullopt;
  // The square: Pow(d, 2) or Mul(d, d), among d's readers.
  const ir::Node* square = nullptr;
  for (const ir::Consumer& c : editor.Consumers(d)) {
    const ir::Node& n = editor.node(c.node);
    if (!n.domain.empty() || n.inputs.size() != 2) continue;
    const bool pow2 = n.op_type == "Pow" && n.inputs[0] == d &&
                      match::Near(ScalarConstant(editor, n.inputs[1], max_rank), 2.0, 0.0);
    const bool mul_dd = n.op_type == "Mul" && n.inputs[0] == d && n.inputs[1] == d;
    if (pow2 || mul_dd) square = &n;
  }
  if (square == nullptr) return std::nullopt;
  const ir::Node* var_mean = SingleConsumerOp(editor, square->outputs[0], "ReduceMean");
  if (var_mean == nullptr || var_mean->inputs[0] != square->outputs[0] ||
      !IsLastAxisMean(editor, *var_mean, rank)) {
    return std::nullopt;
  }
  const ir::Node* add_eps = SingleConsumerOp(editor, var_mean->outputs[0], "Add");
  if (add_eps == nullptr) return std::nullopt;
  const ir::ValueId eps_value = OtherInput(*add_eps, var_mean->outputs[0]);
  const std::optional<double> eps = match::FloatScalar(editor, eps_value, max_rank);
  if (!eps || eps_value == var_mean->outputs[0]) return std::nullopt;
  m.epsilon = static_cast<float>(*eps);
  const ir::Node* sqrt = SingleConsumerOp(editor, add_eps->outputs[0], "Sqrt");
  if (sqrt == nullptr) return std::nullopt;
  // The normaliser: Div(d, std) or Mul(d, Reciprocal(std)).
  const ir::Node* normalise = SingleConsumerOp(editor, sqrt->outputs[0], "Div");
  const ir::Node* reciprocal = nullptr;
  if (normalise != nullptr) {
    if (normalise->inputs[0] != d || normalise->inputs[1] != sqrt->outputs[0]) return std::nullopt;
  } else {
    reciprocal = SingleConsumerOp(editor, sqrt->outputs[0], "Reciprocal");
    if (reciprocal == nullptr) return std::nullopt;
    normalise = SingleConsumerOp(editor, reciprocal->outputs[0], "Mul");
    if (normalise == nullptr || OtherInput(*normalise, reciprocal->outputs[0]) != d) {
      return std::nullopt;
    }
  }
  // d is read by the square and the normaliser only.
  for (const ir::Consumer& c : editor.Consumers(d)) {
    if (c.slot == ir::kImplicitSlot || (c.node != square->id && c.node != normalise->id)) {
      return std::nullopt;
    }
  }
  m.nodes = {mean_node.id, sub->id, square->id, var_mean->id, add_eps->id, sqrt->id, normalise->id};
  if (reciprocal != nullptr) m.nodes.push_back(reciprocal->id);
  m.out = normalise->outputs[0];
  m.last = normalise->id;

  // The optional Mul(gamma) then Add(beta): each taken into the match when its other operand is
  // a last-axis constant.
  auto take = [&](std::string_view op, const Tensor*& tensor, ir::ValueId& value) {
    const ir::Node* n = SingleConsumerOp(editor, m.out, op);
    if (n == nullptr) return;
    const ir::ValueId other = OtherInput(*n, m.out);
    const Tensor* t = LastAxisConstant(editor, other, m.hidden, max_rank);
    if (t == nullptr) return;
    tensor = t;
    value = other;
    m.nodes.push_back(n->id);
    m.out = n->outputs[0];
    m.last = n->id;
  };
  take("Mul", m.gamma, m.gamma_value);
  take("Add", m.beta, m.beta_value);
  // The ones of a missing gamma need H.
  if (!m.hidden) return std::nullopt;
  return m;
}

class LayerNormFusion final : public GraphPass {
 public:
  std::string_view name() const override { return "layer_norm_fusion"; }
  int level() const override { return 2; }

  Result<int> Apply(GraphEditor& editor) const override {
    int fused = 0;
    for (ir::NodeId id : editor.TopologicalOrder()) {
      const ir::Node& n = editor.node(id);
      if (editor.IsRemoved(id) || !n.domain.empty() || n.op_type != "ReduceMean") continue;
      const std::optional<LayerNormMatch> m = MatchAt(editor, n);
      if (!m) continue;

      ir::Node ln;
      ln.op_type = std::string(cpu::nxrt_ops::kLayerNormalization);
      ln.domain = std::string(cpu::nxrt_ops::kDomain);
      ln.name = editor.node(m->last).name + "_layer_norm";
      // Scale and B as [H] tensors: the constants themselves when already of rank 1, else
      // copies (made before any AddInitializer, which may move the initializer list).
      const std::string base = editor.value(m->x).name;
      std::optional<Tensor> scale_tensor;
      if (m->gamma == nullptr) {
        scale_tensor = Tensor::Allocate(DataType::kFloat, {*m->hidden}).value();
        std::fill_n(scale_tensor->mutable_data<float>(), *m->hidden, 1.0f);
      } else if (m->gamma->shape().size() != 1) {
        scale_tensor = Flat(*m->gamma);
      }
      std::optional<Tensor> bias_tensor;
      if (m->beta != nullptr && m->beta->shape().size() != 1) bias_tensor = Flat(*m->beta);
      const ir::ValueId scale =
          scale_tensor ? editor.AddInitializer(base + "_ln_scale", std::move(*scale_tensor))
                       : m->gamma_value;
      ln.inputs = {m->x, scale};
      if (m->beta != nullptr) {
        ln.inputs.push_back(bias_tensor
                                ? editor.AddInitializer(base + "_ln_bias", std::move(*bias_tensor))
                                : m->beta_value);
      }
      ln.outputs = {m->out};
      ir::Attribute axis;
      axis.name = "axis";
      axis.type = ir::Attribute::Type::kInt;
      axis.i = -1;
      ir::Attribute epsilon;
      epsilon.name = "epsilon";
      epsilon.type = ir::Attribute::Type::kFloat;
      epsilon.f = m->epsilon;
      ln.attributes = {axis, epsilon};
      for (ir::NodeId p : m->nodes) editor.RemoveNode(p);
      editor.AddNode(std::move(ln), m->last);
      ++fused;
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return fused;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeLayerNormFusionPass() { return std::make_unique<LayerNormFusion>(); }

}  // namespace nxrt::opt
