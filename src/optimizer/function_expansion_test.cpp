// optimizer/function_expansion_test.cpp: ExpandFunctionNodes puts a node's ONNX function body in
// its place with ONNX Runtime 1.30's names, order and node indices (the expectations are the
// names ORT 1.30 shows a plugin for SequenceMap and NegativeLogLikelihoodLoss: its recording
// dumps, docs/plugin_host.md), and the expansion computes what the op defines.
//
// Layer: tests of nxrt_optimizer (models from ir/onnx_test_models.h, run through nxrt::Session).
#include "optimizer/function_expansion.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/function_body.h"
#include "ir/onnx_writer.h"
#include "optimizer/optimizer_test_util.h"

namespace nxrt::opt {
namespace {

using testing::AddNode;
using testing::FillValueInfo;
using testing::Load;
using testing::MakeModel;

std::vector<std::string> OpTypes(const ir::Graph& graph) {
  std::vector<std::string> ops;
  for (const ir::Node& node : graph.nodes) ops.push_back(node.op_type);
  return ops;
}

std::string ValueName(const ir::Graph& graph, ir::ValueId v) {
  return v == ir::kNoValue ? std::string() : graph.values[v].name;
}

// Two SequenceMaps over sequence inputs, each with the body y = x + x.
onnx::ModelProto TwoSequenceMaps() {
  onnx::ModelProto model = MakeModel(17);
  onnx::GraphProto* g = model.mutable_graph();
  for (const char* name : {"xs", "ys"}) {
    onnx::ValueInfoProto* in = g->add_input();
    in->set_name(name);
    ir::testing::SetTensorType(in->mutable_type()->mutable_sequence_type()->mutable_elem_type(),
                           onnx::TensorProto::FLOAT, {"N"});
  }
  for (const char* in : {"xs", "ys"}) {
    const std::string out = std::string(in) + "_out";
    onnx::NodeProto* map = AddNode(g, "SequenceMap", {in}, {out});
    onnx::GraphProto* body = ir::testing::AddGraphAttribute(map, "body");
    FillValueInfo(body->add_input(), "x", onnx::TensorProto::FLOAT, {"N"});
    FillValueInfo(body->add_output(), "y", onnx::TensorProto::FLOAT, {"N"});
    AddNode(body, "Add", {"x", "x"}, {"y"});
    onnx::ValueInfoProto* o = g->add_output();
    o->set_name(out);
    ir::testing::SetTensorType(o->mutable_type()->mutable_sequence_type()->mutable_elem_type(),
                           onnx::TensorProto::FLOAT, {"N"});
  }
  return model;
}

TEST(FunctionExpansionTest, SequenceMapBecomesItsLoopWithOrtNames) {
  ir::Model model = Load(TwoSequenceMaps());
  ir::Graph& main = *model.graph;
  ASSERT_TRUE(ir::HasFunctionBody(model, main.nodes[0]));
  const std::vector<ir::NodeId> nodes = {0, 1};
  ASSERT_TRUE(ExpandFunctionNodes(model, main, nodes).ok());

  // Each SequenceMap: SequenceLength, SequenceEmpty, Loop (its Constant is an initializer), in
  // the body's order where the node stood, with the next ORT indices (2.. after the two).
  ASSERT_EQ(OpTypes(main), (std::vector<std::string>{"SequenceLength", "SequenceEmpty", "Loop",
                                                     "SequenceLength", "SequenceEmpty", "Loop"}));
  for (size_t i = 0; i < main.nodes.size(); ++i) {
    EXPECT_EQ(main.nodes[i].model_index, static_cast<ir::NodeId>(2 + i)) << i;
    EXPECT_TRUE(main.nodes[i].unnamed) << i;
  }
  EXPECT_EQ(main.ort_next_node_index, 8);
  // The first takes ORT's prefix as is; the second finds it taken and gets the graph's counter.
  EXPECT_EQ(ValueName(main, main.nodes[0].outputs[0]),
            "_inlfunc_SequenceMap_SequenceMap_input_sequence_seqlen");
  EXPECT_EQ(ValueName(main, main.nodes[3].outputs[0]),
            "_inlfunc_SequenceMap_token_0_SequenceMap_input_sequence_seqlen");
  EXPECT_EQ(main.ort_name_counter, 1);
  // The function's formals are the node's values.
  EXPECT_EQ(ValueName(main, main.nodes[0].inputs[0]), "xs");
  EXPECT_EQ(ValueName(main, main.nodes[2].outputs[0]), "xs_out");
  EXPECT_EQ(ValueName(main, main.nodes[5].outputs[0]), "ys_out");
  const ir::ValueId cond = main.FindValue("_inlfunc_SequenceMap_SequenceMap_input_sequence_cond");
  ASSERT_NE(cond, ir::kNoValue);
  const ir::Initializer* init = main.FindInitializer(cond);
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init->tensor.dtype(), DataType::kBool);
  EXPECT_TRUE(init->tensor.data<bool>()[0]);

  // The Loop body: inner names prefixed, the outer sequence read by its name in the main graph.
  const ir::Attribute* body_attr = main.nodes[2].FindAttribute("body");
  ASSERT_NE(body_attr, nullptr);
  const ir::Graph& body = *body_attr->g;
  EXPECT_EQ(body.parent, &main);
  EXPECT_EQ(body.name, "SequenceMap_loop_body");
  ASSERT_EQ(body.inputs.size(), 3u);
  EXPECT_EQ(body.values[body.inputs[0]].name,
            "_inlfunc_SequenceMap_SequenceMap_loop_body_itercount");
  EXPECT_EQ(OpTypes(body),
            (std::vector<std::string>{"Identity", "SequenceAt", "Add", "SequenceInsert"}));
  EXPECT_EQ(ValueName(body, body.nodes[1].inputs[0]), "xs");
  EXPECT_TRUE(body.values[body.nodes[1].inputs[0]].outer_scope);
  EXPECT_EQ(ValueName(body, body.nodes[2].outputs[0]), "_inlfunc_SequenceMap_y");
  EXPECT_TRUE(body.nodes[2].unnamed);
}

// The expansion computes SequenceMap's definition: element i of the output is x_i + x_i.
TEST(FunctionExpansionTest, ExpandedSequenceMapRunsAsDefined) {
  ir::Model model = Load(TwoSequenceMaps());
  const std::vector<ir::NodeId> nodes = {0, 1};
  ASSERT_TRUE(ExpandFunctionNodes(model, *model.graph, nodes).ok());
  Result<std::string> bytes = ir::SerializeModel(model);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  Result<std::unique_ptr<Session>> session = Session::CreateFromBytes(
      {reinterpret_cast<const std::byte*>(bytes->data()), bytes->size()}, SessionOptions{});
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::vector<Tensor> xs = {Tensor::FromVector<float>({2}, {1, 2}).value(),
                            Tensor::FromVector<float>({3}, {-1, 0.5f, 4}).value()};
  std::vector<Tensor> ys = {Tensor::FromVector<float>({1}, {7}).value()};
  std::vector<NamedValue> inputs;
  inputs.push_back({"xs", Value::Sequence(DataType::kFloat, xs).value()});
  inputs.push_back({"ys", Value::Sequence(DataType::kFloat, ys).value()});
  Result<std::vector<NamedValue>> outputs = (*session)->RunValues(inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), 2u);
  const auto& out = (*outputs)[0].value.sequence();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::vector<float>(out[0].data<float>(), out[0].data<float>() + 2),
            (std::vector<float>{2, 4}));
  EXPECT_EQ(std::vector<float>(out[1].data<float>(), out[1].data<float>() + 3),
            (std::vector<float>{-2, 1, 8}));
  const auto& out2 = (*outputs)[1].value.sequence();
  ASSERT_EQ(out2.size(), 1u);
  EXPECT_EQ(out2[0].data<float>()[0], 14.0f);
}

}  // namespace
}  // namespace nxrt::opt
