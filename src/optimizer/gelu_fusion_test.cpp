// optimizer/gelu_fusion_test.cpp: GELU written out with Erf or Tanh → com.nxrt:Gelu, before and
// after, results against the unfused graph, and the cases it must leave alone.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "optimizer/optimizer_test_util.h"

namespace nxrt::opt {
namespace {

using testing::AddNode;
using testing::ExpectSameResults;
using testing::FillFloatTensor;
using testing::FillValueInfo;
using testing::MakeModel;
using testing::Optimize;
using testing::OpTypes;
using testing::RandomFloats;
using testing::Rewrites;

enum class Form {
  kErfBert,       // Mul(x, Mul(Add(Erf(Div(x, sqrt2)), 1), 0.5)): make_bench_models.py gelu_erf
  kErfHalfFirst,  // Mul(Mul(x, 0.5), Add(1, Erf(Mul(x, 1/sqrt2)))): PyTorch nn.GELU export
  kErfHalfLast,   // Mul(Mul(Add(Erf(Div(x, sqrt2)), 1), x), 0.5)
  kTanhGpt2,      // 0.5 x (1 + tanh(k (x + 0.044715 Pow(x, 3)))): gelu_tanh
  kTanhMulCube,   // the same with x^3 = Mul(Mul(x, x), x) and constants on the left
};

struct GeluModelOptions {
  Form form = Form::kErfBert;
  float sqrt2 = std::numbers::sqrt2_v<float>;  // the divisor (its inverse for Mul forms)
  float half = 0.5f;
  bool erf_is_output = false;  // the Erf/Tanh output also a graph output
  bool half_is_input = false;  // 0.5 a graph input instead of an initializer
  bool other_x = false;        // the outer product reads another tensor than the Erf branch
  bool through_relu = false;   // GELU of Relu(x), a value without a type in the model
};

onnx::ModelProto GeluModel(const GeluModelOptions& o) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {"batch", 16});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {"batch", 16});
  if (o.through_relu) AddNode(g, "Relu", {"x"}, {"xr"});
  const std::string x = o.through_relu ? "xr" : "x";
  const std::string outer_x = o.other_x ? "x2" : x;
  if (o.other_x) FillValueInfo(g->add_input(), "x2", onnx::TensorProto::FLOAT, {"batch", 16});
  FillFloatTensor(g->add_initializer(), "one", {}, {1.0f});
  if (o.half_is_input) {
    FillValueInfo(g->add_input(), "half", onnx::TensorProto::FLOAT, {});
  } else {
    FillFloatTensor(g->add_initializer(), "half", {}, {o.half});
  }
  const bool erf =
      o.form == Form::kErfBert || o.form == Form::kErfHalfFirst || o.form == Form::kErfHalfLast;
  if (erf) {
    if (o.form == Form::kErfHalfFirst) {
      FillFloatTensor(g->add_initializer(), "inv_sqrt2", {}, {1.0f / o.sqrt2});
      AddNode(g, "Mul", {x, "inv_sqrt2"}, {"u"});
    } else {
      FillFloatTensor(g->add_initializer(), "sqrt2", {1}, {o.sqrt2});
      AddNode(g, "Div", {x, "sqrt2"}, {"u"});
    }
    AddNode(g, "Erf", {"u"}, {"e"});
  } else {
    FillFloatTensor(g->add_initializer(), "c", {}, {0.044715f});
    FillFloatTensor(g->add_initializer(), "k", {},
                    {static_cast<float>(std::sqrt(2.0 / std::numbers::pi))});
    if (o.form == Form::kTanhGpt2) {
      FillFloatTensor(g->add_initializer(), "three", {}, {3.0f});
      AddNode(g, "Pow", {x, "three"}, {"cube"});
      AddNode(g, "Mul", {"cube", "c"}, {"term"});
      AddNode(g, "Add", {x, "term"}, {"inner"});
      AddNode(g, "Mul", {"inner", "k"}, {"w"});
    } else {
      AddNode(g, "Mul", {x, x}, {"square"});
      AddNode(g, "Mul", {"square", x}, {"cube"});
      AddNode(g, "Mul", {"c", "cube"}, {"term"});
      AddNode(g, "Add", {"term", x}, {"inner"});
      AddNode(g, "Mul", {"k", "inner"}, {"w"});
    }
    AddNode(g, "Tanh", {"w"}, {"e"});
  }
  switch (o.form) {
    case Form::kErfBert:
      AddNode(g, "Add", {"e", "one"}, {"a"});
      AddNode(g, "Mul", {"a", "half"}, {"h"});
      AddNode(g, "Mul", {outer_x, "h"}, {"y"});
      break;
    case Form::kErfHalfFirst:
    case Form::kTanhGpt2:
    case Form::kTanhMulCube:
      AddNode(g, "Add", {"one", "e"}, {"a"});
      AddNode(g, "Mul", {outer_x, "half"}, {"h"});
      AddNode(g, "Mul", {"h", "a"}, {"y"});
      break;
    case Form::kErfHalfLast:
      AddNode(g, "Add", {"e", "one"}, {"a"});
      AddNode(g, "Mul", {"a", outer_x}, {"h"});
      AddNode(g, "Mul", {"h", "half"}, {"y"});
      break;
  }
  if (o.erf_is_output) FillValueInfo(g->add_output(), "e", onnx::TensorProto::FLOAT, {"batch", 16});
  return m;
}

std::vector<NamedTensor> GeluInputs(const GeluModelOptions& o) {
  std::vector<NamedTensor> inputs = {{"x", RandomFloats({3, 16}, 11, -4.0f, 4.0f)}};
  if (o.other_x) inputs.push_back({"x2", RandomFloats({3, 16}, 12, -4.0f, 4.0f)});
  if (o.half_is_input) inputs.push_back({"half", Tensor::Scalar(0.5f)});
  return inputs;
}

TEST(GeluFusion, FusesEveryGroupingOfTheErfAndTanhForms) {
  for (Form form : {Form::kErfBert, Form::kErfHalfFirst, Form::kErfHalfLast, Form::kTanhGpt2,
                    Form::kTanhMulCube}) {
    GeluModelOptions o;
    o.form = form;
    SCOPED_TRACE(static_cast<int>(form));
    ir::Model model = Optimize(GeluModel(o), {"gelu_fusion"});
    ASSERT_EQ(OpTypes(*model.graph), std::vector<std::string>{"com.nxrt:Gelu"});
    const ir::Node& gelu = model.graph->nodes[0];
    ASSERT_EQ(gelu.inputs.size(), 1u);
    EXPECT_EQ(model.graph->values[gelu.inputs[0]].name, "x");
    EXPECT_EQ(model.graph->values[gelu.outputs[0]].name, "y");
    const ir::Attribute* approximate = gelu.FindAttribute("approximate");
    ASSERT_NE(approximate, nullptr);
    const bool tanh = form == Form::kTanhGpt2 || form == Form::kTanhMulCube;
    EXPECT_EQ(approximate->s, tanh ? "tanh" : "none");
    EXPECT_TRUE(model.graph->initializers.empty());
    const auto stats = ExpectSameResults(GeluModel(o), GeluInputs(o), {"gelu_fusion"});
    EXPECT_EQ(Rewrites(stats, "gelu_fusion"), 1);
  }
}

TEST(GeluFusion, AcceptsConstantsWithinTheTolerance) {
  GeluModelOptions o;
  o.sqrt2 = 1.4142f;  // 4e-5 relative off sqrt(2), as written with fewer digits
  ir::Model model = Optimize(GeluModel(o), {"gelu_fusion"});
  EXPECT_EQ(OpTypes(*model.graph), std::vector<std::string>{"com.nxrt:Gelu"});
}

TEST(GeluFusion, LeavesPatternsItCannotReplace) {
  GeluModelOptions wrong_divisor;
  wrong_divisor.sqrt2 = 1.5f;
  GeluModelOptions wrong_half;
  wrong_half.half = 0.6f;
  wrong_half.form = Form::kTanhGpt2;
  GeluModelOptions erf_output;
  erf_output.erf_is_output = true;
  GeluModelOptions half_input;
  half_input.half_is_input = true;
  GeluModelOptions other_x;
  other_x.other_x = true;
  other_x.form = Form::kErfHalfLast;
  for (const GeluModelOptions& o : {wrong_divisor, wrong_half, erf_output, half_input, other_x}) {
    const size_t before = Optimize(GeluModel(o), {}).graph->nodes.size();
    ir::Model model = Optimize(GeluModel(o), {"gelu_fusion"});
    EXPECT_EQ(model.graph->nodes.size(), before);
    for (const std::string& op : OpTypes(*model.graph)) EXPECT_NE(op, "com.nxrt:Gelu");
    const auto stats = ExpectSameResults(GeluModel(o), GeluInputs(o), {"gelu_fusion"});
    EXPECT_EQ(Rewrites(stats, "gelu_fusion"), 0);
  }
}

TEST(GeluFusion, AnInputWithoutTypeTakesRankZeroConstantsOnly) {
  GeluModelOptions scalars;  // every constant of rank 0
  scalars.form = Form::kErfHalfFirst;
  scalars.through_relu = true;
  ir::Model model = Optimize(GeluModel(scalars), {"gelu_fusion"});
  EXPECT_EQ(OpTypes(*model.graph), (std::vector<std::string>{"Relu", "com.nxrt:Gelu"}));
  const auto stats = ExpectSameResults(GeluModel(scalars), GeluInputs(scalars), {"gelu_fusion"});
  EXPECT_EQ(Rewrites(stats, "gelu_fusion"), 1);
  for (Form form : {Form::kTanhGpt2, Form::kTanhMulCube}) {
    GeluModelOptions tanh;
    tanh.form = form;
    tanh.through_relu = true;
    model = Optimize(GeluModel(tanh), {"gelu_fusion"});
    EXPECT_EQ(OpTypes(*model.graph), (std::vector<std::string>{"Relu", "com.nxrt:Gelu"}));
  }
  // sqrt(2) of shape [1] would make a rank-0 x rank 1; x's rank is unknown here.
  GeluModelOptions shaped;
  shaped.through_relu = true;
  model = Optimize(GeluModel(shaped), {"gelu_fusion"});
  EXPECT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"Relu", "Div", "Erf", "Add", "Mul", "Mul"}));
}

}  // namespace
}  // namespace nxrt::opt
