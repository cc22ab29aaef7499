// ir/model_validator_test.cpp: the loader's validator (ir/model_validator.h) on models that break
// one rule each, loaded with type inference on, as a session loads them: each gives one clear
// error before libonnx's shape inference sees the graph (several of these crashed it).
#include "ir/model_validator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ir/onnx_loader.h"
#include "ir/onnx_test_models.h"

namespace nxrt::ir {
namespace {

using testing::AddGraphAttribute;
using testing::AddNode;
using testing::Contains;
using testing::FillValueInfo;
using testing::MakeModel;
using testing::Serialize;

Result<Model> Load(const onnx::ModelProto& proto) {
  LoadOptions options;
  options.infer_types = true;
  const std::vector<std::byte> bytes = Serialize(proto);
  return LoadModelFromBytes(bytes, options);
}

// Expects `proto` to fail to load with kInvalidModel and a message containing every part.
void ExpectRefused(const onnx::ModelProto& proto, const std::vector<std::string>& parts) {
  Result<Model> model = Load(proto);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kInvalidModel) << model.status().message();
  for (const std::string& part : parts) {
    EXPECT_TRUE(Contains(model.status().message(), part));
  }
}

// x: float[2,3] -> op -> y, with `inputs` and `outputs` naming the node's slots.
onnx::ModelProto OneNode(const std::string& op, const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs, int64_t opset = 17) {
  onnx::ModelProto proto = MakeModel(opset);
  onnx::GraphProto* g = proto.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  onnx::NodeProto* node = AddNode(g, op, {}, {}, "n");
  for (const std::string& in : inputs) node->add_input(in);
  for (const std::string& out : outputs) node->add_output(out);
  FillValueInfo(g->add_output(), outputs.empty() ? "x" : outputs[0]);
  return proto;
}

void AddInt64Initializer(onnx::GraphProto* g, const std::string& name, int64_t count,
                         size_t raw_bytes) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(count);
  t->mutable_raw_data()->assign(raw_bytes, '\1');
}

TEST(ModelValidatorTest, Int64RawDataOfElevenBytesIsRefusedBeforeShapeInference) {
  // libonnx 1.12 copies all 11 bytes into a vector of 11 / 8 = 1 int64 when it infers Reshape.
  onnx::ModelProto proto = OneNode("Reshape", {"x", "shape"}, {"y"});
  AddInt64Initializer(proto.mutable_graph(), "shape", 2, 11);
  ExpectRefused(proto, {"initializer", "tensor 'shape'",
                        "dims [2] of int64 need 16 bytes of raw_data, got 11"});
}

TEST(ModelValidatorTest, ConstantValueOfThreeBytesIsRefusedBeforeShapeInference) {
  onnx::ModelProto proto = OneNode("Reshape", {"x", "shape"}, {"y"});
  onnx::NodeProto* constant = proto.mutable_graph()->add_node();
  constant->set_op_type("Constant");
  constant->set_name("c");
  constant->add_output("shape");
  onnx::AttributeProto* value = constant->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->set_raw_data("abc");
  ExpectRefused(proto, {"node 'c' (Constant) attribute 'value'",
                        "dims [1] of int64 need 8 bytes of raw_data, got 3"});
}

TEST(ModelValidatorTest, ScanWithoutBodyIsRefusedBeforeShapeInference) {
  onnx::ModelProto proto = OneNode("Scan", {"x"}, {"y"});
  proto.mutable_graph()->mutable_node(0)->add_attribute()->set_name("num_scan_inputs");
  proto.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_type(
      onnx::AttributeProto::INT);
  proto.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_i(1);
  ExpectRefused(proto, {"node 'n' (Scan)", "Required attribute 'body' is missing",
                        "schema at opset 17"});
}

TEST(ModelValidatorTest, InputThatExistsNowhereIsRefusedBeforeShapeInference) {
  onnx::ModelProto proto = OneNode("Add", {"x", "ghost"}, {"y"});
  ExpectRefused(proto, {"node 'n' (Add): input 1 'ghost' is not produced by any node"});
}

TEST(ModelValidatorTest, ArityOutsideTheSchemaIsRefused) {
  ExpectRefused(OneNode("ScatterND", {"x", "x"}, {"y"}),
                {"node 'n' (ScatterND)", "input size 2 not in range [min=3, max=3]"});
  ExpectRefused(OneNode("GRU", {"x", "x", "x"}, {"y", "h", "extra"}),
                {"node 'n' (GRU)", "output size 3 not in range [min=0, max=2]"});
  ExpectRefused(OneNode("DynamicQuantizeLinear", {"x"}, {"y"}),
                {"node 'n' (DynamicQuantizeLinear)", "output size 1 not in range [min=3, max=3]"});
  ExpectRefused(OneNode("If", {}, {"y"}),
                {"node 'n' (If)", "input size 0 not in range [min=1, max=1]"});
}

TEST(ModelValidatorTest, AttributeOfTheWrongTypeIsRefused) {
  onnx::ModelProto proto = OneNode("Softmax", {"x"}, {"y"});
  onnx::AttributeProto* axis = proto.mutable_graph()->mutable_node(0)->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::FLOAT);
  axis->set_f(1.0f);
  ExpectRefused(proto, {"node 'n' (Softmax)", "Mismatched attribute type in 'n : axis'"});
}

TEST(ModelValidatorTest, MixedElementTypesOfOneTypeParameterAreRefused) {
  for (const char* op : {"Add", "MatMul", "Gemm"}) {
    onnx::ModelProto proto = OneNode(op, {"x", "d"}, {"y"});
    FillValueInfo(proto.mutable_graph()->add_input(), "d", onnx::TensorProto::DOUBLE, {3, 2});
    ExpectRefused(proto, {std::string("node 'n' (") + op + ", opset 17)",
                          "input 1 'd' has type tensor(double) but input 0 'x' has type "
                          "tensor(float); both are of type parameter T, which must be one type"});
  }
}

TEST(ModelValidatorTest, ElementTypeTheSchemaDoesNotAllowIsRefused) {
  onnx::ModelProto proto = MakeModel(17);
  onnx::GraphProto* g = proto.mutable_graph();
  FillValueInfo(g->add_input(), "s", onnx::TensorProto::STRING, {2});
  AddNode(g, "Sqrt", {"s"}, {"y"}, "n");
  FillValueInfo(g->add_output(), "y");
  ExpectRefused(proto, {"node 'n' (Sqrt, opset 17)",
                        "input 0 's' has type tensor(string), which T does not allow; allowed: "
                        "tensor(bfloat16), tensor(double), tensor(float), tensor(float16)"});
}

TEST(ModelValidatorTest, SubgraphsNestedTooDeepAreReportedAsTooDeep) {
  // 32 Ifs, each inside the then_branch of the one before.
  onnx::ModelProto proto = MakeModel(17);
  onnx::GraphProto* g = proto.mutable_graph();
  FillValueInfo(g->add_input(), "c", onnx::TensorProto::BOOL, {});
  FillValueInfo(g->add_output(), "y");
  for (int depth = 0; depth < 32; ++depth) {
    onnx::NodeProto* node = AddNode(g, "If", {"c"}, {"y"}, "if" + std::to_string(depth));
    onnx::GraphProto* else_g = AddGraphAttribute(node, "else_branch");
    AddNode(else_g, "Identity", {"c"}, {"e"}, "e");
    FillValueInfo(else_g->add_output(), "e");
    g = AddGraphAttribute(node, "then_branch");
    FillValueInfo(g->add_output(), "y");
  }
  AddNode(g, "Identity", {"c"}, {"y"}, "leaf");
  ExpectRefused(proto, {"subgraphs are nested more than 16 deep",
                        "node 'if0' (If) attribute 'then_branch': node 'if1' (If)"});
}

TEST(ModelValidatorTest, UnsortedGraphLoadsWithoutShapeInference) {
  // y = Relu(Neg(x)) with the nodes in reverse order: valid for nxrt (it sorts), but libonnx's
  // inference must not see it.
  onnx::ModelProto proto = MakeModel(17);
  onnx::GraphProto* g = proto.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {2});
  AddNode(g, "Relu", {"t"}, {"y"}, "relu");
  AddNode(g, "Neg", {"x"}, {"t"}, "neg");
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  Result<Model> model = Load(proto);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(model->graph->nodes.size(), 2u);
}

}  // namespace
}  // namespace nxrt::ir
