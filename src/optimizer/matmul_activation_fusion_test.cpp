// optimizer/matmul_activation_fusion_test.cpp: MatMul (+ bias) (+ activation) →
// com.nxrt:FusedMatMul and Gemm + activation → com.nxrt:FusedGemm: the graph after the pass,
// results against the unfused nodes (level-0 session) for every activation and several ranks,
// and the cases the pass must leave alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ep/cpu/nxrt_ops.h"
#include "optimizer/activation_test_util.h"

namespace nxrt::opt {
namespace {

using testing::Act;
using testing::ActName;
using testing::AddActivation;
using testing::AddFloatAttribute;
using testing::AddFloatConstant;
using testing::AddFloatOutput;
using testing::AddIntAttribute;
using testing::AddNode;
using testing::ExpectSameResults;
using testing::Floats;
using testing::FillFloatInfo;
using testing::FillValueInfo;
using testing::MakeModel;
using testing::OpTypes;
using testing::Optimize;
using testing::RandomFloats;
using testing::Rewrites;
using testing::StringAttr;

constexpr const char* kPass = "matmul_activation_fusion";

enum class Bias { kNone, kRow, kRowFirst, kLeadingOnes, kMatrix, kInput };

struct MatMulCase {
  std::vector<int64_t> a_shape = {2, 3, 8};
  std::vector<int64_t> b_shape = {8, 5};
  bool b_constant = true;
  Bias bias = Bias::kRow;
  Act act = Act::kRelu;
  bool matmul_out_is_output = false;
  bool add_out_is_output = false;
};

// a → MatMul(b) → [Add(bias)] → activation → y; b an initializer or an input.
onnx::ModelProto MatMulModel(const MatMulCase& c) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  const int64_t n = c.b_shape.back();
  FillFloatInfo(g->add_input(), "a", c.a_shape);
  AddFloatOutput(g, "y");
  if (c.b_constant) {
    AddFloatConstant(g, "b", c.b_shape, Floats(c.b_shape, 11));
  } else {
    FillFloatInfo(g->add_input(), "b", c.b_shape);
  }
  AddNode(g, "MatMul", {"a", "b"}, {"mm"}, "matmul");
  if (c.bias == Bias::kLeadingOnes) {
    // The product's shape, as an exporter's value_info gives it: the pass needs its rank to
    // know that a [1, 1, N] bias does not raise it.
    std::vector<int64_t> mm = c.a_shape.size() >= c.b_shape.size() ? c.a_shape : c.b_shape;
    mm[mm.size() - 2] = c.a_shape[c.a_shape.size() - 2];
    mm.back() = n;
    FillFloatInfo(g->add_value_info(), "mm", mm);
  }
  std::string last = "mm";
  if (c.bias != Bias::kNone) {
    std::vector<int64_t> bias_shape = {n};
    if (c.bias == Bias::kLeadingOnes) bias_shape = {1, 1, n};
    if (c.bias == Bias::kMatrix) bias_shape = {c.a_shape[c.a_shape.size() - 2], n};
    if (c.bias == Bias::kInput) {
      FillValueInfo(g->add_input(), "bias", onnx::TensorProto::FLOAT, {n});
    } else {
      int64_t count = 1;
      for (int64_t d : bias_shape) count *= d;
      AddFloatConstant(g, "bias", bias_shape, Floats({count}, 12));
    }
    if (c.bias == Bias::kRowFirst) {
      AddNode(g, "Add", {"bias", "mm"}, {"biased"}, "add");
    } else {
      AddNode(g, "Add", {"mm", "bias"}, {"biased"}, "add");
    }
    last = "biased";
  }
  AddActivation(g, c.act, last, "y");
  if (c.matmul_out_is_output) AddFloatOutput(g, "mm");
  if (c.add_out_is_output) AddFloatOutput(g, "biased");
  return m;
}

std::vector<NamedTensor> Inputs(const MatMulCase& c) {
  std::vector<NamedTensor> in = {{"a", RandomFloats(c.a_shape, 21, -2, 2)}};
  if (!c.b_constant) in.push_back({"b", RandomFloats(c.b_shape, 22)});
  if (c.bias == Bias::kInput) in.push_back({"bias", RandomFloats({c.b_shape.back()}, 23)});
  return in;
}

// The passes a case needs: gelu_fusion first makes com.nxrt:Gelu of the written-out GELU.
std::vector<std::string> Passes(Act act) {
  if (act == Act::kGelu || act == Act::kGeluTanh) return {"gelu_fusion", kPass};
  return {kPass};
}

const ir::Node* FindOp(const ir::Graph& g, const std::string& op_type) {
  for (const ir::Node& n : g.nodes) {
    if (n.op_type == op_type) return &n;
  }
  return nullptr;
}

TEST(MatMulActivationFusion, FusesMatMulBiasAndReluIntoOneNode) {
  const MatMulCase c;
  const ir::Model model = Optimize(MatMulModel(c), {kPass});
  const ir::Graph& g = *model.graph;
  ASSERT_EQ(OpTypes(g), std::vector<std::string>{"com.nxrt:FusedMatMul"});
  const ir::Node& fused = g.nodes[0];
  ASSERT_EQ(fused.inputs.size(), 3u);
  EXPECT_EQ(g.values[fused.inputs[0]].name, "a");
  EXPECT_EQ(g.values[fused.inputs[1]].name, "b");
  EXPECT_EQ(g.values[fused.inputs[2]].name, "bias");
  EXPECT_EQ(g.values[fused.outputs[0]].name, "y");
  EXPECT_EQ(StringAttr(fused, "activation"), "Relu");
  EXPECT_EQ(model.OpsetFor(cpu::nxrt_ops::kDomain), 1);
}

TEST(MatMulActivationFusion, KeepsTheActivationParameters) {
  for (Act act : {Act::kLeakyRelu, Act::kClip}) {
    MatMulCase c;
    c.act = act;
    const ir::Model model = Optimize(MatMulModel(c), {kPass});
    ASSERT_EQ(OpTypes(*model.graph), std::vector<std::string>{"com.nxrt:FusedMatMul"});
    const ir::Node& fused = model.graph->nodes[0];
    EXPECT_EQ(StringAttr(fused, "activation"), ActName(act));
    EXPECT_FLOAT_EQ(GraphEditor::FloatAttr(fused, "activation_alpha", 99),
                    act == Act::kClip ? -0.5f : 0.2f);
    if (act == Act::kClip) {
      EXPECT_FLOAT_EQ(GraphEditor::FloatAttr(fused, "activation_beta", 99), 0.7f);
    }
  }
}

TEST(MatMulActivationFusion, SameResultsForEveryActivation) {
  for (Act act : {Act::kNone, Act::kRelu, Act::kLeakyRelu, Act::kClip, Act::kSigmoid, Act::kTanh,
                  Act::kSwish, Act::kSwishScaled, Act::kGelu, Act::kGeluTanh}) {
    for (Bias bias : {Bias::kRow, Bias::kNone}) {
      if (act == Act::kNone && bias == Bias::kNone) continue;
      SCOPED_TRACE(std::string("activation '") + ActName(act) +
                   (bias == Bias::kRow ? "' with bias" : "' without bias"));
      MatMulCase c;
      c.act = act;
      c.bias = bias;
      const onnx::ModelProto m = MatMulModel(c);
      const std::vector<OptimizerPassStats> stats =
          ExpectSameResults(m, Inputs(c), Passes(act), 1e-5f, 2e-5f);
      EXPECT_EQ(Rewrites(stats, kPass), 1);
      const ir::Model model = Optimize(m, Passes(act));
      // Identity stands for "no activation" in the model and stays.
      EXPECT_EQ(model.graph->nodes.size(), act == Act::kNone ? 2u : 1u);
      EXPECT_NE(FindOp(*model.graph, "FusedMatMul"), nullptr);
    }
  }
}

TEST(MatMulActivationFusion, SameResultsForRanksAndBiasForms) {
  struct Shapes {
    std::vector<int64_t> a, b;
  };
  const std::vector<Shapes> shapes = {
      {{7, 16}, {16, 9}},          {{2, 3, 8}, {8, 5}},        {{2, 2, 3, 12}, {12, 33}},
      {{1, 5}, {5, 64}},           {{2, 4, 6}, {2, 6, 3}},     {{3, 1, 4, 6}, {2, 6, 10}},
      {{16}, {16, 7}},
  };
  uint32_t seed = 0;
  for (const Shapes& s : shapes) {
    for (Bias bias : {Bias::kRow, Bias::kRowFirst, Bias::kLeadingOnes}) {
      if (bias == Bias::kLeadingOnes && s.a.size() < 3) continue;
      for (bool b_constant : {true, false}) {
        MatMulCase c;
        c.a_shape = s.a;
        c.b_shape = s.b;
        c.bias = bias;
        c.b_constant = b_constant;
        c.act = (seed++ % 2) != 0 ? Act::kTanh : Act::kRelu;
        SCOPED_TRACE("A " + ShapeToString(s.a) + " B " + ShapeToString(s.b) +
                     (b_constant ? " constant" : " input") + " bias form " +
                     std::to_string(static_cast<int>(bias)));
        EXPECT_EQ(Rewrites(ExpectSameResults(MatMulModel(c), Inputs(c), {kPass}, 1e-5f, 2e-5f),
                           kPass),
                  1);
      }
    }
  }
}

TEST(MatMulActivationFusion, LeavesUnsafePatternsAlone) {
  struct Case {
    const char* what;
    MatMulCase c;
    std::vector<std::string> ops;
  };
  std::vector<Case> cases;
  {
    Case k{"MatMul output also a graph output", {}, {"MatMul", "Add", "Relu"}};
    k.c.matmul_out_is_output = true;
    cases.push_back(k);
  }
  {
    Case k{"Add output also a graph output: only the bias fuses",
           {},
           {"com.nxrt:FusedMatMul", "Relu"}};
    k.c.add_out_is_output = true;
    cases.push_back(k);
  }
  {
    Case k{"bias is a graph input", {}, {"MatMul", "Add", "Relu"}};
    k.c.bias = Bias::kInput;
    cases.push_back(k);
  }
  {
    Case k{"bias is a matrix, not a row", {}, {"MatMul", "Add", "Relu"}};
    k.c.bias = Bias::kMatrix;
    cases.push_back(k);
  }
  {
    Case k{"bias [1, 1, N] would raise a rank-2 product's rank", {}, {"MatMul", "Add", "Relu"}};
    k.c.a_shape = {4, 8};
    k.c.bias = Bias::kLeadingOnes;
    cases.push_back(k);
  }
  {
    Case k{"HardSigmoid is no MatMul epilogue", {}, {"com.nxrt:FusedMatMul", "HardSigmoid"}};
    k.c.act = Act::kHardSigmoid;
    cases.push_back(k);
  }
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    const onnx::ModelProto m = MatMulModel(k.c);
    EXPECT_EQ(OpTypes(*Optimize(m, {kPass}).graph), k.ops);
    ExpectSameResults(m, Inputs(k.c), {kPass});
  }
}

TEST(MatMulActivationFusion, LeavesClipWithComputedBoundsAlone) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "a", onnx::TensorProto::FLOAT, {4, 8});
  FillValueInfo(g->add_input(), "hi", onnx::TensorProto::FLOAT, {});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {4, 5});
  AddFloatConstant(g, "b", {8, 5}, Floats({8, 5}, 3));
  AddNode(g, "MatMul", {"a", "b"}, {"mm"});
  AddNode(g, "Clip", {"mm", "", "hi"}, {"y"});
  EXPECT_EQ(OpTypes(*Optimize(m, {kPass}).graph), (std::vector<std::string>{"MatMul", "Clip"}));
}

// a [M, K] → Gemm(B [N, K], C, transB) → activation → y: the MLP layer.
onnx::ModelProto GemmModel(Act act, bool full_c, float alpha, float beta) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "a", onnx::TensorProto::FLOAT, {6, 12});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {6, 10});
  AddFloatConstant(g, "b", {10, 12}, Floats({10, 12}, 31));
  if (full_c) {
    AddFloatConstant(g, "c", {6, 10}, Floats({6, 10}, 32));
  } else {
    AddFloatConstant(g, "c", {10}, Floats({10}, 32));
  }
  onnx::NodeProto* gemm = AddNode(g, "Gemm", {"a", "b", "c"}, {"g"}, "gemm");
  AddIntAttribute(gemm, "transB", 1);
  AddFloatAttribute(gemm, "alpha", alpha);
  AddFloatAttribute(gemm, "beta", beta);
  AddActivation(g, act, "g", "y");
  return m;
}

TEST(MatMulActivationFusion, FusesGemmAndActivationKeepingGemmAttributes) {
  const ir::Model model = Optimize(GemmModel(Act::kRelu, false, 1.0f, 1.0f), {kPass});
  const ir::Graph& g = *model.graph;
  ASSERT_EQ(OpTypes(g), std::vector<std::string>{"com.nxrt:FusedGemm"});
  const ir::Node& fused = g.nodes[0];
  EXPECT_EQ(GraphEditor::IntAttr(fused, "transB", 0), 1);
  EXPECT_FLOAT_EQ(GraphEditor::FloatAttr(fused, "alpha", 0), 1.0f);
  EXPECT_EQ(StringAttr(fused, "activation"), "Relu");
  ASSERT_EQ(fused.inputs.size(), 3u);
  EXPECT_EQ(g.values[fused.inputs[2]].name, "c");
  EXPECT_EQ(g.values[fused.outputs[0]].name, "y");
}

TEST(MatMulActivationFusion, GemmSameResults) {
  for (Act act : {Act::kRelu, Act::kLeakyRelu, Act::kClip, Act::kSigmoid, Act::kTanh, Act::kSwish,
                  Act::kGelu, Act::kGeluTanh}) {
    for (bool full_c : {false, true}) {
      SCOPED_TRACE(std::string(ActName(act)) + (full_c ? " C [M, N], alpha 0.5, beta 2" : ""));
      const onnx::ModelProto m =
          GemmModel(act, full_c, full_c ? 0.5f : 1.0f, full_c ? 2.0f : 1.0f);
      const std::vector<NamedTensor> in = {{"a", RandomFloats({6, 12}, 41, -2, 2)}};
      EXPECT_EQ(Rewrites(ExpectSameResults(m, in, Passes(act), 1e-5f, 2e-5f), kPass), 1);
    }
  }
}

TEST(MatMulActivationFusion, LeavesGemmWithoutActivationAlone) {
  const onnx::ModelProto m = GemmModel(Act::kNone, false, 1.0f, 1.0f);
  EXPECT_EQ(OpTypes(*Optimize(m, {kPass}).graph), (std::vector<std::string>{"Gemm", "Identity"}));
}

}  // namespace
}  // namespace nxrt::opt
