// ep/node_info_test.cpp: the IR seen through NodeInfo (shapes, constants, attributes, errors)
// and EpConfig's typed options.
#include "nxrt/node_info.h"

#include <gtest/gtest.h>

#include "ep/node_info_builder.h"
#include "ep/test_graph.h"
#include "nxrt/ep_config.h"

namespace nxrt::ep {
namespace {

using testing::TestGraph;

ir::Attribute IntAttr(std::string name, int64_t v) {
  ir::Attribute a;
  a.name = std::move(name);
  a.type = ir::Attribute::Type::kInt;
  a.i = v;
  return a;
}

ir::Attribute IntsAttr(std::string name, std::vector<int64_t> v) {
  ir::Attribute a;
  a.name = std::move(name);
  a.type = ir::Attribute::Type::kInts;
  a.ints = std::move(v);
  return a;
}

class NodeInfoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_.Input("x", DataType::kFloat,
             std::vector<ir::Dim>{ir::Dim::Symbolic("N"), ir::Dim::Fixed(3), ir::Dim::Unknown()});
    g_.Initializer("w", Tensor::FromVector<float>({2}, {1.5f, 2.5f}).value());
    // An initializer that is also a graph input is a default the caller may override.
    g_.Initializer("bias", Tensor::Scalar<float>(0.0f));
    g_.graph().inputs.push_back(g_.graph().FindValue("bias"));
    ir::NodeId conv = g_.Node("Conv", {"x", "w", "", "bias"}, {"y", ""}, "Conv_12");
    ir::Node& node = g_.graph().nodes[conv];
    node.attributes.push_back(IntAttr("group", 2));
    node.attributes.push_back(IntsAttr("strides", {2, 2}));
    ir::Attribute alpha;
    alpha.name = "alpha";
    alpha.type = ir::Attribute::Type::kFloat;
    alpha.f = 0.5f;
    node.attributes.push_back(alpha);
    g_.Output("y");
    ir::NodeId loop = g_.Node("Loop", {"", "x"}, {"z"}, "L");
    g_.AddSubgraph(loop, "body", {"w"});
    g_.Output("z");
    view_ = std::make_unique<ir::GraphView>(g_.View());
  }

  TestGraph g_{13};
  std::unique_ptr<ir::GraphView> view_;
};

TEST_F(NodeInfoTest, MirrorsIdentityOpsetAndSlots) {
  NodeInfoBuilder builder(*view_);
  NodeInfo conv = builder.Node(0);
  EXPECT_EQ(conv.id(), 0);
  EXPECT_EQ(conv.name(), "Conv_12");
  EXPECT_EQ(conv.op_type(), "Conv");
  EXPECT_EQ(conv.domain(), "");
  EXPECT_EQ(conv.opset(), 13);
  EXPECT_EQ(conv.since_version(), 11);  // Conv's schema changed at opset 11, not since
  EXPECT_EQ(conv.Description(), "node 'Conv_12' (Conv, opset 13)");
  EXPECT_EQ(conv.ShortName(), "#0:Conv:Conv_12");

  ASSERT_EQ(conv.inputs().size(), 4u);
  EXPECT_EQ(conv.inputs()[0].ToString(), "x: tensor(float)[N,3,?]");
  EXPECT_FALSE(conv.inputs()[0].has_static_shape());
  EXPECT_EQ(conv.inputs()[1].ToString(), "w: tensor(float)[2] (constant)");
  EXPECT_EQ(conv.inputs()[1].static_shape(), Shape({2}));
  EXPECT_EQ(conv.inputs()[1].constant.span<float>()[1], 2.5f);
  EXPECT_FALSE(conv.has_input(2));
  EXPECT_EQ(conv.inputs()[2].ToString(), "<absent>");
  EXPECT_FALSE(conv.inputs()[3].is_constant);  // overridable: also a graph input
  EXPECT_TRUE(conv.has_output(0));
  EXPECT_FALSE(conv.has_output(1));
  EXPECT_EQ(conv.outputs()[0].ToString(), "y: tensor(float)[rank ?]");
  EXPECT_FALSE(conv.has_subgraphs());
}

TEST_F(NodeInfoTest, TypedAttributeGettersWithDefaultsAndClearErrors) {
  NodeInfo conv = NodeInfoBuilder(*view_).Node(0);
  EXPECT_EQ(*conv.GetInt("group"), 2);
  EXPECT_EQ(*conv.GetInt("missing", 7), 7);
  EXPECT_EQ(*conv.GetInts("strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(*conv.GetInts("pads", {0, 0, 0, 0}), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_FLOAT_EQ(*conv.GetFloat("alpha"), 0.5f);
  EXPECT_EQ(*conv.GetString("auto_pad", "NOTSET"), "NOTSET");

  Result<int64_t> wrong = conv.GetInt("alpha");
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidModel);
  EXPECT_EQ(wrong.status().message(),
            "node 'Conv_12' (Conv, opset 13): attribute 'alpha' is a float, expected an int");
  EXPECT_EQ(conv.GetInt("alpha", 1).status().message(),
            "node 'Conv_12' (Conv, opset 13): attribute 'alpha' is a float, expected an int");
  EXPECT_EQ(conv.GetInts("kernel_shape").status().message(),
            "node 'Conv_12' (Conv, opset 13): required attribute 'kernel_shape' is missing");
  EXPECT_EQ(conv.GetTensor("value").status().message(),
            "node 'Conv_12' (Conv, opset 13): required attribute 'value' is missing");
  EXPECT_EQ(conv.Error(StatusCode::kInvalidModel, "input 1 has rank ", 1, ", expected 4").message(),
            "node 'Conv_12' (Conv, opset 13): input 1 has rank 1, expected 4");
}

TEST_F(NodeInfoTest, SubgraphsAndOuterScopeConstants) {
  NodeInfoBuilder builder(*view_);
  NodeInfo loop = builder.Node(1);
  EXPECT_TRUE(loop.has_subgraphs());
  EXPECT_EQ(loop.subgraph_attribute_names(), (std::vector<std::string>{"body"}));
  EXPECT_EQ(loop.FindAttribute("body")->graph_count, 1);
  EXPECT_EQ(loop.FindAttribute("body")->type, AttributeType::kGraph);

  // The body reads w from the main graph: seen from the body's own view it is a constant.
  const ir::Graph& body = *g_.graph().nodes[1].attributes[0].g;
  Result<ir::GraphView> body_view = ir::GraphView::Create(g_.model(), body);
  ASSERT_TRUE(body_view.ok()) << body_view.status().ToString();
  ValueInfo w = NodeInfoBuilder(*body_view).Value(body.FindValue("w"));
  EXPECT_TRUE(w.is_constant);
  EXPECT_EQ(w.constant.element_count(), 2);
}

TEST_F(NodeInfoTest, FusedInfoListsNodesAndBoundary) {
  NodeInfoBuilder builder(*view_);
  const ir::Graph& graph = view_->graph();
  std::vector<ir::NodeId> nodes{0};
  std::vector<ir::ValueId> inputs{graph.FindValue("x"), graph.FindValue("w")};
  std::vector<ir::ValueId> outputs{graph.FindValue("y")};
  FusedNodeInfo fused = builder.Fused("gpu_claim_0", nodes, inputs, outputs);
  EXPECT_EQ(fused.name, "gpu_claim_0");
  ASSERT_EQ(fused.nodes.size(), 1u);
  EXPECT_EQ(fused.nodes[0].name(), "Conv_12");
  ASSERT_EQ(fused.inputs.size(), 2u);
  EXPECT_EQ(fused.inputs[1].name, "w");
  EXPECT_TRUE(fused.inputs[1].is_constant);
  EXPECT_EQ(fused.outputs[0].name, "y");
}

TEST(NodeInfoHandMadeTest, DomainsAndSymbolsPrint) {
  NodeInfo::Data d;
  d.id = 4;
  d.name = "fc";
  d.op_type = "FusedGemm";
  d.domain = "com.microsoft";
  d.opset = 1;
  NodeInfo node(std::move(d));
  EXPECT_EQ(node.Description(), "node 'fc' (com.microsoft:FusedGemm, opset 1)");
  EXPECT_EQ(DimInfo::Symbolic("batch").ToString(), "batch");
  EXPECT_EQ(DimInfo::Fixed(0).ToString(), "0");
  EXPECT_EQ(DimInfo().ToString(), "?");
  ValueInfo seq;
  seq.name = "s";
  seq.kind = ValueKind::kSequence;
  seq.dtype = DataType::kInt64;
  EXPECT_EQ(seq.ToString(), "s: sequence(int64)");
  EXPECT_FALSE(seq.rank().has_value());
}

TEST(EpConfigTest, TypedGettersParseOrExplain) {
  EpConfig config{{"threads", "4"}, {"alpha", "0.25"}, {"fast", "Yes"}, {"bad", "four"}};
  EXPECT_EQ(*config.GetInt("threads", 1), 4);
  EXPECT_EQ(*config.GetInt("absent", -1), -1);
  EXPECT_DOUBLE_EQ(*config.GetDouble("alpha", 0), 0.25);
  EXPECT_TRUE(*config.GetBool("fast", false));
  EXPECT_EQ(config.GetString("absent", "x"), "x");
  EXPECT_EQ(config.GetInt("bad", 0).status().message(), "option 'bad' = 'four' is not an integer");
  EXPECT_EQ(config.GetBool("bad", false).status().message(),
            "option 'bad' = 'four' is not a bool (use true/false, 1/0, yes/no or on/off)");
  EXPECT_EQ(config.GetDouble("bad", 0).status().message(), "option 'bad' = 'four' is not a number");
  config.Set("big", "99999999999999999999");
  EXPECT_EQ(config.GetInt("big", 0).status().message(),
            "option 'big' = '99999999999999999999' is not an integer in int64 range");
  config.Set("inf", "inf");
  EXPECT_EQ(config.GetDouble("inf", 0).status().message(),
            "option 'inf' = 'inf' is not a finite number");
  EXPECT_EQ(config.ToString(),
            "alpha=0.25,bad=four,big=99999999999999999999,fast=Yes,inf=inf,threads=4");
}

TEST(EpConfigTest, CheckKeysNamesUnknownOptionsAndTheKnownOnes) {
  EpConfig config{{"thread", "4"}, {"device_id", "0"}};
  const std::string_view known[] = {"device_id", "threads"};
  EXPECT_EQ(config.CheckKeys(known).message(),
            "unknown option 'thread' (known: 'device_id', 'threads')");
  EXPECT_TRUE((EpConfig{{"threads", "2"}}.CheckKeys(known).ok()));
  EXPECT_EQ(config.CheckKeys({}).message(), "unknown options 'device_id', 'thread' (known: none)");
}

}  // namespace
}  // namespace nxrt::ep
