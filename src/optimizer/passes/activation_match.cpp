// optimizer/passes/activation_match.cpp: see activation_match.h.
#include "optimizer/passes/activation_match.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <utility>

#include "ep/cpu/nxrt_ops.h"

namespace nxrt::opt::fuse {
namespace {

// Constants written out in an exporter's graph are compared within float rounding.
bool Near(std::optional<float> value, float expected) {
  return value && std::fabs(*value - expected) <= 1e-6f * std::fabs(expected);
}

bool Is(const ir::Node& n, std::string_view op_type) {
  return n.domain.empty() && n.op_type == op_type;
}

// The node reading `v` as its only use (GraphEditor::HasSingleUse) and not yet claimed by another
// rewrite of the same pass; nullptr otherwise.
const ir::Node* OnlyReader(const GraphEditor& editor, ir::ValueId v) {
  if (!editor.HasSingleUse(v)) return nullptr;
  const ir::Node& n = editor.node(editor.Consumers(v)[0].node);
  return editor.IsRemoved(n.id) ? nullptr : &n;
}

// The operand of binary node `n` other than `v`; kNoValue when `n` does not read `v` exactly once
// among two inputs.
ir::ValueId OtherInput(const ir::Node& n, ir::ValueId v) {
  if (n.inputs.size() != 2 || n.inputs[0] == n.inputs[1]) return ir::kNoValue;
  if (n.inputs[0] == v) return n.inputs[1];
  if (n.inputs[1] == v) return n.inputs[0];
  return ir::kNoValue;
}

// The single output of `n`, or kNoValue when it has several.
ir::ValueId SingleOutput(const ir::Node& n) {
  return n.outputs.size() == 1 ? n.outputs[0] : ir::kNoValue;
}

std::string StringAttr(const ir::Node& n, std::string_view name, std::string_view fallback) {
  const ir::Attribute* a = n.FindAttribute(name);
  return a != nullptr && a->type == ir::Attribute::Type::kString ? a->s : std::string(fallback);
}

// Clip's (min, max): attributes before opset 11, optional constant inputs from 11 (absent:
// unbounded). nullopt when a bound is not a constant.
std::optional<std::pair<float, float>> ClipBounds(const GraphEditor& editor, const ir::Node& clip) {
  float lo = std::numeric_limits<float>::lowest();
  float hi = std::numeric_limits<float>::max();
  if (editor.Opset(clip) < 11) {
    return std::pair{GraphEditor::FloatAttr(clip, "min", lo), GraphEditor::FloatAttr(clip, "max", hi)};
  }
  for (size_t i = 1; i < clip.inputs.size() && i < 3; ++i) {
    if (clip.inputs[i] == ir::kNoValue) continue;
    const std::optional<float> bound = ScalarFloat(editor, clip.inputs[i]);
    if (!bound) return std::nullopt;
    (i == 1 ? lo : hi) = *bound;
  }
  return std::pair{lo, hi};
}

// An activation of one node `n` reading `x`.
std::optional<Activation> MatchSingleNode(const GraphEditor& editor, const ir::Node& n,
                                          ir::ValueId x) {
  if (n.inputs.empty() || SingleOutput(n) == ir::kNoValue) return std::nullopt;
  Activation a;
  a.nodes = {n.id};
  a.output = n.outputs[0];
  // Max(x, c) and Min(x, c), operands in either order, with c a one-element constant that does
  // not raise x's rank: Clip with one bound (TensorFlow exports clamp this way).
  if ((Is(n, "Max") || Is(n, "Min")) && n.inputs.size() == 2 && n.inputs[0] != n.inputs[1] &&
      (n.inputs[0] == x || n.inputs[1] == x)) {
    const std::optional<float> c =
        ScalarFloat(editor, OtherInput(n, x), editor.Rank(x).value_or(0));
    if (!c || std::isnan(*c)) return std::nullopt;
    a.name = "Clip";
    const float inf = std::numeric_limits<float>::infinity();
    a.alpha = Is(n, "Max") ? *c : -inf;
    a.beta = Is(n, "Max") ? inf : *c;
    return a;
  }
  if (n.inputs[0] != x) return std::nullopt;
  const bool unary = n.inputs.size() == 1;
  if (Is(n, "Relu") && unary) {
    a.name = "Relu";
  } else if (Is(n, "LeakyRelu") && unary) {
    a.name = "LeakyRelu";
    a.alpha = GraphEditor::FloatAttr(n, "alpha", 0.01f);
  } else if (Is(n, "Sigmoid") && unary) {
    a.name = "Sigmoid";
  } else if (Is(n, "Tanh") && unary) {
    a.name = "Tanh";
  } else if (Is(n, "HardSigmoid") && unary) {
    a.name = "HardSigmoid";
    a.alpha = GraphEditor::FloatAttr(n, "alpha", 0.2f);
    a.beta = GraphEditor::FloatAttr(n, "beta", 0.5f);
  } else if (Is(n, "HardSwish") && unary) {
    a.name = "HardSwish";
  } else if (Is(n, "Clip")) {
    const std::optional<std::pair<float, float>> bounds = ClipBounds(editor, n);
    // ONNX Clip with min > max gives max everywhere; left alone.
    if (!bounds || bounds->first > bounds->second) return std::nullopt;
    a.name = "Clip";
    a.alpha = bounds->first;
    a.beta = bounds->second;
  } else if (n.op_type == "Gelu" && unary &&
             (n.domain == cpu::nxrt_ops::kDomain || (n.domain.empty() && editor.Opset(n) >= 20))) {
    const std::string approximate = StringAttr(n, "approximate", "none");
    if (approximate == "none") {
      a.name = "Gelu";
    } else if (approximate == "tanh") {
      a.name = "GeluTanh";
    } else {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  return a;
}

// Swish or HardSwish with `mul` = Mul(x, t) and `t` computed from x by `gate` (x read twice).
std::optional<Activation> MatchGated(const GraphEditor& editor, const ir::Node& mul,
                                     const ir::Node& gate, ir::ValueId x) {
  if (!Is(mul, "Mul") || SingleOutput(mul) == ir::kNoValue) return std::nullopt;
  const ir::ValueId gate_out = SingleOutput(gate);
  if (gate_out == ir::kNoValue) return std::nullopt;
  Activation a;
  a.name = "HardSwish";
  const size_t rank = editor.Rank(x).value_or(0);
  // Swish with a scale: Mul(x, Sigmoid(Mul(x, beta))) (PaddlePaddle's swish).
  if (Is(gate, "Mul") && editor.HasSingleUse(gate_out)) {
    const std::optional<float> beta = ScalarFloat(editor, OtherInput(gate, x), rank);
    const ir::Node* sigmoid = OnlyReader(editor, gate_out);
    if (!beta || sigmoid == nullptr || !Is(*sigmoid, "Sigmoid") ||
        SingleOutput(*sigmoid) == ir::kNoValue || OtherInput(mul, x) != sigmoid->outputs[0] ||
        !editor.HasSingleUse(sigmoid->outputs[0])) {
      return std::nullopt;
    }
    a.name = "Swish";
    a.alpha = *beta;
    a.nodes = {gate.id, sigmoid->id, mul.id};
    a.output = mul.outputs[0];
    return a;
  }
  if (gate.inputs.size() == 1 && gate.inputs[0] == x && OtherInput(mul, x) == gate_out &&
      editor.HasSingleUse(gate_out)) {
    a.nodes = {gate.id, mul.id};
    a.output = mul.outputs[0];
    if (Is(gate, "Sigmoid")) {
      a.name = "Swish";
      a.alpha = 1.0f;
      return a;
    }
    if (Is(gate, "HardSigmoid") && Near(GraphEditor::FloatAttr(gate, "alpha", 0.2f), 1.0f / 6) &&
        Near(GraphEditor::FloatAttr(gate, "beta", 0.5f), 0.5f)) {
      return a;
    }
    return std::nullopt;
  }
  // Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6) or Mul(..., 1/6).
  if (!Is(gate, "Add") || !Near(ScalarFloat(editor, OtherInput(gate, x), rank), 3.0f)) {
    return std::nullopt;
  }
  const ir::Node* clip = OnlyReader(editor, gate_out);
  if (clip == nullptr || !Is(*clip, "Clip") || clip->inputs[0] != gate_out) return std::nullopt;
  const std::optional<std::pair<float, float>> bounds = ClipBounds(editor, *clip);
  const ir::ValueId clip_out = SingleOutput(*clip);
  if (!bounds || bounds->first != 0.0f || !Near(bounds->second, 6.0f) ||
      clip_out == ir::kNoValue || OtherInput(mul, x) != clip_out ||
      !editor.HasSingleUse(clip_out)) {
    return std::nullopt;
  }
  const ir::Node* scale = OnlyReader(editor, mul.outputs[0]);
  if (scale == nullptr || SingleOutput(*scale) == ir::kNoValue) return std::nullopt;
  const bool div6 = Is(*scale, "Div") && scale->inputs.size() == 2 &&
                    scale->inputs[0] == mul.outputs[0] &&
                    Near(ScalarFloat(editor, scale->inputs[1], rank), 6.0f);
  const bool mul_sixth =
      Is(*scale, "Mul") && Near(ScalarFloat(editor, OtherInput(*scale, mul.outputs[0]), rank),
                                1.0f / 6);
  if (!div6 && !mul_sixth) return std::nullopt;
  a.nodes = {gate.id, clip->id, mul.id, scale->id};
  a.output = scale->outputs[0];
  return a;
}

}  // namespace

std::optional<float> ScalarFloat(const GraphEditor& editor, ir::ValueId v, size_t max_rank) {
  const Tensor* t = editor.Constant(v);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->element_count() != 1 ||
      t->shape().size() > max_rank) {
    return std::nullopt;
  }
  return t->data<float>()[0];
}

bool IsFloatTensor(const GraphEditor& editor, ir::ValueId v) {
  if (v == ir::kNoValue) return false;
  if (const Tensor* t = editor.Constant(v)) return t->dtype() == DataType::kFloat;
  const ir::TypeInfo& t = editor.value(v).type;
  return t.kind == ir::TypeInfo::Kind::kTensor && t.elem_type == DataType::kFloat;
}

bool HasFloatOperand(const GraphEditor& editor, const ir::Node& n) {
  return std::any_of(n.inputs.begin(), n.inputs.end(),
                     [&](ir::ValueId v) { return IsFloatTensor(editor, v); });
}

std::optional<Activation> MatchActivation(const GraphEditor& editor, ir::ValueId x,
                                          const std::vector<std::string>& allowed) {
  if (x == ir::kNoValue || editor.IsGraphOutput(x)) return std::nullopt;
  const std::span<const ir::Consumer> uses = editor.Consumers(x);
  for (const ir::Consumer& use : uses) {
    if (use.slot == ir::kImplicitSlot || editor.IsRemoved(use.node)) return std::nullopt;
  }
  std::optional<Activation> a;
  if (uses.size() == 1) {
    a = MatchSingleNode(editor, editor.node(uses[0].node), x);
  } else if (uses.size() == 2 && uses[0].node != uses[1].node) {
    const ir::Node& first = editor.node(uses[0].node);
    const ir::Node& second = editor.node(uses[1].node);
    a = MatchGated(editor, first, second, x);
    if (!a) a = MatchGated(editor, second, first, x);
  }
  if (!a || std::find(allowed.begin(), allowed.end(), a->name) == allowed.end()) {
    return std::nullopt;
  }
  for (ir::NodeId id : a->nodes) {
    if (editor.IsRemoved(id)) return std::nullopt;
  }
  return a;
}

void AddActivationAttributes(const Activation* activation, ir::Node& node) {
  ir::Attribute name;
  name.name = "activation";
  name.type = ir::Attribute::Type::kString;
  name.s = activation != nullptr ? activation->name : "";
  node.attributes.push_back(std::move(name));
  for (const auto& [attr, value] :
       {std::pair{"activation_alpha", activation != nullptr ? activation->alpha : 0.0f},
        std::pair{"activation_beta", activation != nullptr ? activation->beta : 0.0f}}) {
    ir::Attribute a;
    a.name = attr;
    a.type = ir::Attribute::Type::kFloat;
    a.f = value;
    node.attributes.push_back(std::move(a));
  }
}

}  // namespace nxrt::opt::fuse
