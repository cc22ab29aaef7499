// optimizer/constant_folding_test.cpp: the constant_folding pass on graphs before and after:
// what folds (chains, Constant nodes, graph outputs, values read by subgraphs, subgraph bodies),
// what does not (fed inputs, random ops, DequantizeLinear), and a kernel error while folding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "optimizer/optimizer_test_util.h"

namespace nxrt::opt {
namespace {

using testing::AddNode;
using testing::ExpectSameResults;
using testing::FillFloatTensor;
using testing::FillValueInfo;
using testing::MakeModel;
using testing::OpTypes;
using testing::Optimize;
using testing::RandomFloats;
using testing::Rewrites;

const std::vector<float> kW = {0.5f, -1.25f, 3.0f};
const std::vector<float> kC = {2.0f, 0.25f, -4.0f};

// The initializer tensor bound to the value named `name`, or nullptr.
const Tensor* InitializerNamed(const ir::Graph& graph, const std::string& name) {
  const ir::Initializer* init = graph.FindInitializer(graph.FindValue(name));
  return init != nullptr ? &init->tensor : nullptr;
}

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.span<float>().begin(), t.span<float>().end());
}

// y = x + (w + c) * 2 where c is a Constant node and w, two are initializers.
onnx::ModelProto ChainModel() {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {2, 3});
  FillFloatTensor(g->add_initializer(), "w", {3}, kW);
  FillFloatTensor(g->add_initializer(), "two", {}, {2.0f});
  onnx::NodeProto* c = AddNode(g, "Constant", {}, {"c"}, "const_c");
  onnx::AttributeProto* value = c->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  FillFloatTensor(value->mutable_t(), "", {3}, kC);
  AddNode(g, "Add", {"w", "c"}, {"wc"}, "add_wc");
  AddNode(g, "Mul", {"wc", "two"}, {"m"}, "mul_two");
  AddNode(g, "Add", {"x", "m"}, {"y"}, "add_x");
  return m;
}

TEST(ConstantFolding, FoldsAChainStartingAtAConstantNodeIntoOneInitializer) {
  ir::Model model = Optimize(ChainModel(), {"constant_folding"});
  const ir::Graph& g = *model.graph;
  ASSERT_EQ(OpTypes(g), std::vector<std::string>{"Add"});
  // The folded value keeps its name; the inputs it was made from are dropped.
  EXPECT_EQ(g.values[g.nodes[0].inputs[1]].name, "m");
  const Tensor* m = InitializerNamed(g, "m");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->shape(), Shape{3});
  std::vector<float> expected;
  for (size_t i = 0; i < kW.size(); ++i) expected.push_back((kW[i] + kC[i]) * 2.0f);
  EXPECT_EQ(Values(*m), expected);
  EXPECT_EQ(InitializerNamed(g, "w"), nullptr);
  EXPECT_EQ(g.initializers.size(), 1u);

  const auto stats =
      ExpectSameResults(ChainModel(), {{"x", RandomFloats({2, 3}, 7)}}, {"constant_folding"});
  EXPECT_EQ(Rewrites(stats, "constant_folding"), 3);
}

TEST(ConstantFolding, AFoldedGraphOutputAndAValueReadBySubgraphsKeepTheirNames) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {3});
  FillValueInfo(g->add_input(), "cond", onnx::TensorProto::BOOL, {});
  FillValueInfo(g->add_output(), "neg_w", onnx::TensorProto::FLOAT, {3});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {3});
  FillFloatTensor(g->add_initializer(), "w", {3}, kW);
  AddNode(g, "Neg", {"w"}, {"neg_w"}, "neg");
  AddNode(g, "Abs", {"w"}, {"abs_w"}, "abs");
  onnx::NodeProto* branch = AddNode(g, "If", {"cond"}, {"y"}, "if");
  onnx::GraphProto* then_g = ir::testing::AddGraphAttribute(branch, "then_branch");
  FillValueInfo(then_g->add_output(), "t", onnx::TensorProto::FLOAT, {3});
  AddNode(then_g, "Add", {"x", "abs_w"}, {"t"}, "then_add");
  onnx::GraphProto* else_g = ir::testing::AddGraphAttribute(branch, "else_branch");
  FillValueInfo(else_g->add_output(), "e", onnx::TensorProto::FLOAT, {3});
  FillFloatTensor(else_g->add_initializer(), "three", {}, {3.0f});
  AddNode(else_g, "Sqrt", {"three"}, {"root"}, "else_sqrt");
  AddNode(else_g, "Mul", {"x", "root"}, {"e"}, "else_mul");

  ir::Model model = Optimize(m, {"constant_folding"});
  const ir::Graph& main = *model.graph;
  EXPECT_EQ(OpTypes(main), std::vector<std::string>{"If"});
  const Tensor* neg_w = InitializerNamed(main, "neg_w");
  const Tensor* abs_w = InitializerNamed(main, "abs_w");
  ASSERT_NE(neg_w, nullptr);
  ASSERT_NE(abs_w, nullptr);
  for (size_t i = 0; i < kW.size(); ++i) {
    EXPECT_EQ(neg_w->data<float>()[i], -kW[i]);
    EXPECT_EQ(abs_w->data<float>()[i], std::fabs(kW[i]));
  }
  // The else body's Sqrt of its own constant folds too.
  const ir::Graph& else_body = *main.nodes[0].FindAttribute("else_branch")->g;
  EXPECT_EQ(OpTypes(else_body), std::vector<std::string>{"Mul"});

  for (bool cond : {true, false}) {
    const auto stats = ExpectSameResults(
        m, {{"x", RandomFloats({3}, 3)}, {"cond", Tensor::Scalar<bool>(cond)}},
        {"constant_folding"});
    EXPECT_EQ(Rewrites(stats, "constant_folding"), 3);
  }
}

TEST(ConstantFolding, ABranchOutputComputedFromConstantsBecomesTheBranchsInitializer) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "cond", onnx::TensorProto::BOOL, {});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {3});
  FillFloatTensor(g->add_initializer(), "w", {3}, kW);
  onnx::NodeProto* branch = AddNode(g, "If", {"cond"}, {"y"}, "if");
  onnx::GraphProto* then_g = ir::testing::AddGraphAttribute(branch, "then_branch");
  FillValueInfo(then_g->add_output(), "t", onnx::TensorProto::FLOAT, {3});
  FillFloatTensor(then_g->add_initializer(), "four", {3}, {4.0f, 9.0f, 16.0f});
  AddNode(then_g, "Sqrt", {"four"}, {"t"}, "then_sqrt");
  onnx::GraphProto* else_g = ir::testing::AddGraphAttribute(branch, "else_branch");
  FillValueInfo(else_g->add_output(), "e", onnx::TensorProto::FLOAT, {3});
  AddNode(else_g, "Neg", {"w"}, {"e"}, "else_neg");

  ir::Model model = Optimize(m, {"constant_folding"});
  const ir::Graph& then_body = *model.graph->nodes[0].FindAttribute("then_branch")->g;
  EXPECT_TRUE(then_body.nodes.empty());
  const Tensor* t = InitializerNamed(then_body, "t");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(Values(*t), (std::vector<float>{2.0f, 3.0f, 4.0f}));
  // `w` is a constant of the main graph: the else body folds what reads it, as ONNX Runtime
  // folds body nodes that read outer-scope constants.
  const ir::Graph& else_body = *model.graph->nodes[0].FindAttribute("else_branch")->g;
  EXPECT_TRUE(else_body.nodes.empty());
  const Tensor* e = InitializerNamed(else_body, "e");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(Values(*e), (std::vector<float>{-kW[0], -kW[1], -kW[2]}));

  for (bool cond : {true, false}) {
    const auto stats =
        ExpectSameResults(m, {{"cond", Tensor::Scalar<bool>(cond)}}, {"constant_folding"});
    EXPECT_EQ(Rewrites(stats, "constant_folding"), 2);
  }
}

TEST(ConstantFolding, ABranchReadingAFeedableOuterInitializerIsLeft) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "cond", onnx::TensorProto::BOOL, {});
  // `w` has an initializer but is also a graph input: a caller may feed it, in the body too.
  FillValueInfo(g->add_input(), "w", onnx::TensorProto::FLOAT, {3});
  FillFloatTensor(g->add_initializer(), "w", {3}, kW);
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {3});
  onnx::NodeProto* branch = AddNode(g, "If", {"cond"}, {"y"}, "if");
  for (const char* name : {"then_branch", "else_branch"}) {
    onnx::GraphProto* body = ir::testing::AddGraphAttribute(branch, name);
    FillValueInfo(body->add_output(), std::string(name) + "_out", onnx::TensorProto::FLOAT, {3});
    AddNode(body, "Neg", {"w"}, {std::string(name) + "_out"}, std::string(name) + "_neg");
  }
  ir::Model model = Optimize(m, {"constant_folding"});
  for (const char* name : {"then_branch", "else_branch"}) {
    EXPECT_EQ(OpTypes(*model.graph->nodes[0].FindAttribute(name)->g),
              std::vector<std::string>{"Neg"})
        << name;
  }
}

TEST(ConstantFolding, LeavesFedInputsRandomOpsAndDequantizeLinear) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "w", onnx::TensorProto::FLOAT, {3});
  FillValueInfo(g->add_output(), "neg_w", onnx::TensorProto::FLOAT, {3});
  FillValueInfo(g->add_output(), "r", onnx::TensorProto::FLOAT, {2});
  FillValueInfo(g->add_output(), "dq", onnx::TensorProto::FLOAT, {2});
  // `w` has an initializer but is also a graph input: a caller may feed it.
  FillFloatTensor(g->add_initializer(), "w", {3}, kW);
  AddNode(g, "Neg", {"w"}, {"neg_w"}, "neg");
  onnx::NodeProto* random = AddNode(g, "RandomUniform", {}, {"r"}, "random");
  onnx::AttributeProto* shape = random->add_attribute();
  shape->set_name("shape");
  shape->set_type(onnx::AttributeProto::INTS);
  shape->add_ints(2);
  onnx::TensorProto* q = g->add_initializer();
  q->set_name("q");
  q->set_data_type(onnx::TensorProto::INT8);
  q->add_dims(2);
  q->add_int32_data(-3);
  q->add_int32_data(5);
  FillFloatTensor(g->add_initializer(), "q_scale", {}, {0.5f});
  AddNode(g, "DequantizeLinear", {"q", "q_scale"}, {"dq"}, "dequantize");

  ir::Model model = Optimize(m, {"constant_folding"});
  EXPECT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"Neg", "RandomUniform", "DequantizeLinear"}));
}

TEST(ConstantFolding, AKernelErrorNamesThePassAndTheNode) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {4});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {4});
  FillFloatTensor(g->add_initializer(), "w", {6}, {1, 2, 3, 4, 5, 6});
  onnx::TensorProto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(1);
  shape->add_int64_data(4);
  AddNode(g, "Reshape", {"w", "shape"}, {"w4"}, "bad_reshape");
  AddNode(g, "Add", {"x", "w4"}, {"y"}, "add");

  ir::Model model = testing::Load(m);
  auto r = OptimizeModel(model, {1, testing::AllPassesBut({"constant_folding"})});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(ir::testing::Contains(r.status().message(), "optimizer pass 'constant_folding'"));
  EXPECT_TRUE(ir::testing::Contains(r.status().message(), "bad_reshape"));
}

}  // namespace
}  // namespace nxrt::opt
