// optimizer/nhwc_layout_test.cpp: the nhwc_layout pass: which nodes run channels-last, where
// the Transposes go, and results against the unoptimised graph (level-0 session) on random
// inputs with fixed seeds.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "optimizer/activation_test_util.h"

namespace nxrt::opt {
namespace {

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

const std::vector<std::string> kPasses = {"conv_activation_fusion", "nhwc_layout"};

// Adds `out` = Conv(`in`, W [m, c/group, k, k], B [m]) with stride and pads k/2.
void AddConv(onnx::GraphProto* g, const std::string& in, const std::string& out, int64_t c,
             int64_t m, int64_t k, int64_t stride = 1, int64_t group = 1) {
  const std::vector<int64_t> w = {m, c / group, k, k};
  const auto seed = static_cast<uint32_t>(out.size() * 7 + m);
  AddFloatConstant(g, out + "_w", w, Floats(w, seed, -0.5f, 0.5f));
  AddFloatConstant(g, out + "_b", {m}, Floats({m}, static_cast<uint32_t>(m + 3), -0.5f, 0.5f));
  onnx::NodeProto* conv = AddNode(g, "Conv", {in, out + "_w", out + "_b"}, {out}, out);
  AddIntsAttribute(conv, "kernel_shape", {k, k});
  AddIntsAttribute(conv, "strides", {stride, stride});
  AddIntsAttribute(conv, "pads", {k / 2, k / 2, k / 2, k / 2});
  AddIntAttribute(conv, "group", group);
}

const ir::Node* FindOp(const ir::Graph& g, const std::string& op_type, size_t nth = 0) {
  for (const ir::Node& n : g.nodes) {
    if (n.op_type == op_type && nth-- == 0) return &n;
  }
  return nullptr;
}

// x [1,8,12,12] → Conv+Relu → MaxPool 3x3/2 → Conv+Relu → Conv → Add(pool) → Relu →
// GlobalAveragePool → Flatten → y: a ResNet stem and basic block.
onnx::ModelProto ResNetBlock() {
  onnx::ModelProto m = MakeModel(13);
  onnx::GraphProto* g = m.mutable_graph();
  FillFloatInfo(g->add_input(), "x", {1, 8, 12, 12});
  AddFloatOutput(g, "y");
  AddConv(g, "x", "c1", 8, 16, 3);
  AddNode(g, "Relu", {"c1"}, {"r1"});
  onnx::NodeProto* pool = AddNode(g, "MaxPool", {"r1"}, {"p"}, "pool");
  AddIntsAttribute(pool, "kernel_shape", {3, 3});
  AddIntsAttribute(pool, "strides", {2, 2});
  AddIntsAttribute(pool, "pads", {1, 1, 1, 1});
  AddConv(g, "p", "c2", 16, 16, 3);
  AddNode(g, "Relu", {"c2"}, {"r2"});
  AddConv(g, "r2", "c3", 16, 16, 3);
  FillFloatInfo(g->add_value_info(), "c3", {1, 16, 6, 6});
  FillFloatInfo(g->add_value_info(), "p", {1, 16, 6, 6});
  AddNode(g, "Add", {"c3", "p"}, {"s"});
  AddNode(g, "Relu", {"s"}, {"r3"});
  AddNode(g, "GlobalAveragePool", {"r3"}, {"gap"});
  AddNode(g, "Flatten", {"gap"}, {"y"});
  return m;
}

TEST(NhwcLayout, RunsAResNetBlockChannelsLastWithTransposesAtItsEnds) {
  const ir::Model model = Optimize(ResNetBlock(), kPasses);
  const ir::Graph& g = *model.graph;
  EXPECT_EQ(OpTypes(g), (std::vector<std::string>{
                            "Transpose", "com.nxrt:FusedConv", "com.nxrt:NhwcMaxPool",
                            "com.nxrt:FusedConv", "com.nxrt:FusedConv",
                            "com.nxrt:NhwcGlobalAveragePool", "Transpose", "Flatten"}));
  for (size_t i = 0; i < 3; ++i) {
    const ir::Node* conv = FindOp(g, "FusedConv", i);
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(GraphEditor::IntAttr(*conv, "channels_last", 0), 1) << conv->name;
  }
  EXPECT_EQ(GraphEditor::IntsAttr(g.nodes[0], "perm"), (std::vector<int64_t>{0, 2, 3, 1}));
  EXPECT_EQ(GraphEditor::IntsAttr(g.nodes[6], "perm"), (std::vector<int64_t>{0, 3, 1, 2}));
  // The residual (the pool's output) reaches the last convolution as its NHWC sum input.
  const ir::Node* last_conv = FindOp(g, "FusedConv", 2);
  ASSERT_EQ(last_conv->inputs.size(), 4u);
  EXPECT_EQ(last_conv->inputs[3], FindOp(g, "NhwcMaxPool")->outputs[0]);
  // The pool keeps MaxPool's attributes.
  EXPECT_EQ(GraphEditor::IntsAttr(*FindOp(g, "NhwcMaxPool"), "strides"),
            (std::vector<int64_t>{2, 2}));
}

TEST(NhwcLayout, ResNetBlockGivesTheUnoptimisedResults) {
  const auto stats = ExpectSameResults(ResNetBlock(), {{"x", RandomFloats({1, 8, 12, 12}, 7)}},
                                       kPasses, 1e-4f, 1e-5f);
  EXPECT_EQ(Rewrites(stats, "nhwc_layout"), 5);
}

// A value that a converted node and something else both read keeps its NCHW form through one
// Transpose back: here c1 is a graph output and is read by a Softmax (not converted).
TEST(NhwcLayout, KeepsTheNchwValueForOtherReadersAndGraphOutputs) {
  onnx::ModelProto m = MakeModel(13);
  onnx::GraphProto* g = m.mutable_graph();
  FillFloatInfo(g->add_input(), "x", {2, 5, 9, 7});
  AddFloatOutput(g, "c1");
  AddFloatOutput(g, "y");
  AddFloatOutput(g, "soft");
  AddConv(g, "x", "c1", 5, 12, 3, 2);
  AddConv(g, "c1", "c2", 12, 12, 3, 1, 12);
  AddNode(g, "Sigmoid", {"c2"}, {"y"});
  AddNode(g, "Softmax", {"c1"}, {"soft"});
  const ir::Model model = Optimize(m, kPasses);
  EXPECT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"Transpose", "com.nxrt:FusedConv", "Transpose",
                                      "com.nxrt:FusedConv", "Transpose", "Softmax"}));
  const auto stats = ExpectSameResults(m, {{"x", RandomFloats({2, 5, 9, 7}, 8)}}, kPasses,
                                       1e-4f, 1e-5f);
  EXPECT_EQ(Rewrites(stats, "nhwc_layout"), 2);
}

// A squeeze-and-excitation block and a channel Concat stay channels-last: the Mul broadcasts
// [N,C,H,W] by [N,C,1,1] (both NHWC twins), Concat's axis 1 becomes 3, a one-element constant
// operand is fine, and AveragePool keeps its padding and ceil_mode rules.
onnx::ModelProto SqueezeExcite() {
  onnx::ModelProto m = MakeModel(13);
  onnx::GraphProto* g = m.mutable_graph();
  FillFloatInfo(g->add_input(), "x", {1, 6, 11, 10});
  AddFloatOutput(g, "y");
  AddConv(g, "x", "c1", 6, 8, 3);
  AddNode(g, "GlobalAveragePool", {"c1"}, {"gap"});
  AddConv(g, "gap", "se1", 8, 4, 1);
  AddNode(g, "Relu", {"se1"}, {"se1r"});
  AddConv(g, "se1r", "se2", 4, 8, 1);
  AddNode(g, "Sigmoid", {"se2"}, {"gate"});
  AddNode(g, "Mul", {"c1", "gate"}, {"scaled"});
  AddFloatConstant(g, "half", {1}, {0.5f});
  AddNode(g, "Mul", {"half", "scaled"}, {"halved"});
  AddConv(g, "halved", "c2", 8, 3, 3);
  onnx::NodeProto* concat = AddNode(g, "Concat", {"halved", "c2"}, {"cat"});
  AddIntAttribute(concat, "axis", 1);
  onnx::NodeProto* pool = AddNode(g, "AveragePool", {"cat"}, {"avg"}, "avg");
  AddIntsAttribute(pool, "kernel_shape", {3, 3});
  AddIntsAttribute(pool, "strides", {2, 2});
  AddIntsAttribute(pool, "pads", {1, 0, 1, 0});
  AddIntAttribute(pool, "ceil_mode", 1);
  AddIntAttribute(pool, "count_include_pad", 1);
  AddConv(g, "avg", "y", 11, 4, 1);
  return m;
}

TEST(NhwcLayout, SqueezeExciteConcatAndAveragePoolStayChannelsLast) {
  const ir::Model model = Optimize(SqueezeExcite(), kPasses);
  const ir::Graph& g = *model.graph;
  EXPECT_EQ(OpTypes(g), (std::vector<std::string>{
                            "Transpose", "com.nxrt:FusedConv", "com.nxrt:NhwcGlobalAveragePool",
                            "com.nxrt:FusedConv", "com.nxrt:FusedConv", "Mul", "Mul",
                            "com.nxrt:FusedConv", "Concat", "com.nxrt:NhwcAveragePool",
                            "com.nxrt:FusedConv", "Transpose"}));
  EXPECT_EQ(GraphEditor::IntAttr(*FindOp(g, "Concat"), "axis", 0), 3);
  // Ops that keep their type say in their name that they see NHWC data (errors print shapes).
  EXPECT_TRUE(FindOp(g, "Concat")->name.ends_with("_nhwc")) << FindOp(g, "Concat")->name;
  EXPECT_TRUE(FindOp(g, "Mul")->name.ends_with("_nhwc")) << FindOp(g, "Mul")->name;
  const auto stats = ExpectSameResults(SqueezeExcite(), {{"x", RandomFloats({1, 6, 11, 10}, 9)}},
                                       kPasses, 1e-4f, 1e-5f);
  EXPECT_EQ(Rewrites(stats, "nhwc_layout"), 10);
}

void SetMode(onnx::NodeProto* resize, const std::string& mode) {
  onnx::AttributeProto* a = resize->add_attribute();
  a->set_name("mode");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(mode);
}

// An FPN's top-down path: the coarse map upsampled (Resize with constant scales, nearest; then
// with constant sizes, linear) and added to the finer one stays channels-last, the scales and
// sizes permuted to NHWC order.
TEST(NhwcLayout, ResizeWithConstantScalesOrSizesStaysChannelsLast) {
  onnx::ModelProto m = MakeModel(13);
  onnx::GraphProto* g = m.mutable_graph();
  FillFloatInfo(g->add_input(), "x", {1, 4, 12, 10});
  AddFloatOutput(g, "y");
  AddConv(g, "x", "fine", 4, 8, 3);
  AddConv(g, "fine", "coarse", 8, 8, 3, 2);
  AddFloatConstant(g, "scales", {4}, {1.0f, 1.0f, 2.0f, 2.0f});
  onnx::NodeProto* up = AddNode(g, "Resize", {"coarse", "", "scales"}, {"up"}, "up");
  SetMode(up, "nearest");
  AddNode(g, "Add", {"up", "fine"}, {"merged"});
  onnx::TensorProto* sizes = g->add_initializer();
  sizes->set_name("sizes");
  sizes->set_data_type(onnx::TensorProto::INT64);
  sizes->add_dims(4);
  for (int64_t d : {1, 8, 17, 13}) sizes->add_int64_data(d);
  onnx::NodeProto* grow = AddNode(g, "Resize", {"merged", "", "", "sizes"}, {"grown"}, "grow");
  SetMode(grow, "linear");
  AddConv(g, "grown", "y", 8, 3, 3);
  const ir::Model model = Optimize(m, kPasses);
  const ir::Graph& g2 = *model.graph;
  EXPECT_EQ(OpTypes(g2), (std::vector<std::string>{"Transpose", "com.nxrt:FusedConv",
                                                   "com.nxrt:FusedConv", "Resize", "Add", "Resize",
                                                   "com.nxrt:FusedConv", "Transpose"}));
  const ir::Initializer* scales = g2.FindInitializer(FindOp(g2, "Resize", 0)->inputs[2]);
  ASSERT_NE(scales, nullptr);
  EXPECT_EQ(std::vector<float>(scales->tensor.span<float>().begin(),
                               scales->tensor.span<float>().end()),
            (std::vector<float>{1.0f, 2.0f, 2.0f, 1.0f}));
  const ir::Initializer* grown = g2.FindInitializer(FindOp(g2, "Resize", 1)->inputs[3]);
  ASSERT_NE(grown, nullptr);
  EXPECT_EQ(std::vector<int64_t>(grown->tensor.span<int64_t>().begin(),
                                 grown->tensor.span<int64_t>().end()),
            (std::vector<int64_t>{1, 17, 13, 8}));
  const auto stats = ExpectSameResults(m, {{"x", RandomFloats({1, 4, 12, 10}, 13)}}, kPasses,
                                       1e-4f, 1e-5f);
  EXPECT_EQ(Rewrites(stats, "nhwc_layout"), 6);
}

// Left alone: a 1-D convolution (W rank 3), a pool with no channels-last producer, and an Add
// with a per-channel constant (it would need the constant transposed): the Add reads the
// convolution's output through the Transpose back.
TEST(NhwcLayout, LeavesOneDimensionalConvsLonePoolsAndPerChannelOperands) {
  onnx::ModelProto m = MakeModel(13);
  onnx::GraphProto* g = m.mutable_graph();
  FillFloatInfo(g->add_input(), "a", {1, 4, 16});
  FillFloatInfo(g->add_input(), "x", {1, 4, 8, 8});
  AddFloatOutput(g, "a1");
  AddFloatOutput(g, "p");
  AddFloatOutput(g, "y");
  AddFloatConstant(g, "wa", {4, 4, 3}, Floats({4, 4, 3}, 4, -0.5f, 0.5f));
  onnx::NodeProto* conv1d = AddNode(g, "Conv", {"a", "wa"}, {"a1"}, "conv1d");
  AddIntsAttribute(conv1d, "pads", {1, 1});
  onnx::NodeProto* pool = AddNode(g, "MaxPool", {"x"}, {"p"}, "pool");
  AddIntsAttribute(pool, "kernel_shape", {2, 2});
  AddConv(g, "x", "c", 4, 4, 3);
  AddFloatConstant(g, "per_channel", {1, 4, 1, 1}, Floats({4}, 5, -0.5f, 0.5f));
  AddNode(g, "Add", {"c", "per_channel"}, {"y"});
  const ir::Model model = Optimize(m, kPasses);
  EXPECT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"Conv", "MaxPool", "Transpose", "com.nxrt:FusedConv",
                                      "Transpose", "Add"}));
  const auto stats = ExpectSameResults(
      m, {{"a", RandomFloats({1, 4, 16}, 10)}, {"x", RandomFloats({1, 4, 8, 8}, 11)}}, kPasses,
      1e-4f, 1e-5f);
  EXPECT_EQ(Rewrites(stats, "nhwc_layout"), 1);
}

// Residual blocks run again and again: from the second run the memory plan gives a FusedConv's
// output the buffer of its residual Z when Z dies there (ep/in_place.h), and must not when Z is
// read afterwards (here by the final Add). Every run must still give the unoptimised results.
TEST(NhwcLayout, ResidualsSharingTheirBufferStayCorrectOverRuns) {
  onnx::ModelProto m = MakeModel(13);
  onnx::GraphProto* g = m.mutable_graph();
  const std::vector<int64_t> shape = {1, 16, 9, 8};
  FillFloatInfo(g->add_input(), "x", shape);
  AddFloatOutput(g, "y");
  AddConv(g, "x", "c1", 16, 16, 3);
  AddNode(g, "Relu", {"c1"}, {"r1"});
  AddConv(g, "r1", "ca", 16, 16, 3);
  AddConv(g, "ca", "c2", 16, 16, 3);
  FillFloatInfo(g->add_value_info(), "c2", shape);
  FillFloatInfo(g->add_value_info(), "r1", shape);
  AddNode(g, "Add", {"c2", "r1"}, {"s2"});  // r1 dies here: in place
  AddNode(g, "Relu", {"s2"}, {"r2"});
  AddConv(g, "r2", "cb", 16, 16, 3);
  AddConv(g, "cb", "c3", 16, 16, 3);
  FillFloatInfo(g->add_value_info(), "c3", shape);
  FillFloatInfo(g->add_value_info(), "r2", shape);
  AddNode(g, "Add", {"r2", "c3"}, {"s3"});  // r2 is read again below: not in place
  AddNode(g, "Add", {"s3", "r2"}, {"y"});
  const std::vector<std::byte> bytes = testing::Serialize(m);
  SessionOptions plain;
  plain.optimization_level = 0;
  auto reference = Session::CreateFromBytes(bytes, plain);
  auto optimised = Session::CreateFromBytes(bytes, SessionOptions{});
  ASSERT_TRUE(reference.ok() && optimised.ok());
  for (uint32_t run = 0; run < 4; ++run) {
    SCOPED_TRACE(run);
    const std::vector<NamedTensor> inputs = {{"x", RandomFloats(shape, 30 + run)}};
    auto want = (*reference)->Run(inputs);
    auto got = (*optimised)->Run(inputs);
    ASSERT_TRUE(want.ok() && got.ok());
    const std::span<const float> w = (*want)[0].tensor.span<float>();
    const std::span<const float> y = (*got)[0].tensor.span<float>();
    ASSERT_EQ(w.size(), y.size());
    for (size_t i = 0; i < w.size(); ++i) {
      ASSERT_NEAR(y[i], w[i], 1e-4f + 1e-4f * std::fabs(w[i])) << "element " << i;
    }
  }
  EXPECT_EQ(Rewrites((*optimised)->OptimizerPasses(), "conv_activation_fusion"), 3);
}

// A model importing only com.nxrt (a graph nxrt already optimised) gets no default-domain
// Transposes: the pass leaves it as it is.
TEST(NhwcLayout, LeavesAModelWithoutTheDefaultDomainAlone) {
  onnx::ModelProto m = MakeModel(13);
  m.clear_opset_import();
  onnx::OperatorSetIdProto* nxrt = m.add_opset_import();
  nxrt->set_domain("com.nxrt");
  nxrt->set_version(1);
  onnx::GraphProto* g = m.mutable_graph();
  FillFloatInfo(g->add_input(), "x", {1, 4, 6, 6});
  AddFloatOutput(g, "y");
  AddFloatConstant(g, "w", {8, 4, 3, 3}, Floats({8, 4, 3, 3}, 21, -0.5f, 0.5f));
  onnx::NodeProto* conv = AddNode(g, "FusedConv", {"x", "w"}, {"y"}, "conv");
  conv->set_domain("com.nxrt");
  AddIntsAttribute(conv, "pads", {1, 1, 1, 1});
  const ir::Model model = Optimize(m, kPasses);
  EXPECT_EQ(OpTypes(*model.graph), std::vector<std::string>{"com.nxrt:FusedConv"});
  const auto stats = ExpectSameResults(m, {{"x", RandomFloats({1, 4, 6, 6}, 22)}}, kPasses,
                                       1e-4f, 1e-5f);
  EXPECT_EQ(Rewrites(stats, "nhwc_layout"), 0);
}

// A FusedConv that spells out channels_last 0 comes out with one channels_last attribute, 1
// (the kernel reads the first of two).
TEST(NhwcLayout, ReplacesAnExplicitChannelsLastZero) {
  onnx::ModelProto m = MakeModel(13);
  onnx::OperatorSetIdProto* nxrt = m.add_opset_import();
  nxrt->set_domain("com.nxrt");
  nxrt->set_version(1);
  onnx::GraphProto* g = m.mutable_graph();
  FillFloatInfo(g->add_input(), "x", {1, 4, 5, 6});
  AddFloatOutput(g, "y");
  AddFloatConstant(g, "w", {8, 4, 3, 3}, Floats({8, 4, 3, 3}, 23, -0.5f, 0.5f));
  onnx::NodeProto* conv = AddNode(g, "FusedConv", {"x", "w"}, {"c"}, "conv");
  conv->set_domain("com.nxrt");
  AddIntsAttribute(conv, "pads", {1, 1, 1, 1});
  AddIntAttribute(conv, "channels_last", 0);
  AddNode(g, "Relu", {"c"}, {"y"});
  const ir::Model model = Optimize(m, kPasses);
  const ir::Node* fused = FindOp(*model.graph, "FusedConv");
  ASSERT_NE(fused, nullptr);
  int count = 0;
  for (const ir::Attribute& a : fused->attributes) count += a.name == "channels_last";
  EXPECT_EQ(count, 1);
  EXPECT_EQ(GraphEditor::IntAttr(*fused, "channels_last", 0), 1);
  const auto stats = ExpectSameResults(m, {{"x", RandomFloats({1, 4, 5, 6}, 24)}}, kPasses,
                                       1e-4f, 1e-5f);
  EXPECT_GE(Rewrites(stats, "nhwc_layout"), 1);
}

// A TensorFlow export: NHWC input, Transpose to NCHW before the convolutions and back after.
// The pass reads the input itself and writes the output through a copy, with no Transpose
// left.
TEST(NhwcLayout, UsesTheModelsOwnTransposesInsteadOfAddingMore) {
  onnx::ModelProto m = MakeModel(13);
  onnx::GraphProto* g = m.mutable_graph();
  FillFloatInfo(g->add_input(), "x", {1, 9, 8, 4});
  AddFloatOutput(g, "y");
  onnx::NodeProto* in = AddNode(g, "Transpose", {"x"}, {"x_nchw"}, "to_nchw");
  AddIntsAttribute(in, "perm", {0, 3, 1, 2});
  AddConv(g, "x_nchw", "c1", 4, 8, 3);
  AddNode(g, "Relu", {"c1"}, {"r1"});
  AddConv(g, "r1", "c2", 8, 8, 1);
  onnx::NodeProto* out = AddNode(g, "Transpose", {"c2"}, {"y"}, "to_nhwc");
  AddIntsAttribute(out, "perm", {0, 2, 3, 1});
  const ir::Model model = Optimize(m, kPasses);
  EXPECT_EQ(OpTypes(*model.graph), (std::vector<std::string>{
                                       "com.nxrt:FusedConv", "com.nxrt:FusedConv", "Identity"}));
  EXPECT_EQ(model.graph->values[model.graph->nodes[0].inputs[0]].name, "x");
  const auto stats = ExpectSameResults(m, {{"x", RandomFloats({1, 9, 8, 4}, 25)}}, kPasses,
                                       1e-4f, 1e-5f);
  EXPECT_EQ(Rewrites(stats, "nhwc_layout"), 3);

}

// Random convolution chains: channels, strides, groups and spatial sizes from a fixed seed; the
// optimised session (every level-2 pass) must give the level-0 results.
TEST(NhwcLayout, RandomConvChainsGiveTheUnoptimisedResults) {
  std::mt19937 rng(2026);
  for (int trial = 0; trial < 6; ++trial) {
    SCOPED_TRACE(trial);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    onnx::ModelProto m = MakeModel(13);
    onnx::GraphProto* g = m.mutable_graph();
    const int64_t c0 = pick(1, 5);
    const std::vector<int64_t> x = {pick(1, 2), c0, pick(5, 14), pick(5, 14)};
    FillFloatInfo(g->add_input(), "x", x);
    AddFloatOutput(g, "y");
    std::string last = "x";
    int64_t c = c0;
    for (int layer = 0; layer < 3; ++layer) {
      const int64_t m_out = pick(1, 3) * 8;
      const bool depthwise = layer > 0 && pick(0, 1) == 1;
      std::string out = "c";
      out += std::to_string(layer);
      AddConv(g, last, out, c, depthwise ? c : m_out, pick(0, 1) * 2 + 1, pick(1, 2),
              depthwise ? c : 1);
      if (!depthwise) c = m_out;
      AddNode(g, "Relu", {out}, {out + "r"});
      last = out + "r";
    }
    AddNode(g, "Identity", {last}, {"y"});
    std::vector<std::string> all;
    for (const auto& pass : AllPasses()) all.emplace_back(pass->name());
    ExpectSameResults(m, {{"x", RandomFloats(x, 12 + trial)}}, all, 1e-4f, 1e-5f);
  }
}

}  // namespace
}  // namespace nxrt::opt
