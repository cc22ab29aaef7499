// optimizer/conv_activation_fusion_test.cpp: Conv (+ residual Add) (+ activation) →
// com.nxrt:FusedConv: the graph after the pass, results against the unfused nodes (level-0
// session) for every activation over several convolution shapes, and the cases the pass must
// leave alone.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "optimizer/activation_test_util.h"

namespace nxrt::opt {
namespace {

using testing::Act;
using testing::ActName;
using testing::AddActivation;
using testing::AddFloatConstant;
using testing::AddFloatOutput;
using testing::AddIntAttribute;
using testing::AddIntsAttribute;
using testing::AddNode;
using testing::ExpectSameResults;
using testing::Floats;
using testing::FillFloatInfo;
using testing::MakeModel;
using testing::OpTypes;
using testing::Optimize;
using testing::RandomFloats;
using testing::Rewrites;
using testing::StringAttr;

constexpr const char* kPass = "conv_activation_fusion";

struct ConvShape {
  std::vector<int64_t> x;  // [N, C, H, W]
  int64_t m = 4;           // output channels
  std::vector<int64_t> kernel = {3, 3};
  int64_t stride = 1;
  int64_t pad = 1;
  int64_t group = 1;
  bool bias = true;
};

std::vector<int64_t> OutputShape(const ConvShape& s) {
  std::vector<int64_t> y = {s.x[0], s.m};
  for (size_t i = 0; i < s.kernel.size(); ++i) {
    y.push_back((s.x[2 + i] + 2 * s.pad - s.kernel[i]) / s.stride + 1);
  }
  return y;
}

enum class Residual { kNone, kAfter, kBefore, kBroadcast, kConvOutputRead };

// A one-element scale and/or shift after the Conv (PP-LCNetV3's learnable affine).
enum class Affine { kNone, kScale, kShift, kBoth, kBothConstantsFirst, kPerChannelScale };

struct ConvCase {
  ConvShape shape{{1, 4, 7, 7}};
  Affine affine = Affine::kNone;
  Residual residual = Residual::kNone;
  Act act = Act::kRelu;
  bool conv_out_is_output = false;
};

// x → Conv(W, B) → [Add(z)] → activation → y (the opset has HardSwish).
onnx::ModelProto ConvModel(const ConvCase& c) {
  const ConvShape& s = c.shape;
  onnx::ModelProto m = MakeModel(14);
  onnx::GraphProto* g = m.mutable_graph();
  const std::vector<int64_t> y = OutputShape(s);
  FillFloatInfo(g->add_input(), "x", s.x);
  AddFloatOutput(g, "y");
  std::vector<int64_t> w = {s.m, s.x[1] / s.group};
  w.insert(w.end(), s.kernel.begin(), s.kernel.end());
  AddFloatConstant(g, "w", w, Floats(w, 1));
  if (s.bias) AddFloatConstant(g, "b", {s.m}, Floats({s.m}, 2));
  onnx::NodeProto* conv = AddNode(g, "Conv", {"x", "w"}, {"c"}, "conv");
  if (s.bias) conv->add_input("b");
  AddIntsAttribute(conv, "pads", std::vector<int64_t>(2 * s.kernel.size(), s.pad));
  AddIntsAttribute(conv, "strides", std::vector<int64_t>(s.kernel.size(), s.stride));
  AddIntsAttribute(conv, "kernel_shape", s.kernel);
  AddIntAttribute(conv, "group", s.group);
  std::string last = "c";
  const bool first = c.affine == Affine::kBothConstantsFirst;
  if (c.affine == Affine::kPerChannelScale) {
    AddFloatConstant(g, "scale", {s.m, 1, 1}, Floats({s.m}, 3));
    AddNode(g, "Mul", {last, "scale"}, {"scaled"});
    last = "scaled";
  } else if (c.affine != Affine::kNone && c.affine != Affine::kShift) {
    AddFloatConstant(g, "scale", {1}, {0.9f});
    AddNode(g, "Mul", first ? std::initializer_list<std::string>{"scale", last}
                            : std::initializer_list<std::string>{last, "scale"},
            {"scaled"});
    last = "scaled";
  }
  if (c.affine == Affine::kShift || c.affine == Affine::kBoth || first) {
    AddFloatConstant(g, "shift", {1}, {0.3f});
    AddNode(g, "Add", first ? std::initializer_list<std::string>{"shift", last}
                            : std::initializer_list<std::string>{last, "shift"},
            {"shifted"});
    last = "shifted";
  }
  if (c.residual != Residual::kNone) {
    std::vector<int64_t> z = y;
    if (c.residual == Residual::kBroadcast) z = {1, s.m, 1, 1};
    FillFloatInfo(g->add_input(), "z", z);
    // The Conv output's shape, as an exporter's value_info gives it: the pass compares it with Z's.
    FillFloatInfo(g->add_value_info(), "c", y);
    if (c.residual == Residual::kBefore) {
      AddNode(g, "Add", {"z", last}, {"s"}, "residual");
    } else if (c.residual == Residual::kConvOutputRead) {
      AddNode(g, "Add", {last, "z"}, {"s"}, "residual");
      AddFloatOutput(g, last);
    } else {
      AddNode(g, "Add", {last, "z"}, {"s"}, "residual");
    }
    last = "s";
  }
  AddActivation(g, c.act, last, "y");
  if (c.conv_out_is_output && c.residual != Residual::kConvOutputRead) AddFloatOutput(g, "c");
  return m;
}

std::vector<NamedTensor> Inputs(const ConvCase& c) {
  std::vector<NamedTensor> in = {{"x", RandomFloats(c.shape.x, 51, -2, 2)}};
  if (c.residual != Residual::kNone) {
    std::vector<int64_t> z = OutputShape(c.shape);
    if (c.residual == Residual::kBroadcast) z = {1, c.shape.m, 1, 1};
    in.push_back({"z", RandomFloats(z, 52, -2, 2)});
  }
  return in;
}

TEST(ConvActivationFusion, FusesConvResidualAndReluIntoOneNode) {
  ConvCase c;
  c.shape.stride = 2;
  c.shape.group = 2;
  c.residual = Residual::kAfter;
  const ir::Model model = Optimize(ConvModel(c), {kPass});
  const ir::Graph& g = *model.graph;
  ASSERT_EQ(OpTypes(g), std::vector<std::string>{"com.nxrt:FusedConv"});
  const ir::Node& fused = g.nodes[0];
  ASSERT_EQ(fused.inputs.size(), 4u);
  EXPECT_EQ(g.values[fused.inputs[0]].name, "x");
  EXPECT_EQ(g.values[fused.inputs[1]].name, "w");
  EXPECT_EQ(g.values[fused.inputs[2]].name, "b");
  EXPECT_EQ(g.values[fused.inputs[3]].name, "z");
  EXPECT_EQ(g.values[fused.outputs[0]].name, "y");
  EXPECT_EQ(StringAttr(fused, "activation"), "Relu");
  EXPECT_EQ(GraphEditor::IntAttr(fused, "group", 0), 2);
  EXPECT_EQ(GraphEditor::IntsAttr(fused, "strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(GraphEditor::IntsAttr(fused, "pads"), (std::vector<int64_t>{1, 1, 1, 1}));
}

TEST(ConvActivationFusion, ResidualWithoutBiasLeavesTheBiasSlotEmpty) {
  ConvCase c;
  c.shape.bias = false;
  c.residual = Residual::kBefore;
  c.act = Act::kNone;
  const ir::Model model = Optimize(ConvModel(c), {kPass});
  const ir::Graph& g = *model.graph;
  ASSERT_EQ(OpTypes(g), (std::vector<std::string>{"com.nxrt:FusedConv", "Identity"}));
  const ir::Node& fused = g.nodes[0];
  ASSERT_EQ(fused.inputs.size(), 4u);
  EXPECT_EQ(fused.inputs[2], ir::kNoValue);
  EXPECT_EQ(g.values[fused.inputs[3]].name, "z");
  EXPECT_EQ(StringAttr(fused, "activation"), "");
}

TEST(ConvActivationFusion, RecognisesEveryActivationForm) {
  for (Act act : {Act::kRelu, Act::kLeakyRelu, Act::kClip, Act::kSigmoid, Act::kTanh,
                  Act::kHardSigmoid, Act::kHardSwish, Act::kHardSwishDiv, Act::kHardSwishGate,
                  Act::kSwish, Act::kSwishScaled}) {
    SCOPED_TRACE(ActName(act));
    ConvCase c;
    c.act = act;
    const ir::Model model = Optimize(ConvModel(c), {kPass});
    ASSERT_EQ(OpTypes(*model.graph), std::vector<std::string>{"com.nxrt:FusedConv"});
    const ir::Node& fused = model.graph->nodes[0];
    EXPECT_EQ(StringAttr(fused, "activation"), ActName(act));
    if (act == Act::kHardSigmoid) {
      EXPECT_FLOAT_EQ(GraphEditor::FloatAttr(fused, "activation_alpha", 0), 0.3f);
      EXPECT_FLOAT_EQ(GraphEditor::FloatAttr(fused, "activation_beta", 0), 0.4f);
    }
    if (act == Act::kSwish || act == Act::kSwishScaled) {
      EXPECT_FLOAT_EQ(GraphEditor::FloatAttr(fused, "activation_alpha", 0),
                      act == Act::kSwish ? 1.0f : 1.5f);
    }
  }
}

TEST(ConvActivationFusion, SameResultsOverShapesActivationsAndResiduals) {
  const std::vector<ConvShape> shapes = {
      {{1, 4, 7, 7}, 4, {3, 3}, 1, 1, 1, true},     // plain 3x3
      {{2, 6, 9, 8}, 4, {3, 3}, 2, 1, 2, true},     // groups, stride 2, batch 2
      {{1, 8, 10, 10}, 8, {3, 3}, 1, 1, 8, false},  // depthwise, no bias
      {{1, 16, 5, 5}, 24, {1, 1}, 1, 0, 1, true},   // pointwise (oneDNN's plain GEMM path)
      {{1, 3, 11, 9}, 5, {5, 3}, 2, 2, 1, true},    // rectangular kernel
      {{1, 4, 12}, 6, {3}, 1, 1, 1, true},          // 1-D
  };
  const std::vector<Act> acts = {Act::kNone,        Act::kRelu,          Act::kLeakyRelu,
                                 Act::kClip,        Act::kSigmoid,       Act::kTanh,
                                 Act::kHardSigmoid, Act::kHardSwish,     Act::kHardSwishDiv,
                                 Act::kHardSwishGate, Act::kSwish,     Act::kSwishScaled};
  for (size_t si = 0; si < shapes.size(); ++si) {
    for (Act act : acts) {
      for (Residual residual : {Residual::kNone, Residual::kAfter}) {
        if (act == Act::kNone && residual == Residual::kNone) continue;
        // 1-D output has rank 3: the residual's shape follows OutputShape.
        ConvCase c;
        c.shape = shapes[si];
        c.act = act;
        c.residual = residual;
        SCOPED_TRACE("shape " + std::to_string(si) + " activation '" + ActName(act) + "'" +
                     (residual == Residual::kAfter ? " with residual" : ""));
        EXPECT_EQ(Rewrites(ExpectSameResults(ConvModel(c), Inputs(c), {kPass}, 1e-5f, 2e-5f),
                           kPass),
                  1);
      }
    }
  }
}

TEST(ConvActivationFusion, FoldsAScalarAffineIntoTheWeightsAndBias) {
  for (bool bias : {true, false}) {
    SCOPED_TRACE(bias ? "with bias" : "without bias");
    ConvCase c;
    c.shape.bias = bias;
    c.affine = Affine::kBoth;
    c.act = Act::kHardSwishDiv;
    const ir::Model model = Optimize(ConvModel(c), {kPass});
    const ir::Graph& g = *model.graph;
    ASSERT_EQ(OpTypes(g), std::vector<std::string>{"com.nxrt:FusedConv"});
    const ir::Node& fused = g.nodes[0];
    EXPECT_EQ(StringAttr(fused, "activation"), "HardSwish");
    ASSERT_EQ(fused.inputs.size(), 3u);
    const ir::Initializer* w = g.FindInitializer(fused.inputs[1]);
    const ir::Initializer* b = g.FindInitializer(fused.inputs[2]);
    ASSERT_NE(w, nullptr);
    ASSERT_NE(b, nullptr);
    const std::vector<float> w0 = Floats({4, 4, 3, 3}, 1);
    const std::vector<float> b0 = Floats({4}, 2);
    ASSERT_EQ(w->tensor.element_count(), static_cast<int64_t>(w0.size()));
    for (size_t i = 0; i < w0.size(); ++i) {
      EXPECT_NEAR(w->tensor.data<float>()[i], w0[i] * 0.9, 1e-6) << "W element " << i;
    }
    ASSERT_EQ(b->tensor.element_count(), 4);
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_NEAR(b->tensor.data<float>()[i], (bias ? b0[i] : 0.0) * 0.9 + 0.3, 1e-6);
    }
  }
}

TEST(ConvActivationFusion, AffineSameResults) {
  for (Affine affine : {Affine::kScale, Affine::kShift, Affine::kBoth, Affine::kBothConstantsFirst}) {
    for (Act act : {Act::kNone, Act::kHardSwishDiv, Act::kRelu}) {
      for (Residual residual : {Residual::kNone, Residual::kAfter}) {
        for (bool bias : {true, false}) {
          ConvCase c;
          c.shape = {{1, 8, 9, 9}, 8, {3, 3}, 2, 1, 8, bias};
          c.affine = affine;
          c.act = act;
          c.residual = residual;
          SCOPED_TRACE("affine " + std::to_string(static_cast<int>(affine)) + " activation '" +
                       ActName(act) + "'" + (residual == Residual::kAfter ? " residual" : "") +
                       (bias ? " bias" : ""));
          EXPECT_EQ(Rewrites(ExpectSameResults(ConvModel(c), Inputs(c), {kPass}, 1e-5f, 2e-5f),
                             kPass),
                    1);
        }
      }
    }
  }
}

TEST(ConvActivationFusion, LeavesUnsafePatternsAlone) {
  const auto check = [](const char* what, const ConvCase& c, std::vector<std::string> ops) {
    SCOPED_TRACE(what);
    const onnx::ModelProto m = ConvModel(c);
    EXPECT_EQ(OpTypes(*Optimize(m, {kPass}).graph), ops);
    ExpectSameResults(m, Inputs(c), {kPass});
  };
  ConvCase c;
  c.conv_out_is_output = true;
  check("Conv output also a graph output", c, {"Conv", "Relu"});
  c = ConvCase();
  c.residual = Residual::kBroadcast;
  check("Z broadcasts over the output (and the Add's reader is no activation of the Conv)", c,
        {"Conv", "Add", "Relu"});
  c = ConvCase();
  c.residual = Residual::kConvOutputRead;
  check("Conv output read by the Add and a graph output", c, {"Conv", "Add", "Relu"});
  c = ConvCase();
  c.affine = Affine::kPerChannelScale;
  check("a per-channel scale is no scalar affine", c, {"Conv", "Mul", "Relu"});
}

// TensorFlow's clamp: Max(conv, c) or Min(c, conv) with c a [1,1,1,1] constant is Clip with one
// bound (openWakeWord's embedding model: Max(·, -0.4) after every convolution).
TEST(ConvActivationFusion, FusesAMaxOrMinWithAConstantAsAOneSidedClip) {
  for (const bool is_max : {true, false}) {
    SCOPED_TRACE(is_max ? "Max" : "Min");
    ConvCase c;
    c.act = Act::kNone;
    onnx::ModelProto m = ConvModel(c);
    onnx::GraphProto* g = m.mutable_graph();
    // ConvModel ends with y = Identity(c): make it y = Max(c, bound) / Min(bound, c).
    onnx::NodeProto* last = g->mutable_node(g->node_size() - 1);
    last->set_op_type(is_max ? "Max" : "Min");
    last->clear_input();
    AddFloatConstant(g, "bound", {1, 1, 1, 1}, {is_max ? -0.4f : 0.3f});
    FillFloatInfo(g->add_value_info(), "c", OutputShape(c.shape));
    if (is_max) {
      last->add_input("c");
      last->add_input("bound");
    } else {
      last->add_input("bound");
      last->add_input("c");
    }
    const ir::Model model = Optimize(m, {kPass});
    ASSERT_EQ(OpTypes(*model.graph), std::vector<std::string>{"com.nxrt:FusedConv"});
    const ir::Node& fused = model.graph->nodes[0];
    EXPECT_EQ(StringAttr(fused, "activation"), "Clip");
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(GraphEditor::FloatAttr(fused, "activation_alpha", 0), is_max ? -0.4f : -inf);
    EXPECT_EQ(GraphEditor::FloatAttr(fused, "activation_beta", 0), is_max ? inf : 0.3f);
    const auto stats = ExpectSameResults(m, Inputs(c), {kPass});
    EXPECT_EQ(Rewrites(stats, kPass), 1);
  }
}

TEST(ConvActivationFusion, LeavesAHardSwishWithAnIntermediateReadTwiceAlone) {
  ConvCase c;
  c.act = Act::kHardSwishDiv;
  onnx::ModelProto m = ConvModel(c);
  AddFloatOutput(m.mutable_graph(), "y_relu6");  // the Clip's output, also a graph output
  EXPECT_EQ(OpTypes(*Optimize(m, {kPass}).graph),
            (std::vector<std::string>{"Conv", "Add", "Clip", "Mul", "Div"}));
}

TEST(ConvActivationFusion, LeavesAHardSwishWithOtherConstantsAlone) {
  ConvCase c;
  c.act = Act::kHardSwishDiv;
  onnx::ModelProto m = ConvModel(c);
  // Clip(x + 3, 0, 6) / 5 is not HardSwish.
  for (onnx::TensorProto& t : *m.mutable_graph()->mutable_initializer()) {
    if (t.name() == "y_six2") t.set_float_data(0, 5.0f);
  }
  EXPECT_EQ(OpTypes(*Optimize(m, {kPass}).graph),
            (std::vector<std::string>{"Conv", "Add", "Clip", "Mul", "Div"}));
}

TEST(ConvActivationFusion, FusesAConvWhoseWeightsAreAGraphInput) {
  // W a graph input: the fused kernel reads it on each call instead of packing it once.
  ConvCase c;
  onnx::ModelProto m = ConvModel(c);
  onnx::GraphProto* g = m.mutable_graph();
  for (auto it = g->initializer().begin(); it != g->initializer().end(); ++it) {
    if (it->name() == "w") {
      g->mutable_initializer()->erase(it);
      break;
    }
  }
  FillFloatInfo(g->add_input(), "w", {4, 4, 3, 3});
  std::vector<NamedTensor> in = Inputs(c);
  in.push_back({"w", RandomFloats({4, 4, 3, 3}, 61)});
  EXPECT_EQ(Rewrites(ExpectSameResults(m, in, {kPass}), kPass), 1);
}

}  // namespace
}  // namespace nxrt::opt

namespace nxrt::opt {
namespace {

// x → Conv(W, B) → activation → [Mul(s2)] → [Add(t2)] → y: the affine PP-LCNet puts after
// HardSwish. `per_channel` makes s2 a [1, 4, 1, 1] tensor, which is not a scalar.
onnx::ModelProto ConvThenAffineModel(testing::Act act, bool scale, bool shift, bool per_channel) {
  onnx::ModelProto m = testing::MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  testing::FillFloatInfo(g->add_input(), "x", {1, 3, 8, 8});
  testing::AddFloatConstant(g, "w", {4, 3, 3, 3}, Floats({4, 3, 3, 3}, 5));
  testing::AddFloatConstant(g, "b", {4}, {0.1f, -0.2f, 0.3f, -0.4f});
  onnx::NodeProto* conv = testing::AddNode(g, "Conv", {"x", "w", "b"}, {"c"}, "conv");
  AddIntsAttribute(conv, "pads", {1, 1, 1, 1});
  testing::AddActivation(g, act, "c", "a");
  std::string last = "a";
  if (scale) {
    if (per_channel) {
      testing::AddFloatConstant(g, "s2", {1, 4, 1, 1}, {0.5f, 1.5f, -2.0f, 0.25f});
    } else {
      testing::AddFloatConstant(g, "s2", {}, {1.75f});
    }
    testing::AddNode(g, "Mul", {last, "s2"}, {"scaled"}, "scale");
    last = "scaled";
  }
  if (shift) {
    testing::AddFloatConstant(g, "t2", {1}, {-0.6f});
    testing::AddNode(g, "Add", {"t2", last}, {"shifted"}, "shift");
    last = "shifted";
  }
  testing::AddNode(g, "Identity", {last}, {"y"}, "out");
  testing::AddFloatOutput(g, "y");
  return m;
}

float FloatAttr(const ir::Node& n, const std::string& name) {
  const ir::Attribute* a = n.FindAttribute(name);
  return a != nullptr && a->type == ir::Attribute::Type::kFloat ? a->f : -999.0f;
}

TEST(ConvActivationFusion, TakesTheScalarAffineAfterTheActivationAsPostOps) {
  for (Act act : {Act::kHardSwishDiv, Act::kRelu}) {
    for (auto [scale, shift] : {std::pair{true, true}, {true, false}, {false, true}}) {
      SCOPED_TRACE(std::string(ActName(act)) + (scale ? " scale" : "") + (shift ? " shift" : ""));
      const onnx::ModelProto m = ConvThenAffineModel(act, scale, shift, false);
      const ir::Model model = Optimize(m, {kPass});
      const std::vector<std::string> ops = OpTypes(*model.graph);
      ASSERT_EQ(ops, (std::vector<std::string>{"com.nxrt:FusedConv", "Identity"}));
      const ir::Node& fused = model.graph->nodes[0];
      EXPECT_EQ(FloatAttr(fused, "output_scale"), scale ? 1.75f : -999.0f);
      EXPECT_EQ(FloatAttr(fused, "output_shift"), shift ? -0.6f : -999.0f);
      EXPECT_EQ(Rewrites(ExpectSameResults(m, {{"x", RandomFloats({1, 3, 8, 8}, 9)}}, {kPass},
                                           1e-5f, 2e-5f),
                         kPass),
                1);
    }
  }
}

TEST(ConvActivationFusion, LeavesAPerChannelScaleAfterTheActivation) {
  const onnx::ModelProto m = ConvThenAffineModel(Act::kRelu, true, true, true);
  const ir::Model model = Optimize(m, {kPass});
  EXPECT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"com.nxrt:FusedConv", "Mul", "Add", "Identity"}));
  ExpectSameResults(m, {{"x", RandomFloats({1, 3, 8, 8}, 10)}}, {kPass});
}

}  // namespace
}  // namespace nxrt::opt
