// optimizer/conv_bn_folding_test.cpp: the conv_bn_folding pass on graphs before and after: the
// folded weights and bias, kept Conv attributes, and the cases left alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "optimizer/optimizer_test_util.h"

namespace nxrt::opt {
namespace {

using testing::AddIntAttribute;
using testing::AddIntsAttribute;
using testing::AddNode;
using testing::ExpectSameResults;
using testing::Floats;
using testing::FillFloatTensor;
using testing::FillValueInfo;
using testing::MakeModel;
using testing::OpTypes;
using testing::Optimize;
using testing::RandomFloats;
using testing::Rewrites;

constexpr int64_t kM = 4;  // Conv output channels
constexpr float kEpsilon = 1e-3f;

struct ConvBnParams {
  std::vector<float> w = Floats({kM, 2, 3, 3}, 1, -1, 1);  // group 2 over 4 input channels
  std::vector<float> b = Floats({kM}, 2, -1, 1);
  std::vector<float> scale = Floats({kM}, 3, 0.5f, 2);
  std::vector<float> bias = Floats({kM}, 4, -1, 1);
  std::vector<float> mean = Floats({kM}, 5, -1, 1);
  std::vector<float> var = Floats({kM}, 6, 0.1f, 2);
};

struct Options {
  bool conv_bias = true;
  bool conv_output_read_twice = false;
  bool weight_is_input = false;
  bool mean_from_node = false;
  int64_t training_mode = 0;
};

// x [1, 4, 6, 6] → Conv(W [4, 2, 3, 3], B, pads 1, group 2, strides 2) → BatchNormalization → y.
onnx::ModelProto ConvBnModel(const ConvBnParams& p, const Options& o = {}) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {1, kM, 3, 3});
  if (o.weight_is_input) FillValueInfo(g->add_input(), "w", onnx::TensorProto::FLOAT, {kM, 2, 3, 3});
  FillFloatTensor(g->add_initializer(), "w", {kM, 2, 3, 3}, p.w);
  FillFloatTensor(g->add_initializer(), "b", {kM}, p.b);
  FillFloatTensor(g->add_initializer(), "scale", {kM}, p.scale);
  FillFloatTensor(g->add_initializer(), "bias", {kM}, p.bias);
  FillFloatTensor(g->add_initializer(), "mean", {kM}, p.mean);
  FillFloatTensor(g->add_initializer(), "var", {kM}, p.var);
  onnx::NodeProto* conv = AddNode(g, "Conv", {"x", "w", "b"}, {"c"}, "conv");
  if (!o.conv_bias) conv->mutable_input()->RemoveLast();
  AddIntsAttribute(conv, "pads", {1, 1, 1, 1});
  AddIntsAttribute(conv, "strides", {2, 2});
  AddIntAttribute(conv, "group", 2);
  std::string mean = "mean";
  if (o.mean_from_node) {
    // Constant only once constant_folding has run, which these tests leave off.
    AddNode(g, "Identity", {"mean"}, {"mean_copy"}, "copy_mean");
    mean = "mean_copy";
  }
  onnx::NodeProto* bn =
      AddNode(g, "BatchNormalization", {"c", "scale", "bias", mean, "var"}, {"y"}, "bn");
  onnx::AttributeProto* eps = bn->add_attribute();
  eps->set_name("epsilon");
  eps->set_type(onnx::AttributeProto::FLOAT);
  eps->set_f(kEpsilon);
  if (o.training_mode != 0) {
    AddIntAttribute(bn, "training_mode", o.training_mode);
    bn->add_output("running_mean");
    bn->add_output("running_var");
    FillValueInfo(g->add_output(), "running_mean", onnx::TensorProto::FLOAT, {kM});
    FillValueInfo(g->add_output(), "running_var", onnx::TensorProto::FLOAT, {kM});
  }
  if (o.conv_output_read_twice) {
    FillValueInfo(g->add_output(), "c", onnx::TensorProto::FLOAT, {1, kM, 3, 3});
  }
  return m;
}

TEST(ConvBnFolding, FoldsTheBatchNormIntoTheConvWeightsAndBias) {
  for (bool conv_bias : {true, false}) {
    SCOPED_TRACE(conv_bias ? "conv with bias" : "conv without bias");
    const ConvBnParams p;
    Options o;
    o.conv_bias = conv_bias;
    const onnx::ModelProto m = ConvBnModel(p, o);
    ir::Model model = Optimize(m, {"conv_bn_folding"});
    const ir::Graph& g = *model.graph;
    ASSERT_EQ(OpTypes(g), std::vector<std::string>{"Conv"});
    const ir::Node& conv = g.nodes[0];
    EXPECT_EQ(g.values[conv.outputs[0]].name, "y");
    EXPECT_EQ(GraphEditor::IntAttr(conv, "group", 0), 2);
    EXPECT_EQ(GraphEditor::IntsAttr(conv, "pads"), (std::vector<int64_t>{1, 1, 1, 1}));
    EXPECT_EQ(GraphEditor::IntsAttr(conv, "strides"), (std::vector<int64_t>{2, 2}));
    ASSERT_EQ(conv.inputs.size(), 3u);
    const ir::Initializer* w = g.FindInitializer(conv.inputs[1]);
    const ir::Initializer* b = g.FindInitializer(conv.inputs[2]);
    ASSERT_NE(w, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(w->tensor.shape(), (Shape{kM, 2, 3, 3}));
    EXPECT_EQ(b->tensor.shape(), Shape{kM});
    // BN(y) = (y - mean) / sqrt(var + eps) * scale + bias, with y = conv(x, w) + b.
    const int64_t per_channel = 2 * 3 * 3;
    for (int64_t c = 0; c < kM; ++c) {
      const float s = p.scale[c] / std::sqrt(p.var[c] + kEpsilon);
      for (int64_t k = 0; k < per_channel; ++k) {
        EXPECT_NEAR(w->tensor.data<float>()[c * per_channel + k], p.w[c * per_channel + k] * s,
                    1e-6f);
      }
      const float b0 = conv_bias ? p.b[c] : 0.0f;
      EXPECT_NEAR(b->tensor.data<float>()[c], (b0 - p.mean[c]) * s + p.bias[c], 1e-5f);
    }
    // The old weight, bias and BN parameters are no longer read.
    EXPECT_EQ(g.initializers.size(), 2u);

    const auto stats = ExpectSameResults(m, {{"x", RandomFloats({1, 4, 6, 6}, 8)}},
                                         {"conv_bn_folding"}, 1e-5f, 1e-5f);
    EXPECT_EQ(Rewrites(stats, "conv_bn_folding"), 1);
  }
}

TEST(ConvBnFolding, LeavesASharedConvOutputAFedWeightNonConstantStatsAndTrainingMode) {
  const ConvBnParams p;
  Options shared;
  shared.conv_output_read_twice = true;
  Options fed;
  fed.weight_is_input = true;
  Options computed_mean;
  computed_mean.mean_from_node = true;
  for (const Options& o : {shared, fed, computed_mean}) {
    ir::Model model = Optimize(ConvBnModel(p, o), {"conv_bn_folding"});
    const std::vector<std::string> ops = OpTypes(*model.graph);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "BatchNormalization"), 1);
  }
  Options training;
  training.training_mode = 1;
  onnx::ModelProto m = ConvBnModel(p, training);
  ir::Model model = Optimize(m, {"conv_bn_folding"});
  EXPECT_EQ(OpTypes(*model.graph), (std::vector<std::string>{"Conv", "BatchNormalization"}));
}

}  // namespace
}  // namespace nxrt::opt
