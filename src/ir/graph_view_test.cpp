// ir/graph_view_test.cpp: GraphView on graphs built directly in the IR and loaded from ONNX:
// topological order, producers, consumers, opsets and since_version, lookups, outer-scope
// values of subgraphs, and each validation error.
#include "ir/graph_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "ir/onnx_loader.h"
#include "ir/onnx_test_models.h"

namespace nxrt::ir {
namespace {

using testing::Contains;

// A model with one graph, built value by value and node by node.
class IrBuilder {
 public:
  explicit IrBuilder(int64_t opset = 17) {
    model_.opset_imports.push_back({"", opset});
    model_.graph = std::make_shared<Graph>();
  }

  // The value named `name`, added (as an untyped tensor) when new.
  ValueId V(const std::string& name) {
    ValueId id = graph().FindValue(name);
    if (id != kNoValue) return id;
    Value value;
    value.name = name;
    return graph().AddValue(std::move(value));
  }
  void Input(const std::string& name) { graph().inputs.push_back(V(name)); }
  void Output(const std::string& name) { graph().outputs.push_back(V(name)); }
  NodeId N(const std::string& op_type, std::initializer_list<std::string> inputs,
           std::initializer_list<std::string> outputs, const std::string& domain = "") {
    Node node;
    node.id = static_cast<NodeId>(graph().nodes.size());
    node.name = op_type + "_" + std::to_string(node.id);
    node.op_type = op_type;
    node.domain = domain;
    for (const std::string& in : inputs) node.inputs.push_back(in.empty() ? kNoValue : V(in));
    for (const std::string& out : outputs) node.outputs.push_back(V(out));
    graph().nodes.push_back(std::move(node));
    return graph().nodes.back().id;
  }

  Graph& graph() { return *model_.graph; }
  Model& model() { return model_; }
  Result<GraphView> View() { return GraphView::Create(model_, *model_.graph); }

 private:
  Model model_;
};

TEST(GraphViewTest, TopologicalOrderTakesSmallestReadyIdFirst) {
  IrBuilder b;
  b.Input("x");
  b.N("Relu", {"c"}, {"d"});       // 0: needs node 2
  b.N("Neg", {"x"}, {"e"});        // 1: ready at once
  b.N("Abs", {"x"}, {"c"});        // 2: ready at once
  b.N("Add", {"d", "e"}, {"y"});   // 3: needs 0 and 1
  b.N("Sigmoid", {"x"}, {"z"});    // 4: ready at once
  b.Output("y");
  b.Output("z");
  Result<GraphView> view = b.View();
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  // Ready at start: {1, 2, 4}. Taking 1 frees nothing; 2 frees 0; then 0 < 4, and 0 frees 3.
  EXPECT_EQ(view->topological_order(), (std::vector<NodeId>{1, 2, 0, 3, 4}));
}

TEST(GraphViewTest, ProducersAndSortedConsumers) {
  IrBuilder b;
  b.Input("x");
  b.N("Split", {"x"}, {"a", "b"});   // 0
  b.N("Sum", {"a", "b", "a"}, {"s"});  // 1: reads a twice
  b.N("Mul", {"b", "a"}, {"m"});      // 2
  b.N("Relu", {"a"}, {"r"});          // 3
  b.Output("s");
  b.Output("m");
  b.Output("r");
  Result<GraphView> view = b.View();
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  const ValueId a = view->FindValue("a");
  const ValueId b_id = view->FindValue("b");
  EXPECT_EQ(view->producer(a), 0);
  EXPECT_EQ(view->producer_slot(a), 0);
  EXPECT_EQ(view->producer(b_id), 0);
  EXPECT_EQ(view->producer_slot(b_id), 1);
  EXPECT_EQ(view->producer(view->FindValue("x")), kNoNode);
  EXPECT_EQ(view->producer_slot(view->FindValue("x")), -1);
  const std::vector<Consumer> want_a = {{1, 0}, {1, 2}, {2, 1}, {3, 0}};
  EXPECT_EQ(std::vector<Consumer>(view->consumers(a).begin(), view->consumers(a).end()), want_a);
  const std::vector<Consumer> want_b = {{1, 1}, {2, 0}};
  EXPECT_EQ(std::vector<Consumer>(view->consumers(b_id).begin(), view->consumers(b_id).end()),
            want_b);
  EXPECT_TRUE(view->consumers(view->FindValue("s")).empty());
}

TEST(GraphViewTest, OpsetAndSinceVersion) {
  IrBuilder b(11);
  b.model().opset_imports.push_back({"com.example", 3});
  b.Input("x");
  b.N("Softmax", {"x"}, {"s"});
  b.N("Add", {"s", "s"}, {"a"});
  b.N("MyOp", {"a"}, {"y"}, "com.example");
  b.Output("y");
  Result<GraphView> view = b.View();
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  EXPECT_EQ(view->opset(0), 11);
  EXPECT_EQ(view->since_version(0), 11);
  EXPECT_EQ(view->since_version(1), 7);
  EXPECT_EQ(view->opset(2), 3);
  EXPECT_EQ(view->since_version(2), -1);
}

TEST(GraphViewTest, LookupByName) {
  IrBuilder b;
  b.Input("x");
  b.N("Relu", {"x"}, {"y"});
  b.N("Neg", {"y"}, {"z"});
  b.graph().nodes[1].name = "dup";
  b.N("Abs", {"z"}, {"w"});
  b.graph().nodes[2].name = "dup";
  b.Output("w");
  Result<GraphView> view = b.View();
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  EXPECT_EQ(view->FindNode("Relu_0"), 0);
  EXPECT_EQ(view->FindNode("dup"), 1);
  EXPECT_EQ(view->FindNode("nope"), kNoNode);
  EXPECT_EQ(view->FindValue("z"), b.graph().FindValue("z"));
  EXPECT_EQ(view->FindValue("nope"), kNoValue);
}

TEST(GraphViewTest, CycleNamesTheNodesOnIt) {
  IrBuilder b;
  b.Input("x");
  b.N("Relu", {"x"}, {"a"});          // 0: not on the cycle
  b.N("Add", {"a", "c"}, {"b"});      // 1
  b.N("Neg", {"b"}, {"c"});           // 2
  b.N("Abs", {"b"}, {"y"});           // 3
  b.Output("y");
  Result<GraphView> view = b.View();
  ASSERT_FALSE(view.ok());
  EXPECT_EQ(view.status().code(), StatusCode::kInvalidModel);
  EXPECT_TRUE(Contains(view.status().message(), "cycle"));
  EXPECT_TRUE(Contains(view.status().message(), "'Add_1' (Add)"));
  EXPECT_TRUE(Contains(view.status().message(), "'Neg_2' (Neg)"));
  EXPECT_FALSE(Contains(view.status().message(), "Relu_0"));
}

TEST(GraphViewTest, SelfLoopIsACycle) {
  IrBuilder b;
  b.Input("x");
  b.N("Add", {"x", "a"}, {"a"});
  b.Output("a");
  Result<GraphView> view = b.View();
  ASSERT_FALSE(view.ok());
  EXPECT_TRUE(Contains(view.status().message(), "cycle: node 'Add_0' (Add) -> node 'Add_0'"));
}

TEST(GraphViewTest, TwoProducers) {
  IrBuilder b;
  b.Input("x");
  b.N("Relu", {"x"}, {"y"});
  b.N("Neg", {"x"}, {"y"});
  b.Output("y");
  Result<GraphView> view = b.View();
  ASSERT_FALSE(view.ok());
  EXPECT_TRUE(Contains(view.status().message(), "value 'y' is produced twice"));
  EXPECT_TRUE(Contains(view.status().message(), "'Relu_0'"));
  EXPECT_TRUE(Contains(view.status().message(), "'Neg_1'"));
}

TEST(GraphViewTest, ProducedValueThatIsAlsoAGraphInput) {
  IrBuilder b;
  b.Input("x");
  b.N("Relu", {"x"}, {"x"});
  b.Output("x");
  Result<GraphView> view = b.View();
  ASSERT_FALSE(view.ok());
  EXPECT_TRUE(Contains(view.status().message(), "'x' is produced by node 'Relu_0' (Relu)"));
  EXPECT_TRUE(Contains(view.status().message(), "graph input"));
}

TEST(GraphViewTest, UndefinedInput) {
  IrBuilder b;
  b.Input("x");
  b.N("Add", {"x", "ghost"}, {"y"});
  b.Output("y");
  Result<GraphView> view = b.View();
  ASSERT_FALSE(view.ok());
  EXPECT_TRUE(Contains(view.status().message(), "node 'Add_0' (Add)"));
  EXPECT_TRUE(Contains(view.status().message(), "input 1 'ghost'"));
}

TEST(GraphViewTest, UndefinedGraphOutput) {
  IrBuilder b;
  b.Input("x");
  b.N("Relu", {"x"}, {"y"});
  b.Output("nobody");
  Result<GraphView> view = b.View();
  ASSERT_FALSE(view.ok());
  EXPECT_TRUE(Contains(view.status().message(), "graph output 'nobody'"));
}

TEST(GraphViewTest, MissingOpsetImport) {
  IrBuilder b;
  b.Input("x");
  b.N("Relu", {"x"}, {"a"});
  b.N("FusedThing", {"a"}, {"y"}, "com.vendor");
  b.Output("y");
  Result<GraphView> view = b.View();
  ASSERT_FALSE(view.ok());
  EXPECT_TRUE(Contains(view.status().message(), "node 'FusedThing_1' (com.vendor:FusedThing)"));
  EXPECT_TRUE(Contains(view.status().message(), "'com.vendor'"));
  EXPECT_TRUE(Contains(view.status().message(), "opset_import"));
}

TEST(GraphViewTest, UnusedUnknownDomainIsFine) {
  IrBuilder b;
  b.model().opset_imports.push_back({"org.nowhere", 1});
  b.Input("x");
  b.N("Relu", {"x"}, {"y"});
  b.Output("y");
  EXPECT_TRUE(b.View().ok());
}

TEST(GraphViewTest, OptionalInputsAndEmptyGraph) {
  IrBuilder b;
  b.Input("x");
  b.N("Clip", {"x", "", "hi"}, {"y"});
  b.graph().inputs.push_back(b.V("hi"));
  b.Output("y");
  Result<GraphView> view = b.View();
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  EXPECT_EQ(view->consumers(view->FindValue("hi")).front(), (Consumer{0, 2}));

  IrBuilder empty;
  Result<GraphView> empty_view = empty.View();
  ASSERT_TRUE(empty_view.ok());
  EXPECT_TRUE(empty_view->topological_order().empty());
}

// main: x -> [If cond] with then-branch reading `t` (made by a node listed after the If) and an
// else-branch whose own If reads `x` from two levels up.
onnx::ModelProto SubgraphModel() {
  using namespace testing;  // NOLINT: test builders
  onnx::ModelProto model = MakeModel(13);
  onnx::GraphProto* g = model.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {2});
  FillValueInfo(g->add_input(), "cond", onnx::TensorProto::BOOL, {});
  onnx::NodeProto* if_node = AddNode(g, "If", {"cond"}, {"y"}, "outer_if");
  AddNode(g, "Neg", {"x"}, {"t"}, "make_t");
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});

  onnx::GraphProto* then_g = AddGraphAttribute(if_node, "then_branch");
  AddNode(then_g, "Relu", {"t"}, {"then_out"}, "then_relu");
  FillValueInfo(then_g->add_output(), "then_out", onnx::TensorProto::FLOAT, {2});

  onnx::GraphProto* else_g = AddGraphAttribute(if_node, "else_branch");
  onnx::NodeProto* inner_if = AddNode(else_g, "If", {"cond"}, {"else_out"}, "inner_if");
  FillValueInfo(else_g->add_output(), "else_out", onnx::TensorProto::FLOAT, {2});
  onnx::GraphProto* inner_then = AddGraphAttribute(inner_if, "then_branch");
  AddNode(inner_then, "Abs", {"x"}, {"a"}, "deep_abs");
  FillValueInfo(inner_then->add_output(), "a", onnx::TensorProto::FLOAT, {2});
  onnx::GraphProto* inner_else = AddGraphAttribute(inner_if, "else_branch");
  FillValueInfo(inner_else->add_output(), "x", onnx::TensorProto::FLOAT, {2});
  return model;
}

TEST(GraphViewTest, SubgraphOuterScopeValuesOrderTheParent) {
  const std::vector<std::byte> bytes = testing::Serialize(SubgraphModel());
  Result<Model> model = LoadModelFromBytes(bytes);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const Graph& main = *model->graph;
  Result<GraphView> view = GraphView::Create(*model, main);
  ASSERT_TRUE(view.ok()) << view.status().ToString();

  const NodeId if_id = view->FindNode("outer_if");
  const NodeId make_t = view->FindNode("make_t");
  ASSERT_EQ(if_id, 0);
  ASSERT_EQ(make_t, 1);
  // The If reads t (then-branch), and cond and x (through the else-branch's inner If)
  // implicitly.
  const ValueId x = main.FindValue("x");
  const ValueId cond = main.FindValue("cond");
  const ValueId t = main.FindValue("t");
  std::vector<ValueId> implicit(view->implicit_inputs(if_id).begin(),
                                view->implicit_inputs(if_id).end());
  std::vector<ValueId> want_implicit = {x, cond, t};
  std::sort(want_implicit.begin(), want_implicit.end());
  EXPECT_EQ(implicit, want_implicit);
  // So make_t runs first although the If comes first in the model.
  EXPECT_EQ(view->topological_order(), (std::vector<NodeId>{make_t, if_id}));
  const std::vector<Consumer> want_t = {{if_id, kImplicitSlot}};
  EXPECT_EQ(std::vector<Consumer>(view->consumers(t).begin(), view->consumers(t).end()), want_t);
  const std::vector<Consumer> want_x = {{if_id, kImplicitSlot}, {make_t, 0}};
  EXPECT_EQ(std::vector<Consumer>(view->consumers(x).begin(), view->consumers(x).end()), want_x);

  const Node& if_node = main.nodes[if_id];
  const Graph& then_g = *if_node.FindAttribute("then_branch")->g;
  const Graph& else_g = *if_node.FindAttribute("else_branch")->g;
  EXPECT_EQ(then_g.parent, &main);
  const ValueId then_t = then_g.FindValue("t");
  ASSERT_NE(then_t, kNoValue);
  EXPECT_TRUE(then_g.values[then_t].outer_scope);
  EXPECT_EQ(then_g.values[then_t].type.ToString(), "unknown");  // t has no declared type
  Result<GraphView> then_view = GraphView::Create(*model, then_g);
  ASSERT_TRUE(then_view.ok()) << then_view.status().ToString();
  EXPECT_EQ(then_view->producer(then_t), kNoNode);
  EXPECT_EQ(then_view->consumers(then_t).size(), 1u);

  // x passes through the else-branch (for its inner If) as an outer-scope value.
  const ValueId else_x = else_g.FindValue("x");
  ASSERT_NE(else_x, kNoValue);
  EXPECT_TRUE(else_g.values[else_x].outer_scope);
  EXPECT_EQ(else_g.values[else_x].type.ToString(), "tensor(float)[2]");
  Result<GraphView> else_view = GraphView::Create(*model, else_g);
  ASSERT_TRUE(else_view.ok()) << else_view.status().ToString();
  EXPECT_EQ(else_view->implicit_inputs(0).size(), 1u);  // x; the inner If reads cond explicitly
  const Graph& inner_then = *else_g.nodes[0].FindAttribute("then_branch")->g;
  EXPECT_EQ(inner_then.parent, &else_g);
  EXPECT_TRUE(inner_then.values[inner_then.FindValue("x")].outer_scope);
  // A branch may output an outer-scope value directly.
  const Graph& inner_else = *else_g.nodes[0].FindAttribute("else_branch")->g;
  ASSERT_EQ(inner_else.outputs.size(), 1u);
  EXPECT_TRUE(inner_else.values[inner_else.outputs[0]].outer_scope);
}

TEST(GraphViewTest, OuterScopeValueWithoutEnclosingDefinition) {
  IrBuilder b;
  Value ghost;
  ghost.name = "ghost";
  ghost.outer_scope = true;
  b.graph().AddValue(ghost);
  b.N("Relu", {"ghost"}, {"y"});
  b.Output("y");
  Result<GraphView> view = b.View();
  ASSERT_FALSE(view.ok());
  EXPECT_TRUE(Contains(view.status().message(), "input 0 'ghost'"));
  EXPECT_TRUE(Contains(view.status().message(), "main graph"));
}

TEST(GraphViewTest, ValueIdOutOfRange) {
  IrBuilder b;
  b.Input("x");
  b.N("Relu", {"x"}, {"y"});
  b.graph().nodes[0].inputs[0] = 42;
  b.Output("y");
  Result<GraphView> view = b.View();
  ASSERT_FALSE(view.ok());
  EXPECT_TRUE(Contains(view.status().message(), "value id 42"));
}

}  // namespace
}  // namespace nxrt::ir
