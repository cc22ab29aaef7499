// optimizer/optimizer_test.cpp: the driver (levels, switching passes off, bad options) and the
// dead-node elimination, identity elimination, constant sharing and common subexpression
// elimination passes, each on a graph before and after.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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

// x -> Relu -> y (output); x -> Sigmoid -> Neg (dead chain); x -> Tanh -> t read only by a
// subgraph-free dead Add with the dead chain.
onnx::ModelProto DeadChainModel() {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {2, 3});
  FillFloatTensor(g->add_initializer(), "unused_w", {3}, {1, 2, 3});
  AddNode(g, "Relu", {"x"}, {"y"}, "relu");
  AddNode(g, "Sigmoid", {"x"}, {"s"}, "sigmoid");
  AddNode(g, "Neg", {"s"}, {"n"}, "neg");
  AddNode(g, "Tanh", {"x"}, {"t"}, "tanh");
  AddNode(g, "Add", {"n", "t"}, {"a"}, "add");
  AddNode(g, "Mul", {"a", "unused_w"}, {"m"}, "mul");
  return m;
}

TEST(DeadNodeElimination, RemovesWholeDeadChainsAndTheirInitializers) {
  ir::Model model = Optimize(DeadChainModel(), {"dead_node_elimination"});
  EXPECT_EQ(OpTypes(*model.graph), std::vector<std::string>{"Relu"});
  EXPECT_EQ(model.graph->initializers.size(), 0u);
  const auto stats = ExpectSameResults(DeadChainModel(), {{"x", RandomFloats({2, 3}, 1)}},
                                       {"dead_node_elimination"});
  EXPECT_EQ(Rewrites(stats, "dead_node_elimination"), 5);
}

TEST(DeadNodeElimination, KeepsNodesReadByGraphOutputsAndCustomDomains) {
  onnx::ModelProto m = DeadChainModel();
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_output(), "s", onnx::TensorProto::FLOAT, {2, 3});
  onnx::OperatorSetIdProto* custom = m.add_opset_import();
  custom->set_domain("com.example");
  custom->set_version(1);
  AddNode(g, "Log", {"x"}, {"log"}, "custom_log", "com.example");
  ir::Model model = Optimize(m, {"dead_node_elimination"});
  EXPECT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"Relu", "Sigmoid", "com.example:Log"}));
}

// x -> Relu -> r -> Identity -> i -> Sigmoid -> s -> Identity -> y (graph output).
onnx::ModelProto IdentityChainModel() {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {4, 5});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {4, 5});
  AddNode(g, "Relu", {"x"}, {"r"}, "relu");
  AddNode(g, "Identity", {"r"}, {"i"}, "middle");
  AddNode(g, "Sigmoid", {"i"}, {"s"}, "sigmoid");
  AddNode(g, "Identity", {"s"}, {"y"}, "output");
  return m;
}

TEST(IdentityElimination, RemovesMiddleAndOutputCopies) {
  ir::Model model = Optimize(IdentityChainModel(), {"identity_elimination"});
  ASSERT_EQ(OpTypes(*model.graph), (std::vector<std::string>{"Relu", "Sigmoid"}));
  const ir::Graph& g = *model.graph;
  // Sigmoid now reads Relu's output and writes the graph output itself.
  EXPECT_EQ(g.nodes[1].inputs[0], g.nodes[0].outputs[0]);
  EXPECT_EQ(g.nodes[1].outputs[0], g.outputs[0]);
  EXPECT_EQ(g.values[g.outputs[0]].name, "y");
  const auto stats = ExpectSameResults(IdentityChainModel(), {{"x", RandomFloats({4, 5}, 3)}},
                                       {"identity_elimination"});
  EXPECT_EQ(Rewrites(stats, "identity_elimination"), 2);
}

TEST(IdentityElimination, KeepsCopiesWhoseSourceIsReadElsewhereOrIsAGraphInput) {
  onnx::ModelProto m = IdentityChainModel();
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_output(), "s", onnx::TensorProto::FLOAT, {4, 5});  // s also an output
  FillValueInfo(g->add_output(), "x_copy", onnx::TensorProto::FLOAT, {4, 5});
  AddNode(g, "Identity", {"x"}, {"x_copy"}, "input_copy");
  ir::Model model = Optimize(m, {"identity_elimination"});
  EXPECT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"Relu", "Sigmoid", "Identity", "Identity"}));
  ExpectSameResults(m, {{"x", RandomFloats({4, 5}, 4)}}, {"identity_elimination"});
}

// x -> Relu -> Cast(float) -> Mul(·, [1]) -> Sub(·, 0) -> Add(·, [[[0]]]) -> Split -> two
// Identity graph outputs, and z = Relu(Add(x, 0)). The Cast, Mul and Sub copy their input (ONNX
// Runtime's CastElimination and NoopElimination); the Add's zero has rank 3 > 2, so it
// broadcasts to rank 3 and stays. Add(x, 0) stays too: x is a graph input, and ORT removes a
// node of two inputs only when one of them comes from a node it can rewire.
onnx::ModelProto NoOpChainModel() {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {4, 5});
  FillValueInfo(g->add_output(), "y1", onnx::TensorProto::FLOAT, {1, 2, 5});
  FillValueInfo(g->add_output(), "y2", onnx::TensorProto::FLOAT, {1, 2, 5});
  FillValueInfo(g->add_output(), "z", onnx::TensorProto::FLOAT, {4, 5});
  for (const char* name : {"r", "c", "m", "s", "k"}) {
    FillValueInfo(g->add_value_info(), name, onnx::TensorProto::FLOAT, {4, 5});
  }
  FillFloatTensor(g->add_initializer(), "one", {1}, {1});
  FillFloatTensor(g->add_initializer(), "zero", {}, {0});
  FillFloatTensor(g->add_initializer(), "zero3", {1, 1, 1}, {0});
  AddNode(g, "Relu", {"x"}, {"r"}, "relu");
  onnx::NodeProto* cast = AddNode(g, "Cast", {"r"}, {"c"}, "cast");
  onnx::AttributeProto* to = cast->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(onnx::TensorProto::FLOAT);
  AddNode(g, "Mul", {"one", "c"}, {"m"}, "mul");
  AddNode(g, "Sub", {"m", "zero"}, {"s"}, "sub");
  AddNode(g, "Add", {"s", "zero3"}, {"a"}, "add");
  onnx::NodeProto* split = AddNode(g, "Split", {"a"}, {"p", "q"}, "split");
  onnx::AttributeProto* axis = split->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(1);
  AddNode(g, "Identity", {"p"}, {"y1"}, "copy1");
  AddNode(g, "Identity", {"q"}, {"y2"}, "copy2");
  AddNode(g, "Add", {"x", "zero"}, {"k"}, "add_of_input");
  AddNode(g, "Relu", {"k"}, {"z"}, "relu_z");
  return m;
}

TEST(IdentityElimination, RemovesSameTypeCastsArithmeticNoOpsAndCopiesOfSeveralOutputs) {
  ir::Model model = Optimize(NoOpChainModel(), {"identity_elimination"});
  ASSERT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"Relu", "Add", "Split", "Add", "Relu"}));
  const ir::Graph& g = *model.graph;
  EXPECT_EQ(g.values[g.nodes[1].inputs[0]].name, "r");
  // Split writes both graph outputs itself.
  EXPECT_EQ(g.nodes[2].outputs, (std::vector<ir::ValueId>{g.outputs[0], g.outputs[1]}));
  EXPECT_EQ(g.values[g.nodes[3].inputs[0]].name, "x");
  const auto stats = ExpectSameResults(NoOpChainModel(), {{"x", RandomFloats({4, 5}, 5)}},
                                       {"identity_elimination"});
  EXPECT_EQ(Rewrites(stats, "identity_elimination"), 5);
}

// r = Relu(x) sliced four ways: starts 0 and ends INT64_MAX on axes 0 and 1 (the whole tensor,
// ONNX Runtime's EliminateSlice removes it), ends 5 (what a shape says, not INT64_MAX: kept),
// steps 2 (kept); and a same-type Cast writing a graph output (kept: ORT moves only an
// Identity's graph output onto its producer).
void FillInt64Tensor(onnx::TensorProto* t, const std::string& name,
                     const std::vector<int64_t>& values) {
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
}

onnx::ModelProto SliceModel() {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {4, 5});
  for (const char* name : {"whole", "to5", "cast"}) {
    FillValueInfo(g->add_output(), name, onnx::TensorProto::FLOAT, {4, 5});
  }
  FillValueInfo(g->add_output(), "stepped", onnx::TensorProto::FLOAT, {2, 3});
  FillValueInfo(g->add_value_info(), "r", onnx::TensorProto::FLOAT, {4, 5});
  const int64_t max = std::numeric_limits<int64_t>::max();
  FillInt64Tensor(g->add_initializer(), "zeros", {0, 0});
  FillInt64Tensor(g->add_initializer(), "maxes", {max, max});
  FillInt64Tensor(g->add_initializer(), "fives", {5, 5});
  FillInt64Tensor(g->add_initializer(), "axes", {0, 1});
  FillInt64Tensor(g->add_initializer(), "twos", {2, 2});
  AddNode(g, "Relu", {"x"}, {"r"}, "relu");
  AddNode(g, "Slice", {"r", "zeros", "maxes", "axes"}, {"w"}, "whole_slice");
  AddNode(g, "Slice", {"r", "zeros", "fives", "axes"}, {"f"}, "to5_slice");
  AddNode(g, "Slice", {"r", "zeros", "maxes", "axes", "twos"}, {"t"}, "stepped_slice");
  AddNode(g, "Neg", {"w"}, {"whole"}, "neg_whole");
  AddNode(g, "Neg", {"f"}, {"to5"}, "neg_to5");
  AddNode(g, "Neg", {"t"}, {"stepped"}, "neg_stepped");
  onnx::NodeProto* cast = AddNode(g, "Cast", {"r"}, {"cast"}, "cast");
  onnx::AttributeProto* to = cast->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(onnx::TensorProto::FLOAT);
  return m;
}

TEST(IdentityElimination, RemovesASliceOfTheWholeTensorOnly) {
  ir::Model model = Optimize(SliceModel(), {"identity_elimination"});
  ASSERT_EQ(OpTypes(*model.graph), (std::vector<std::string>{"Relu", "Slice", "Slice", "Neg",
                                                             "Neg", "Neg", "Cast"}));
  const ir::Graph& g = *model.graph;
  EXPECT_EQ(g.values[g.nodes[3].inputs[0]].name, "r");
  const auto stats = ExpectSameResults(SliceModel(), {{"x", RandomFloats({4, 5}, 6)}},
                                       {"identity_elimination"});
  EXPECT_EQ(Rewrites(stats, "identity_elimination"), 1);
}

// y = (((((((x · two_a) · two_b) + two_1d) + zero) + minus_zero) + four_a) + four_b), then
// compared with nan_a and nan_b (never true) in a Where, + the Constant two_c; z = nine_a +
// nine_b. Equal by bytes, type and shape: two_a, two_b and two_c; four_a and four_b; the two
// NaNs. two_1d has shape [1]; 0 and -0 differ in their bytes; the nines have 9 elements.
onnx::ModelProto EqualConstantsModel() {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {3, 4});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {3, 4});
  FillValueInfo(g->add_output(), "z", onnx::TensorProto::FLOAT, {9});
  const float nan = std::nanf("");
  FillFloatTensor(g->add_initializer(), "two_a", {}, {2});
  FillFloatTensor(g->add_initializer(), "two_b", {}, {2});
  FillFloatTensor(g->add_initializer(), "two_1d", {1}, {2});
  FillFloatTensor(g->add_initializer(), "zero", {}, {0.0f});
  FillFloatTensor(g->add_initializer(), "minus_zero", {}, {-0.0f});
  FillFloatTensor(g->add_initializer(), "four_a", {4}, {1, 2, 3, 4});
  FillFloatTensor(g->add_initializer(), "four_b", {4}, {1, 2, 3, 4});
  FillFloatTensor(g->add_initializer(), "nan_a", {}, {nan});
  FillFloatTensor(g->add_initializer(), "nan_b", {}, {nan});
  FillFloatTensor(g->add_initializer(), "nine_a", {9}, std::vector<float>(9, 1));
  FillFloatTensor(g->add_initializer(), "nine_b", {9}, std::vector<float>(9, 1));
  onnx::NodeProto* constant = AddNode(g, "Constant", {}, {"two_c"}, "two_c");
  onnx::AttributeProto* value = constant->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  FillFloatTensor(value->mutable_t(), "two_c", {}, {2});
  AddNode(g, "Mul", {"x", "two_a"}, {"m1"}, "m1");
  AddNode(g, "Mul", {"m1", "two_b"}, {"m2"}, "m2");
  AddNode(g, "Add", {"m2", "two_1d"}, {"a1"}, "a1");
  AddNode(g, "Add", {"a1", "zero"}, {"a2"}, "a2");
  AddNode(g, "Add", {"a2", "minus_zero"}, {"a3"}, "a3");
  AddNode(g, "Add", {"a3", "four_a"}, {"a4"}, "a4");
  AddNode(g, "Add", {"a4", "four_b"}, {"a5"}, "a5");
  AddNode(g, "Greater", {"a5", "nan_a"}, {"g1"}, "g1");
  AddNode(g, "Less", {"a5", "nan_b"}, {"g2"}, "g2");
  AddNode(g, "Or", {"g1", "g2"}, {"never"}, "never");
  AddNode(g, "Where", {"never", "x", "a5"}, {"w1"}, "w1");
  AddNode(g, "Add", {"w1", "two_c"}, {"y"}, "a6");
  AddNode(g, "Add", {"nine_a", "nine_b"}, {"z"}, "nines");
  return m;
}

TEST(ConstantSharing, EqualSmallConstantsBecomeOne) {
  ir::Model model = Optimize(EqualConstantsModel(), {"constant_sharing"});
  const ir::Graph& g = *model.graph;
  ASSERT_EQ(g.nodes.size(), 13u);  // the Constant became an initializer
  auto input = [&](size_t node, size_t slot) { return g.values[g.nodes[node].inputs[slot]].name; };
  // The three float scalars 2 are read through one value, one of the three names.
  const ir::ValueId two = g.nodes[0].inputs[1];
  EXPECT_EQ(g.nodes[1].inputs[1], two);
  EXPECT_EQ(g.nodes[11].inputs[1], two);
  EXPECT_TRUE(g.values[two].name == "two_a" || g.values[two].name == "two_b" ||
              g.values[two].name == "two_c")
      << g.values[two].name;
  EXPECT_EQ(g.nodes[5].inputs[1], g.nodes[6].inputs[1]);  // four_a, four_b
  EXPECT_EQ(g.nodes[7].inputs[1], g.nodes[8].inputs[1]);  // the NaNs
  EXPECT_EQ(input(2, 1), "two_1d");
  EXPECT_EQ(input(3, 1), "zero");
  EXPECT_EQ(input(4, 1), "minus_zero");
  EXPECT_EQ(input(12, 0), "nine_a");
  EXPECT_EQ(input(12, 1), "nine_b");
  EXPECT_EQ(g.initializers.size(), 8u);
  const auto stats = ExpectSameResults(EqualConstantsModel(), {{"x", RandomFloats({3, 4}, 6)}},
                                       {"constant_sharing"});
  EXPECT_EQ(Rewrites(stats, "constant_sharing"), 4);
}

TEST(ConstantSharing, LeavesConstantsASubgraphOrAGraphOutputReadsAndOtherTypes) {
  onnx::ModelProto m = EqualConstantsModel();
  onnx::GraphProto* g = m.mutable_graph();
  // An int64 2 beside the float ones, a subgraph reading two_b, and nan_b a graph output.
  onnx::TensorProto* two_i = g->add_initializer();
  two_i->set_name("two_i");
  two_i->set_data_type(onnx::TensorProto::INT64);
  two_i->add_int64_data(2);
  FillValueInfo(g->add_input(), "c", onnx::TensorProto::BOOL, {});
  FillValueInfo(g->add_output(), "zi", onnx::TensorProto::INT64, {});
  FillValueInfo(g->add_output(), "w", onnx::TensorProto::FLOAT, {});
  FillValueInfo(g->add_output(), "nan_b", onnx::TensorProto::FLOAT, {});
  AddNode(g, "Identity", {"two_i"}, {"zi"}, "int_copy");
  onnx::NodeProto* branch = AddNode(g, "If", {"c"}, {"w"}, "branch");
  for (const char* arm : {"then_branch", "else_branch"}) {
    onnx::GraphProto* body = ir::testing::AddGraphAttribute(branch, arm);
    FillValueInfo(body->add_output(), std::string(arm) + "_w", onnx::TensorProto::FLOAT, {});
    AddNode(body, "Identity", {"two_b"}, {std::string(arm) + "_w"}, std::string(arm) + "_copy");
  }
  ir::Model model = Optimize(m, {"constant_sharing"});
  const ir::Graph& graph = *model.graph;
  auto input = [&](size_t node, size_t slot) {
    return graph.values[graph.nodes[node].inputs[slot]].name;
  };
  EXPECT_EQ(input(1, 1), "two_b");   // read by the If's bodies
  EXPECT_EQ(input(8, 1), "nan_b");   // a graph output
  EXPECT_EQ(input(13, 0), "two_i");  // int64, not float
  EXPECT_EQ(graph.nodes[0].inputs[1], graph.nodes[11].inputs[1]);  // two_a and two_c: one
}

// y = Sum(Relu(x), Relu(x), LeakyRelu(x, alpha 0.01), LeakyRelu(x) (alpha's default, 0.01),
// Mul(x, c1), Mul(x, c2), Sigmoid(x)) and s2 = Sigmoid(x), a graph output. c1 and c2 are
// distinct initializers of equal value.
onnx::ModelProto EqualNodesModel() {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {2, 3});
  FillValueInfo(g->add_output(), "s2", onnx::TensorProto::FLOAT, {2, 3});
  FillFloatTensor(g->add_initializer(), "c1", {}, {2});
  FillFloatTensor(g->add_initializer(), "c2", {}, {2});
  AddNode(g, "Relu", {"x"}, {"r1"}, "r1");
  AddNode(g, "Relu", {"x"}, {"r2"}, "r2");
  onnx::AttributeProto* alpha = AddNode(g, "LeakyRelu", {"x"}, {"l1"}, "l1")->add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(onnx::AttributeProto::FLOAT);
  alpha->set_f(0.01f);
  AddNode(g, "LeakyRelu", {"x"}, {"l2"}, "l2");
  AddNode(g, "Mul", {"x", "c1"}, {"m1"}, "m1");
  AddNode(g, "Mul", {"x", "c2"}, {"m2"}, "m2");
  AddNode(g, "Sigmoid", {"x"}, {"s1"}, "s1");
  AddNode(g, "Sigmoid", {"x"}, {"s2"}, "s2");
  AddNode(g, "Sum", {"r1", "r2", "l1", "l2", "m1", "m2", "s1"}, {"y"}, "sum");
  return m;
}

TEST(CommonSubexpressionElimination, EqualNodesMerge) {
  ir::Model model = Optimize(EqualNodesModel(), {"common_subexpression_elimination"});
  const ir::Graph& g = *model.graph;
  ASSERT_EQ(OpTypes(g),
            (std::vector<std::string>{"Relu", "LeakyRelu", "Mul", "Mul", "Sigmoid", "Sigmoid",
                                      "Sum"}));
  const std::vector<ir::ValueId>& sum = g.nodes[6].inputs;
  EXPECT_EQ(sum[0], sum[1]);  // the Relus
  EXPECT_EQ(sum[2], sum[3]);  // the LeakyRelus: a default equals its explicit value
  EXPECT_NE(sum[4], sum[5]);  // distinct initializers: distinct values, as in ORT
  EXPECT_NE(sum[6], g.outputs[1]);  // s2, a graph output, keeps its own node
  const auto stats = ExpectSameResults(EqualNodesModel(), {{"x", RandomFloats({2, 3}, 8)}},
                                       {"common_subexpression_elimination"});
  EXPECT_EQ(Rewrites(stats, "common_subexpression_elimination"), 2);
}

TEST(CommonSubexpressionElimination, RandomAndCustomNodesStay) {
  onnx::ModelProto m = MakeModel(17);
  onnx::OperatorSetIdProto* custom = m.add_opset_import();
  custom->set_domain("com.example");
  custom->set_version(1);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {2, 3});
  AddNode(g, "RandomNormalLike", {"x"}, {"q1"}, "q1");
  AddNode(g, "RandomNormalLike", {"x"}, {"q2"}, "q2");
  AddNode(g, "Scale", {"x"}, {"e1"}, "e1", "com.example");
  AddNode(g, "Scale", {"x"}, {"e2"}, "e2", "com.example");
  AddNode(g, "Sum", {"q1", "q2", "e1", "e2"}, {"y"}, "sum");
  ir::Model model = Optimize(m, {"common_subexpression_elimination"});
  EXPECT_EQ(model.graph->nodes.size(), 5u);
}

TEST(Optimizer, LevelZeroAndDisabledPassesLeaveTheGraph) {
  ir::Model model = testing::Load(DeadChainModel());
  auto none = OptimizeModel(model, {0, {}});
  ASSERT_TRUE(none.ok()) << none.status().message();
  // Level 0 runs only the passes that always run; they find nothing to rewrite here.
  ASSERT_EQ(none->size(), 1u);
  EXPECT_EQ((*none)[0].pass, "gradient_expansion");
  EXPECT_EQ((*none)[0].rewrites, 0);
  EXPECT_EQ(model.graph->nodes.size(), 6u);
  auto off = OptimizeModel(model, {2, {"dead_node_elimination"}});
  ASSERT_TRUE(off.ok()) << off.status().message();
  EXPECT_EQ(model.graph->nodes.size(), 6u);
}

TEST(Optimizer, BadOptionsNameTheValueAndTheFix) {
  ir::Model model = testing::Load(DeadChainModel());
  auto level = OptimizeModel(model, {3, {}});
  ASSERT_FALSE(level.ok());
  EXPECT_TRUE(ir::testing::Contains(level.status().message(), "optimization level 3"));
  auto name = OptimizeModel(model, {1, {"no_such_pass"}});
  ASSERT_FALSE(name.ok());
  EXPECT_TRUE(ir::testing::Contains(name.status().message(), "'no_such_pass'"));
  EXPECT_TRUE(ir::testing::Contains(name.status().message(), "dead_node_elimination"));

  SessionOptions options;
  options.disabled_optimizers = {"no_such_pass"};
  auto session = Session::CreateFromBytes(testing::Serialize(DeadChainModel()), options);
  ASSERT_FALSE(session.ok());
  EXPECT_TRUE(ir::testing::Contains(session.status().message(), "'no_such_pass'"));
}

}  // namespace
}  // namespace nxrt::opt
