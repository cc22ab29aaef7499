// optimizer/transpose_optimizer_test.cpp: the transpose_optimizer pass on graphs before and after:
// Transposes around elementwise and axis ops cancel (axes moved, a broadcast constant reshaped
// and permuted in place), a constant another node reads keeps it through a Transpose back, a push
// that would not pay is not made, and a many-op graph gives the same outputs. The graphs ORT 1.30
// shows a plugin for the same rewrites are compared in tests/plugin_host/recording_ep_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "optimizer/optimizer_test_util.h"

namespace nxrt::opt {
namespace {

using testing::AddIntAttribute;
using testing::AddIntsAttribute;
using testing::AddNode;
using testing::ExpectSameResults;
using testing::FillFloatTensor;
using testing::FillInt64Tensor;
using testing::FillValueInfo;
using testing::MakeModel;
using testing::OpTypes;
using testing::RandomFloats;
using testing::Rewrites;

const std::vector<std::string> kPass = {"transpose_optimizer"};

// Loads `proto` with type inference (as sessions that optimise do: the pass reads ranks) and
// runs only transpose_optimizer.
ir::Model Optimize(const onnx::ModelProto& proto) {
  const std::vector<std::byte> bytes = ir::testing::Serialize(proto);
  ir::LoadOptions options;
  options.infer_types = true;
  ir::Model model = ir::LoadModelFromBytes(bytes, options).value();
  Result<std::vector<PassReport>> r = OptimizeModel(model, {2, testing::AllPassesBut(kPass)});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return model;
}

std::vector<float> FloatsOf(const ir::Model& model, const std::string& name) {
  const ir::Initializer* init = model.graph->FindInitializer(model.graph->FindValue(name));
  EXPECT_NE(init, nullptr) << name;
  if (init == nullptr) return {};
  return {init->tensor.span<float>().begin(), init->tensor.span<float>().end()};
}

Shape ShapeOf(const ir::Model& model, const std::string& name) {
  const ir::Initializer* init = model.graph->FindInitializer(model.graph->FindValue(name));
  return init != nullptr ? init->tensor.shape() : Shape{-1};
}

// Y = Transpose(Softmax(Relu(Add(Transpose(X, 0 2 1), b)), axis 2), 0 2 1), X [2,3,4], b [3].
onnx::ModelProto ChainModel() {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "X", onnx::TensorProto::FLOAT, {2, 3, 4});
  FillValueInfo(g->add_output(), "Y", onnx::TensorProto::FLOAT, {2, 3, 4});
  FillFloatTensor(g->add_initializer(), "b", {3}, {0.5f, -1.0f, 2.0f});
  AddIntsAttribute(AddNode(g, "Transpose", {"X"}, {"t"}, "t"), "perm", {0, 2, 1});
  AddNode(g, "Add", {"t", "b"}, {"a"}, "add");
  AddNode(g, "Relu", {"a"}, {"r"}, "relu");
  AddIntAttribute(AddNode(g, "Softmax", {"r"}, {"s"}, "softmax"), "axis", 2);
  AddIntsAttribute(AddNode(g, "Transpose", {"s"}, {"Y"}, "back"), "perm", {0, 2, 1});
  return m;
}

TEST(TransposeOptimizerTest, TransposesAroundElementwiseOpsCancel) {
  const onnx::ModelProto proto = ChainModel();
  ir::Model model = Optimize(proto);
  EXPECT_EQ(OpTypes(*model.graph), (std::vector<std::string>{"Add", "Relu", "Softmax"}));
  // Softmax over the last axis of the transposed tensor is over axis 1 of X.
  const ir::Node& softmax = model.graph->nodes[2];
  EXPECT_EQ(GraphEditor::IntAttr(softmax, "axis", -1), 1);
  // b [3] broadcast along the last axis of [2,4,3] reads along axis 1 of [2,3,4]: [1,3,1].
  EXPECT_EQ(ShapeOf(model, "b"), (Shape{1, 3, 1}));
  EXPECT_EQ(FloatsOf(model, "b"), (std::vector<float>{0.5f, -1.0f, 2.0f}));
  // Softmax renames its output after its node ("softmax"), as ORT's MoveOutput does.
  EXPECT_EQ(model.graph->values[softmax.outputs[0]].name, "Y");

  const auto stats = ExpectSameResults(proto, {{"X", RandomFloats({2, 3, 4}, 1)}}, kPass);
  // Pushed through Add, Relu and Softmax, then merged with the last Transpose.
  EXPECT_EQ(Rewrites(stats, "transpose_optimizer"), 4);
}

// Y = Transpose(Add(Transpose(X, 1 0), W), 1 0) and Z = Add(V, W): W [3,2] is read twice.
TEST(TransposeOptimizerTest, SharedConstantIsTransposedInPlaceAndBackForItsOtherReader) {
  onnx::ModelProto proto = MakeModel(17);
  onnx::GraphProto* g = proto.mutable_graph();
  FillValueInfo(g->add_input(), "X", onnx::TensorProto::FLOAT, {2, 3});
  FillValueInfo(g->add_input(), "V", onnx::TensorProto::FLOAT, {3, 2});
  FillValueInfo(g->add_output(), "Y", onnx::TensorProto::FLOAT, {2, 3});
  FillValueInfo(g->add_output(), "Z", onnx::TensorProto::FLOAT, {3, 2});
  FillFloatTensor(g->add_initializer(), "W", {3, 2}, {1, 2, 3, 4, 5, 6});
  AddIntsAttribute(AddNode(g, "Transpose", {"X"}, {"t"}, "t"), "perm", {1, 0});
  AddNode(g, "Add", {"t", "W"}, {"a"}, "add");
  AddIntsAttribute(AddNode(g, "Transpose", {"a"}, {"Y"}, "back"), "perm", {1, 0});
  AddNode(g, "Add", {"V", "W"}, {"Z"}, "other");
  ir::Model model = Optimize(proto);
  EXPECT_EQ(OpTypes(*model.graph), (std::vector<std::string>{"Add", "Add", "Transpose"}));
  EXPECT_EQ(ShapeOf(model, "W"), (Shape{2, 3}));
  EXPECT_EQ(FloatsOf(model, "W"), (std::vector<float>{1, 3, 5, 2, 4, 6}));
  // The other reader reads W through the Transpose back.
  const ir::Node& other = model.graph->nodes[1];
  const ir::Node& back = model.graph->nodes[2];
  EXPECT_EQ(other.name, "other");
  EXPECT_EQ(other.inputs[1], back.outputs[0]);
  EXPECT_EQ(back.name, "Transpose");
  EXPECT_EQ(GraphEditor::IntsAttr(back, "perm"), (std::vector<int64_t>{1, 0}));

  ExpectSameResults(proto, {{"X", RandomFloats({2, 3}, 2)}, {"V", RandomFloats({3, 2}, 3)}},
                    kPass);
}

// Y = Relu(Transpose(X)): the Transpose would only move below the Relu (rank 3 either way).
TEST(TransposeOptimizerTest, PushThatDoesNotPayIsNotMade) {
  onnx::ModelProto proto = MakeModel(17);
  onnx::GraphProto* g = proto.mutable_graph();
  FillValueInfo(g->add_input(), "X", onnx::TensorProto::FLOAT, {2, 3, 4});
  FillValueInfo(g->add_output(), "Y", onnx::TensorProto::FLOAT, {4, 2, 3});
  AddIntsAttribute(AddNode(g, "Transpose", {"X"}, {"t"}, "t"), "perm", {2, 0, 1});
  AddNode(g, "Relu", {"t"}, {"Y"}, "relu");
  ir::Model model = Optimize(proto);
  EXPECT_EQ(OpTypes(*model.graph), (std::vector<std::string>{"Transpose", "Relu"}));
}

// One Transpose (NCHW → NHWC) read by ops of every rule family, each followed by the Transpose
// back: the outputs must not change.
TEST(TransposeOptimizerTest, ManyOpsKeepTheirOutputs) {
  onnx::ModelProto proto = MakeModel(13);
  onnx::GraphProto* g = proto.mutable_graph();
  FillValueInfo(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 3, 4, 5});
  FillInt64Tensor(g->add_initializer(), "axes0", {1}, {0});
  FillInt64Tensor(g->add_initializer(), "axes12", {2}, {1, 2});
  FillInt64Tensor(g->add_initializer(), "starts", {1}, {1});
  FillInt64Tensor(g->add_initializer(), "ends", {1}, {3});
  FillInt64Tensor(g->add_initializer(), "axis2", {1}, {2});
  FillInt64Tensor(g->add_initializer(), "pads", {8}, {0, 1, 0, 0, 0, 2, 0, 1});
  FillInt64Tensor(g->add_initializer(), "repeats", {4}, {1, 2, 1, 3});
  FillFloatTensor(g->add_initializer(), "scale", {3}, {0.5f, 2.0f, -1.0f});
  AddIntsAttribute(AddNode(g, "Transpose", {"X"}, {"t"}, "to_nhwc"), "perm", {0, 2, 3, 1});
  std::vector<std::string> outputs;
  auto back = [&](const std::string& value, const std::vector<int64_t>& perm) {
    const std::string out = "out_" + value;
    AddIntsAttribute(AddNode(g, "Transpose", {value}, {out}, "back_" + value), "perm", perm);
    FillValueInfo(g->add_output(), out, onnx::TensorProto::FLOAT, {});
    g->mutable_output(g->output_size() - 1)->mutable_type()->mutable_tensor_type()->clear_shape();
  };
  const std::vector<int64_t> to_nchw = {0, 3, 1, 2};
  AddNode(g, "Mul", {"t", "scale"}, {"mul"}, "mul");
  back("mul", to_nchw);
  AddIntAttribute(AddNode(g, "Concat", {"t", "mul"}, {"concat"}, "concat"), "axis", 3);
  back("concat", to_nchw);
  AddNode(g, "Slice", {"t", "starts", "ends", "axis2"}, {"slice"}, "slice");
  back("slice", to_nchw);
  AddNode(g, "Pad", {"t", "pads"}, {"pad"}, "pad");
  back("pad", to_nchw);
  AddNode(g, "Tile", {"t", "repeats"}, {"tile"}, "tile");
  back("tile", to_nchw);
  AddIntAttribute(AddNode(g, "ReduceSum", {"t", "axes12"}, {"sum"}, "sum"), "keepdims", 0);
  back("sum", {1, 0});
  AddNode(g, "Squeeze", {"t", "axes0"}, {"squeeze"}, "squeeze");
  back("squeeze", {2, 0, 1});
  AddNode(g, "Unsqueeze", {"t", "axes0"}, {"unsqueeze"}, "unsqueeze");
  back("unsqueeze", {0, 1, 4, 2, 3});
  AddIntAttribute(AddNode(g, "Softmax", {"t"}, {"softmax"}, "softmax"), "axis", 3);
  back("softmax", to_nchw);
  AddNode(g, "Shape", {"t"}, {"shape"}, "shape");
  FillValueInfo(g->add_output(), "shape", onnx::TensorProto::INT64, {4});
  ir::Model model = Optimize(proto);
  // Every Transpose back cancels but the one of the sum, [1,3] → [3,1], a transpose of its own.
  std::vector<std::string> transposes;
  for (const ir::Node& n : model.graph->nodes) {
    if (n.op_type == "Transpose") transposes.push_back(n.name);
  }
  EXPECT_EQ(transposes, (std::vector<std::string>{"back_sum"}));
  const auto stats = ExpectSameResults(proto, {{"X", RandomFloats({1, 3, 4, 5}, 4)}}, kPass);
  EXPECT_GT(Rewrites(stats, "transpose_optimizer"), 0);
}

}  // namespace
}  // namespace nxrt::opt
