// ep/ort_plugin/graph_projection_test.cpp: the graph a plugin sees (docs/plugin_host.md, "The
// graph a plugin sees"), read only through the host's OrtApi table, on ONNX models built here
// and loaded by nxrt's loader.
#include "ep/ort_plugin/graph_projection.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "ep/ort_plugin/api_table.h"
#include "ep/partitioner.h"
#include "ir/onnx_loader.h"
#include "ir/onnx_test_models.h"

namespace nxrt::ort_plugin {
namespace {

using ir::testing::AddGraphAttribute;
using ir::testing::AddIntAttribute;
using ir::testing::AddNode;
using ir::testing::FillFloatTensor;
using ir::testing::FillValueInfo;
using ir::testing::MakeModel;

const OrtApi& Api() { return HostApi(); }

// Expects success; otherwise fails with the status message.
void Ok(OrtStatus* status) {
  if (status == nullptr) return;
  ADD_FAILURE() << Api().GetErrorMessage(status);
  Api().ReleaseStatus(status);
}

// The error code of `status` (ORT_OK for null), releasing it.
OrtErrorCode Code(OrtStatus* status, std::string* message = nullptr) {
  if (status == nullptr) return ORT_OK;
  const OrtErrorCode code = Api().GetErrorCode(status);
  if (message != nullptr) *message = Api().GetErrorMessage(status);
  Api().ReleaseStatus(status);
  return code;
}

// A loaded model with its main view and projection.
struct Projected {
  ir::Model model;
  std::unique_ptr<ir::GraphView> view;
  std::unique_ptr<GraphProjection> projection;
};

std::unique_ptr<Projected> Project(ir::Model model) {
  auto p = std::make_unique<Projected>();
  p->model = std::move(model);
  Result<ir::GraphView> view = ir::GraphView::Create(p->model, *p->model.graph);
  EXPECT_TRUE(view.ok()) << view.status().ToString();
  p->view = std::make_unique<ir::GraphView>(std::move(view).value());
  Result<std::unique_ptr<GraphProjection>> projection = GraphProjection::Create(p->model, *p->view);
  EXPECT_TRUE(projection.ok()) << projection.status().ToString();
  p->projection = std::move(projection).value();
  return p;
}

std::unique_ptr<Projected> ProjectProto(const onnx::ModelProto& proto) {
  Result<ir::Model> model = ir::LoadModelFromBytes(ir::testing::Serialize(proto));
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return Project(std::move(model).value());
}

std::vector<const OrtNode*> Nodes(const OrtGraph* graph) {
  size_t n = 0;
  Ok(Api().Graph_GetNumNodes(graph, &n));
  std::vector<const OrtNode*> nodes(n);
  Ok(Api().Graph_GetNodes(graph, nodes.data(), n));
  return nodes;
}

std::string Str(OrtStatus* (*fn)(const OrtNode*, const char**) noexcept, const OrtNode* node) {
  const char* s = nullptr;
  Ok(fn(node, &s));
  return s != nullptr ? s : "<null>";
}

std::string NodeName(const OrtNode* node) { return Str(Api().Node_GetName, node); }

const OrtNode* NodeNamed(const OrtGraph* graph, const std::string& name) {
  for (const OrtNode* node : Nodes(graph)) {
    if (NodeName(node) == name) return node;
  }
  ADD_FAILURE() << "no node " << name;
  return nullptr;
}

std::vector<const OrtValueInfo*> List(OrtStatus* (*count)(const OrtGraph*, size_t*) noexcept,
                                      OrtStatus* (*fill)(const OrtGraph*, const OrtValueInfo**,
                                                         size_t) noexcept,
                                      const OrtGraph* graph) {
  size_t n = 0;
  Ok(count(graph, &n));
  std::vector<const OrtValueInfo*> out(n);
  Ok(fill(graph, out.data(), n));
  return out;
}
std::vector<const OrtValueInfo*> NodeList(OrtStatus* (*count)(const OrtNode*, size_t*) noexcept,
                                          OrtStatus* (*fill)(const OrtNode*, const OrtValueInfo**,
                                                             size_t) noexcept,
                                          const OrtNode* node) {
  size_t n = 0;
  Ok(count(node, &n));
  std::vector<const OrtValueInfo*> out(n);
  Ok(fill(node, out.data(), n));
  return out;
}

std::string Name(const OrtValueInfo* info) {
  const char* s = nullptr;
  Ok(Api().GetValueInfoName(info, &s));
  return s;
}
std::vector<std::string> Names(const std::vector<const OrtValueInfo*>& infos) {
  std::vector<std::string> out;
  for (const OrtValueInfo* info : infos) out.push_back(info != nullptr ? Name(info) : "<null>");
  return out;
}

// Sorted: Node_GetAttributes gives ORT 1.30's order (its hash map's), which
// tests/plugin_host/recording_ep_test.cpp compares with ORT's own.
std::vector<std::string> AttributeNames(const OrtNode* node) {
  size_t n = 0;
  Ok(Api().Node_GetNumAttributes(node, &n));
  std::vector<const OrtOpAttr*> attrs(n);
  Ok(Api().Node_GetAttributes(node, attrs.data(), n));
  std::vector<std::string> names;
  for (const OrtOpAttr* attr : attrs) {
    const char* name = nullptr;
    Ok(Api().OpAttr_GetName(attr, &name));
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

const OrtOpAttr* Attribute(const OrtNode* node, const char* name) {
  const OrtOpAttr* attr = nullptr;
  Ok(Api().Node_GetAttributeByName(node, name, &attr));
  return attr;
}

// x [N, 3] float; Add(x, x) -> a; Gemm(a, w) -> g with alpha set; Conv(x, w) -> c with
// kernel_shape; Split(x) -> s0, s1, s2 (axis 1); Mul(s2, s0) -> m; Mul(s1, s1) -> m2. The default
// domain at `opset`; w is an initializer; b is a graph input with an initializer (IR 8).
onnx::ModelProto OpsModel(int64_t opset = 17) {
  onnx::ModelProto model = MakeModel(opset);
  onnx::GraphProto* g = model.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {"N", 3});
  FillValueInfo(g->add_input(), "b", onnx::TensorProto::FLOAT, {3});
  FillFloatTensor(g->add_initializer(), "w", {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  FillFloatTensor(g->add_initializer(), "b", {3}, {0, 0, 0});
  AddNode(g, "Add", {"x", "x"}, {"a"}, "add");
  onnx::NodeProto* gemm = AddNode(g, "Gemm", {"a", "w", ""}, {"g"}, "gemm");
  onnx::AttributeProto* alpha = gemm->add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(onnx::AttributeProto::FLOAT);
  alpha->set_f(2.5f);
  onnx::NodeProto* conv = AddNode(g, "Conv", {"x", "w"}, {"c"}, "conv");
  onnx::AttributeProto* ks = conv->add_attribute();
  ks->set_name("kernel_shape");
  ks->set_type(onnx::AttributeProto::INTS);
  ks->add_ints(3);
  ks->add_ints(1);
  AddIntAttribute(AddNode(g, "Split", {"x"}, {"s0", "s1", "s2"}, "split"), "axis", 1);
  AddNode(g, "Mul", {"s2", "s0"}, {"m"}, "mul");
  AddNode(g, "Mul", {"s1", "s1"}, {"m2"}, "mul2");
  AddNode(g, "Add", {"g", "b"}, {"gb"}, "addb");
  for (const char* out : {"gb", "c", "m", "m2"}) FillValueInfo(g->add_output(), out);
  return model;
}

TEST(GraphApi, SinceVersionNamesAndOrder) {
  auto p = ProjectProto(OpsModel());
  const OrtGraph* graph = p->projection->graph();
  std::vector<std::string> names;
  for (const OrtNode* node : Nodes(graph)) names.push_back(NodeName(node));
  // ORT's order: from the leaves conv, mul, mul2, addb (last first), each node after its
  // producers, visited highest index first.
  EXPECT_EQ(names, (std::vector<std::string>{"add", "gemm", "addb", "split", "mul2", "mul", "conv"}));
  int since = 0;
  Ok(Api().Node_GetSinceVersion(NodeNamed(graph, "add"), &since));
  EXPECT_EQ(since, 14);  // Add at opset 17
  Ok(Api().Node_GetSinceVersion(NodeNamed(graph, "split"), &since));
  EXPECT_EQ(since, 13);
  EXPECT_EQ(Str(Api().Node_GetOperatorType, NodeNamed(graph, "gemm")), "Gemm");
  EXPECT_EQ(Str(Api().Node_GetDomain, NodeNamed(graph, "gemm")), "");
  size_t id = 0;
  Ok(Api().Node_GetId(NodeNamed(graph, "conv"), &id));
  EXPECT_EQ(id, 2u);
  const OrtGraph* owner = nullptr;
  Ok(Api().Node_GetGraph(NodeNamed(graph, "conv"), &owner));
  EXPECT_EQ(owner, graph);
  EXPECT_EQ(p->projection->FindNode(NodeNamed(graph, "conv")), 2);
  int not_a_node = 0;
  EXPECT_EQ(p->projection->FindNode(reinterpret_cast<const OrtNode*>(&not_a_node)), std::nullopt);

  const char* gname = nullptr;
  Ok(Api().Graph_GetName(graph, &gname));
  EXPECT_STREQ(gname, "main");
  int64_t ir_version = 0;
  Ok(Api().Graph_GetOnnxIRVersion(graph, &ir_version));
  EXPECT_EQ(ir_version, 8);
  // The model's import and the 9 other domains ORT 1.30 registers, sorted by domain.
  size_t nsets = 0;
  Ok(Api().Graph_GetNumOperatorSets(graph, &nsets));
  ASSERT_EQ(nsets, 10u);
  std::vector<const char*> domains(nsets);
  std::vector<int64_t> versions(nsets);
  Ok(Api().Graph_GetOperatorSets(graph, domains.data(), versions.data(), nsets));
  EXPECT_STREQ(domains[0], "");
  EXPECT_EQ(versions[0], 17);
  EXPECT_STREQ(domains[1], "ai.onnx.ml");
  EXPECT_EQ(versions[1], 5);
  EXPECT_STREQ(domains[8], "com.ms.internal.nhwc");
  EXPECT_EQ(versions[8], 17);
  const ORTCHAR_T* path = nullptr;
  Ok(Api().Graph_GetModelPath(graph, &path));
  EXPECT_STREQ(path, "");  // loaded from bytes
  const OrtNode* parent = reinterpret_cast<const OrtNode*>(1);
  Ok(Api().Graph_GetParentNode(graph, &parent));
  EXPECT_EQ(parent, nullptr);
  const char* ep = "x";
  Ok(Api().Node_GetEpName(NodeNamed(graph, "add"), &ep));
  EXPECT_STREQ(ep, "");  // ORT 1.30: "" until the node is assigned
  p->projection->SetNodeEpName(0, "MyEp");
  Ok(Api().Node_GetEpName(NodeNamed(graph, "add"), &ep));
  EXPECT_STREQ(ep, "MyEp");
}

// Graph_GetModelMetadata: the ModelProto's fields and metadata_props, read through ModelMetadata*.
TEST(GraphApi, ModelMetadata) {
  onnx::ModelProto model = OpsModel();
  model.set_producer_name("maker");
  model.set_doc_string("what it does");
  model.set_model_version(7);
  onnx::StringStringEntryProto* prop = model.add_metadata_props();
  prop->set_key("author");
  prop->set_value("nxrt");
  auto p = ProjectProto(model);
  OrtModelMetadata* metadata = nullptr;
  Ok(Api().Graph_GetModelMetadata(p->projection->graph(), &metadata));
  ASSERT_NE(metadata, nullptr);
  OrtAllocator* allocator = nullptr;
  Ok(Api().GetAllocatorWithDefaultOptions(&allocator));
  char* text = nullptr;
  Ok(Api().ModelMetadataGetProducerName(metadata, allocator, &text));
  EXPECT_STREQ(text, "maker");
  allocator->Free(allocator, text);
  Ok(Api().ModelMetadataGetDescription(metadata, allocator, &text));
  EXPECT_STREQ(text, "what it does");
  allocator->Free(allocator, text);
  Ok(Api().ModelMetadataGetGraphName(metadata, allocator, &text));
  EXPECT_STREQ(text, "main");
  allocator->Free(allocator, text);
  Ok(Api().ModelMetadataLookupCustomMetadataMap(metadata, allocator, "author", &text));
  EXPECT_STREQ(text, "nxrt");
  allocator->Free(allocator, text);
  int64_t version = 0;
  Ok(Api().ModelMetadataGetVersion(metadata, &version));
  EXPECT_EQ(version, 7);
  Api().ReleaseModelMetadata(metadata);
}

TEST(GraphApi, AttributesIncludeSchemaDefaults) {
  auto p = ProjectProto(OpsModel());
  const OrtGraph* graph = p->projection->graph();
  EXPECT_EQ(AttributeNames(NodeNamed(graph, "gemm")),
            (std::vector<std::string>{"alpha", "beta", "transA", "transB"}));
  EXPECT_EQ(AttributeNames(NodeNamed(graph, "conv")),
            (std::vector<std::string>{"auto_pad", "group", "kernel_shape"}));
  EXPECT_TRUE(AttributeNames(NodeNamed(graph, "add")).empty());

  float alpha = 0, beta = 0;
  size_t bytes = 0;
  Ok(Api().ReadOpAttr(Attribute(NodeNamed(graph, "gemm"), "alpha"), ORT_OP_ATTR_FLOAT, &alpha,
                      sizeof(alpha), &bytes));
  EXPECT_EQ(alpha, 2.5f);
  Ok(Api().ReadOpAttr(Attribute(NodeNamed(graph, "gemm"), "beta"), ORT_OP_ATTR_FLOAT, &beta,
                      sizeof(beta), &bytes));
  EXPECT_EQ(beta, 1.0f);
  int64_t trans_a = -1;
  Ok(Api().ReadOpAttr(Attribute(NodeNamed(graph, "gemm"), "transA"), ORT_OP_ATTR_INT, &trans_a,
                      sizeof(trans_a), &bytes));
  EXPECT_EQ(trans_a, 0);
  EXPECT_EQ(bytes, sizeof(int64_t));
  OrtOpAttrType type = ORT_OP_ATTR_UNDEFINED;
  Ok(Api().OpAttr_GetType(Attribute(NodeNamed(graph, "conv"), "auto_pad"), &type));
  EXPECT_EQ(type, ORT_OP_ATTR_STRING);

  // Declared by Conv's schema without a default: NULL and ok; unknown to the schema: NOT_FOUND.
  const OrtNode* conv = NodeNamed(graph, "conv");
  const OrtOpAttr* attr = reinterpret_cast<const OrtOpAttr*>(1);
  Ok(Api().Node_GetAttributeByName(conv, "dilations", &attr));
  EXPECT_EQ(attr, nullptr);
  attr = reinterpret_cast<const OrtOpAttr*>(1);
  EXPECT_EQ(Code(Api().Node_GetAttributeByName(conv, "no_such_attribute", &attr)), ORT_NOT_FOUND);
  EXPECT_EQ(attr, nullptr);
}

TEST(GraphApi, DefaultsOfVersionsAfterLibonnx) {
  onnx::ModelProto model = MakeModel(20);
  onnx::GraphProto* g = model.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {1, 1, 4, 4});
  FillValueInfo(g->add_input(), "grid", onnx::TensorProto::FLOAT, {1, 2, 2, 2});
  AddNode(g, "GridSample", {"x", "grid"}, {"y"}, "gs");
  FillValueInfo(g->add_output(), "y");
  auto p = ProjectProto(model);
  const OrtNode* gs = NodeNamed(p->projection->graph(), "gs");
  int since = 0;
  Ok(Api().Node_GetSinceVersion(gs, &since));
  EXPECT_EQ(since, 20);
  EXPECT_EQ(AttributeNames(gs),
            (std::vector<std::string>{"align_corners", "mode", "padding_mode"}));
  char mode[16] = {};
  size_t bytes = 0;
  Ok(Api().ReadOpAttr(Attribute(gs, "mode"), ORT_OP_ATTR_STRING, mode, sizeof(mode), &bytes));
  EXPECT_EQ(std::string(mode, bytes), "linear");
}

TEST(GraphApi, ReadOpAttrBufferProtocol) {
  onnx::ModelProto model = OpsModel();
  onnx::OperatorSetIdProto* import = model.add_opset_import();
  import->set_domain("com.test");
  import->set_version(1);
  onnx::GraphProto* g = model.mutable_graph();
  onnx::NodeProto* custom = AddNode(g, "Custom", {"x"}, {"z"}, "custom", "com.test");
  onnx::AttributeProto* strings = custom->add_attribute();
  strings->set_name("names");
  strings->set_type(onnx::AttributeProto::STRINGS);
  strings->add_strings("ab");
  strings->add_strings("c");
  FillValueInfo(g->add_output(), "z");
  auto p = ProjectProto(model);
  const OrtGraph* graph = p->projection->graph();

  // Size query: len 0 gives ORT_INVALID_ARGUMENT and the bytes needed.
  const OrtOpAttr* ks = Attribute(NodeNamed(graph, "conv"), "kernel_shape");
  size_t bytes = 0;
  EXPECT_EQ(Code(Api().ReadOpAttr(ks, ORT_OP_ATTR_INTS, nullptr, 0, &bytes)),
            ORT_INVALID_ARGUMENT);
  EXPECT_EQ(bytes, 2 * sizeof(int64_t));
  int64_t dims[2] = {};
  EXPECT_EQ(Code(Api().ReadOpAttr(ks, ORT_OP_ATTR_INTS, dims, sizeof(int64_t), &bytes)),
            ORT_INVALID_ARGUMENT);
  EXPECT_EQ(dims[0], 0);  // untouched when too small
  Ok(Api().ReadOpAttr(ks, ORT_OP_ATTR_INTS, dims, sizeof(dims), &bytes));
  EXPECT_EQ(bytes, sizeof(dims));
  EXPECT_EQ(dims[0], 3);
  EXPECT_EQ(dims[1], 1);
  // Wrong type.
  float f = 0;
  EXPECT_EQ(Code(Api().ReadOpAttr(ks, ORT_OP_ATTR_FLOAT, &f, sizeof(f), &bytes)),
            ORT_INVALID_ARGUMENT);
  // STRING: bytes without a terminator; STRINGS: each string with its terminator (ORT 1.30).
  const OrtOpAttr* auto_pad = Attribute(NodeNamed(graph, "conv"), "auto_pad");
  EXPECT_EQ(Code(Api().ReadOpAttr(auto_pad, ORT_OP_ATTR_STRING, nullptr, 0, &bytes)),
            ORT_INVALID_ARGUMENT);
  EXPECT_EQ(bytes, 6u);
  std::string text(bytes, '\0');
  Ok(Api().ReadOpAttr(auto_pad, ORT_OP_ATTR_STRING, text.data(), text.size(), &bytes));
  EXPECT_EQ(text, "NOTSET");
  const OrtOpAttr* names = Attribute(NodeNamed(graph, "custom"), "names");
  EXPECT_EQ(Code(Api().ReadOpAttr(names, ORT_OP_ATTR_STRINGS, nullptr, 0, &bytes)),
            ORT_INVALID_ARGUMENT);
  ASSERT_EQ(bytes, 5u);
  text.assign(bytes, 'x');
  Ok(Api().ReadOpAttr(names, ORT_OP_ATTR_STRINGS, text.data(), text.size(), &bytes));
  EXPECT_EQ(text, std::string("ab\0c\0", 5));
  // A custom op without a schema: a missing attribute is NULL and ok; since_version -1.
  const OrtOpAttr* missing = nullptr;
  Ok(Api().Node_GetAttributeByName(NodeNamed(graph, "custom"), "other", &missing));
  EXPECT_EQ(missing, nullptr);
  int since = 0;
  Ok(Api().Node_GetSinceVersion(NodeNamed(graph, "custom"), &since));
  EXPECT_EQ(since, -1);
}

TEST(GraphApi, TensorAttributeAsOrtValue) {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto* g = model.mutable_graph();
  onnx::AttributeProto* value = AddNode(g, "Constant", {}, {"k"}, "const")->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  FillFloatTensor(value->mutable_t(), "", {2}, {4, 5});
  FillValueInfo(g->add_output(), "k");
  auto p = ProjectProto(model);
  const OrtNode* node = NodeNamed(p->projection->graph(), "const");
  const OrtOpAttr* attr = Attribute(node, "value");
  OrtOpAttrType type = ORT_OP_ATTR_UNDEFINED;
  Ok(Api().OpAttr_GetType(attr, &type));
  EXPECT_EQ(type, ORT_OP_ATTR_TENSOR);
  OrtValue* tensor = nullptr;
  Ok(Api().OpAttr_GetTensorAttributeAsOrtValue(attr, &tensor));
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(tensor->shape, (std::vector<int64_t>{2}));
  ASSERT_EQ(tensor->bytes, 2 * sizeof(float));
  EXPECT_EQ(static_cast<const float*>(tensor->data)[1], 5.0f);
  Api().ReleaseValue(tensor);
  size_t bytes = 0;
  EXPECT_EQ(Code(Api().ReadOpAttr(attr, ORT_OP_ATTR_TENSOR, nullptr, 0, &bytes)),
            ORT_INVALID_ARGUMENT);
}

TEST(GraphApi, ProducersConsumersAndOmittedInputs) {
  auto p = ProjectProto(OpsModel());
  const OrtGraph* graph = p->projection->graph();
  const OrtNode* split = NodeNamed(graph, "split");
  std::vector<const OrtValueInfo*> outs =
      NodeList(Api().Node_GetNumOutputs, Api().Node_GetOutputs, split);
  ASSERT_EQ(outs.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const OrtNode* producer = nullptr;
    size_t index = 99;
    Ok(Api().ValueInfo_GetValueProducer(outs[i], &producer, &index));
    EXPECT_EQ(producer, split);
    EXPECT_EQ(index, i);
  }
  // s1 is read twice by mul2.
  size_t n = 0;
  Ok(Api().ValueInfo_GetValueNumConsumers(outs[1], &n));
  ASSERT_EQ(n, 2u);
  std::vector<const OrtNode*> nodes(n);
  std::vector<int64_t> indices(n);
  Ok(Api().ValueInfo_GetValueConsumers(outs[1], nodes.data(), indices.data(), n));
  EXPECT_EQ(nodes[0], NodeNamed(graph, "mul2"));
  EXPECT_EQ(nodes[1], NodeNamed(graph, "mul2"));
  EXPECT_EQ(indices, (std::vector<int64_t>{0, 1}));
  // Too small an array is an error.
  EXPECT_EQ(Code(Api().ValueInfo_GetValueConsumers(outs[1], nodes.data(), indices.data(), 1)),
            ORT_INVALID_ARGUMENT);
  // x: consumers sorted by node, input index.
  const OrtValueInfo* x = List(Api().Graph_GetNumInputs, Api().Graph_GetInputs, graph)[0];
  Ok(Api().ValueInfo_GetValueNumConsumers(x, &n));
  EXPECT_EQ(n, 4u);  // add twice, conv, split
  const OrtNode* producer = reinterpret_cast<const OrtNode*>(1);
  Ok(Api().ValueInfo_GetValueProducer(x, &producer, nullptr));
  EXPECT_EQ(producer, nullptr);
  // Gemm's omitted C is a null entry.
  EXPECT_EQ(Names(NodeList(Api().Node_GetNumInputs, Api().Node_GetInputs,
                           NodeNamed(graph, "gemm"))),
            (std::vector<std::string>{"a", "w", "<null>"}));
}

TEST(GraphApi, TypesShapesAndUnknownTypes) {
  auto p = ProjectProto(OpsModel());
  const OrtGraph* graph = p->projection->graph();
  const OrtValueInfo* x = List(Api().Graph_GetNumInputs, Api().Graph_GetInputs, graph)[0];
  const OrtTypeInfo* type = nullptr;
  Ok(Api().GetValueInfoTypeInfo(x, &type));
  ASSERT_NE(type, nullptr);
  EXPECT_EQ(type->type, ONNX_TYPE_TENSOR);
  ASSERT_NE(type->tensor, nullptr);
  EXPECT_EQ(type->tensor->element_type, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  EXPECT_EQ(type->tensor->dims, (std::vector<int64_t>{-1, 3}));
  ASSERT_EQ(type->tensor->symbolic_dim_ptrs.size(), 2u);
  EXPECT_STREQ(type->tensor->symbolic_dim_ptrs[0], "N");
  EXPECT_STREQ(type->tensor->symbolic_dim_ptrs[1], "");
  // "a" has no value_info: its type is unknown, not a float scalar.
  const OrtValueInfo* a =
      NodeList(Api().Node_GetNumOutputs, Api().Node_GetOutputs, NodeNamed(graph, "add"))[0];
  Ok(Api().GetValueInfoTypeInfo(a, &type));
  EXPECT_EQ(type->type, ONNX_TYPE_UNKNOWN);
  EXPECT_EQ(type->tensor, nullptr);
}

TEST(GraphApi, InitializersAreViewsOfTheModelBytes) {
  auto p = ProjectProto(OpsModel());
  const OrtGraph* graph = p->projection->graph();
  std::vector<const OrtValueInfo*> inits =
      List(Api().Graph_GetNumInitializers, Api().Graph_GetInitializers, graph);
  EXPECT_EQ(Names(inits), (std::vector<std::string>{"w", "b"}));
  const ir::Initializer& w_ir = p->model.graph->initializers[0];
  const OrtValue* w = nullptr;
  Ok(Api().ValueInfo_GetInitializerValue(inits[0], &w));
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->data, w_ir.tensor.raw_data());  // no copy
  EXPECT_EQ(w->bytes, 9 * sizeof(float));
  EXPECT_EQ(std::memcmp(w->data, w_ir.tensor.raw_data(), w->bytes), 0);
  EXPECT_EQ(w->shape, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(w->element_type, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);

  bool flag = false;
  Ok(Api().ValueInfo_IsConstantInitializer(inits[0], &flag));
  EXPECT_TRUE(flag);
  Ok(Api().ValueInfo_IsRequiredGraphInput(inits[0], &flag));
  EXPECT_FALSE(flag);
  // b: a graph input with an initializer (IR 8): optional input, not constant.
  Ok(Api().ValueInfo_IsConstantInitializer(inits[1], &flag));
  EXPECT_FALSE(flag);
  Ok(Api().ValueInfo_IsOptionalGraphInput(inits[1], &flag));
  EXPECT_TRUE(flag);
  Ok(Api().ValueInfo_IsRequiredGraphInput(inits[1], &flag));
  EXPECT_FALSE(flag);
  std::vector<const OrtValueInfo*> inputs = List(Api().Graph_GetNumInputs, Api().Graph_GetInputs, graph);
  EXPECT_EQ(Names(inputs), (std::vector<std::string>{"x", "b"}));
  Ok(Api().ValueInfo_IsRequiredGraphInput(inputs[0], &flag));
  EXPECT_TRUE(flag);
  Ok(Api().ValueInfo_IsGraphOutput(inputs[0], &flag));
  EXPECT_FALSE(flag);
  std::vector<const OrtValueInfo*> outputs =
      List(Api().Graph_GetNumOutputs, Api().Graph_GetOutputs, graph);
  Ok(Api().ValueInfo_IsGraphOutput(outputs[0], &flag));
  EXPECT_TRUE(flag);
  // Not an initializer: NULL, no error; not external.
  Ok(Api().ValueInfo_GetInitializerValue(inputs[0], &w));
  EXPECT_EQ(w, nullptr);
  OrtExternalInitializerInfo* ext = reinterpret_cast<OrtExternalInitializerInfo*>(1);
  Ok(Api().ValueInfo_GetExternalInitializerInfo(inits[0], &ext));
  EXPECT_EQ(ext, nullptr);
}

TEST(GraphApi, ExternalInitializerInfo) {
  ir::testing::TempDir dir("ort_graph_external");
  std::vector<float> weights = {1, 2, 3, 4, 5, 6};
  std::vector<char> file(64 + weights.size() * sizeof(float), 0);
  std::memcpy(file.data() + 64, weights.data(), weights.size() * sizeof(float));
  ir::testing::WriteFile(dir.path() / "weights.bin", file.data(), file.size());
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto* g = model.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  onnx::TensorProto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(2);
  w->add_dims(3);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  for (auto [key, value] : {std::pair<const char*, const char*>{"location", "weights.bin"},
                            {"offset", "64"},
                            {"length", "24"}}) {
    onnx::StringStringEntryProto* entry = w->add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  }
  AddNode(g, "Add", {"x", "w"}, {"y"}, "add");
  FillValueInfo(g->add_output(), "y");
  ir::testing::WriteModel(dir.path() / "model.onnx", model);
  Result<ir::Model> loaded = ir::LoadModelFromFile(dir.path() / "model.onnx");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  auto p = Project(std::move(loaded).value());
  const OrtGraph* graph = p->projection->graph();
  const ORTCHAR_T* path = nullptr;
  Ok(Api().Graph_GetModelPath(graph, &path));
  EXPECT_EQ(std::string(path), (dir.path() / "model.onnx").string());

  const OrtValueInfo* w_info =
      List(Api().Graph_GetNumInitializers, Api().Graph_GetInitializers, graph)[0];
  OrtExternalInitializerInfo* info = nullptr;
  Ok(Api().ValueInfo_GetExternalInitializerInfo(w_info, &info));
  ASSERT_NE(info, nullptr);
  EXPECT_STREQ(Api().ExternalInitializerInfo_GetFilePath(info), "weights.bin");
  EXPECT_EQ(Api().ExternalInitializerInfo_GetFileOffset(info), 64);
  EXPECT_EQ(Api().ExternalInitializerInfo_GetByteSize(info), 24u);
  Api().ReleaseExternalInitializerInfo(info);
  Api().ReleaseExternalInitializerInfo(nullptr);
  const OrtValue* value = nullptr;
  Ok(Api().ValueInfo_GetInitializerValue(w_info, &value));
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->data, p->model.graph->initializers[0].tensor.raw_data());  // the mapping
  EXPECT_EQ(std::memcmp(value->data, weights.data(), 24), 0);
}

// x (float[2]), w initializer, cond (bool); If(cond): then = Add(x, w) (outer-scope x, w),
// else = Identity(x); Loop(M, cond, x): body adds w each iteration.
onnx::ModelProto ControlFlowModel() {
  onnx::ModelProto model = MakeModel(17);
  onnx::GraphProto* g = model.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {2});
  FillValueInfo(g->add_input(), "cond", onnx::TensorProto::BOOL, {});
  FillValueInfo(g->add_input(), "M", onnx::TensorProto::INT64, {});
  FillFloatTensor(g->add_initializer(), "w", {2}, {1, 2});
  onnx::NodeProto* if_node = AddNode(g, "If", {"cond"}, {"r"}, "if");
  onnx::GraphProto* then_g = AddGraphAttribute(if_node, "then_branch");
  AddNode(then_g, "Add", {"x", "w"}, {"t"}, "then_add");
  FillValueInfo(then_g->add_output(), "t");
  onnx::GraphProto* else_g = AddGraphAttribute(if_node, "else_branch");
  AddNode(else_g, "Identity", {"x"}, {"e"}, "else_id");
  FillValueInfo(else_g->add_output(), "e");
  onnx::NodeProto* loop = AddNode(g, "Loop", {"M", "cond", "x"}, {"l"}, "loop");
  onnx::GraphProto* body = AddGraphAttribute(loop, "body");
  FillValueInfo(body->add_input(), "i", onnx::TensorProto::INT64, {});
  FillValueInfo(body->add_input(), "c_in", onnx::TensorProto::BOOL, {});
  FillValueInfo(body->add_input(), "v_in", onnx::TensorProto::FLOAT, {2});
  AddNode(body, "Identity", {"c_in"}, {"c_out"}, "body_cond");
  AddNode(body, "Add", {"v_in", "w"}, {"v_out"}, "body_add");
  FillValueInfo(body->add_output(), "c_out", onnx::TensorProto::BOOL, {});
  FillValueInfo(body->add_output(), "v_out", onnx::TensorProto::FLOAT, {2});
  FillValueInfo(g->add_output(), "r");
  FillValueInfo(g->add_output(), "l");
  return model;
}

TEST(GraphApi, SubgraphsWithParentNodeAndOuterScope) {
  auto p = ProjectProto(ControlFlowModel());
  const OrtGraph* graph = p->projection->graph();
  const OrtNode* if_node = NodeNamed(graph, "if");
  size_t n = 0;
  Ok(Api().Node_GetNumSubgraphs(if_node, &n));
  ASSERT_EQ(n, 2u);
  const OrtGraph* subgraphs[2] = {};
  const char* attr_names[2] = {};
  Ok(Api().Node_GetSubgraphs(if_node, subgraphs, 2, attr_names));
  EXPECT_STREQ(attr_names[0], "else_branch");
  EXPECT_STREQ(attr_names[1], "then_branch");
  const OrtGraph* then_g = subgraphs[1];
  const OrtNode* parent = nullptr;
  Ok(Api().Graph_GetParentNode(then_g, &parent));
  EXPECT_EQ(parent, if_node);
  EXPECT_EQ(p->projection->FindSubgraph(p->model.graph->nodes[0].FindAttribute("then_branch")->g.get())
                ->graph(),
            then_g);

  // Implicit inputs of If: x and w, in value order; consumers of x in the main graph report
  // them with input index -1.
  EXPECT_EQ(Names(NodeList(Api().Node_GetNumImplicitInputs, Api().Node_GetImplicitInputs, if_node)),
            (std::vector<std::string>{"x", "w"}));
  const OrtValueInfo* x = List(Api().Graph_GetNumInputs, Api().Graph_GetInputs, graph)[0];
  Ok(Api().ValueInfo_GetValueNumConsumers(x, &n));
  std::vector<const OrtNode*> nodes(n);
  std::vector<int64_t> indices(n);
  Ok(Api().ValueInfo_GetValueConsumers(x, nodes.data(), indices.data(), n));
  ASSERT_EQ(n, 2u);
  EXPECT_EQ(nodes[0], if_node);
  EXPECT_EQ(indices[0], -1);
  EXPECT_EQ(nodes[1], NodeNamed(graph, "loop"));
  EXPECT_EQ(indices[1], 2);

  // Inside then_branch: x and w come from the outer scope; w's value is the main graph's.
  const OrtNode* then_add = Nodes(then_g)[0];
  std::vector<const OrtValueInfo*> ins =
      NodeList(Api().Node_GetNumInputs, Api().Node_GetInputs, then_add);
  bool outer = false;
  Ok(Api().ValueInfo_IsFromOuterScope(ins[1], &outer));
  EXPECT_TRUE(outer);
  const OrtValue* w_inner = nullptr;
  const OrtValue* w_outer = nullptr;
  Ok(Api().ValueInfo_GetInitializerValue(ins[1], &w_inner));
  Ok(Api().ValueInfo_GetInitializerValue(
      List(Api().Graph_GetNumInitializers, Api().Graph_GetInitializers, graph)[0], &w_outer));
  EXPECT_NE(w_inner, nullptr);
  EXPECT_EQ(w_inner, w_outer);
  bool constant = false;
  Ok(Api().ValueInfo_IsConstantInitializer(ins[1], &constant));
  EXPECT_TRUE(constant);
  const OrtValue* x_inner = reinterpret_cast<const OrtValue*>(1);
  Ok(Api().ValueInfo_GetInitializerValue(ins[0], &x_inner));
  EXPECT_EQ(x_inner, nullptr);

  // Loop body: its inputs are not outer scope; its graph is visible with the loop as parent.
  const OrtNode* loop = NodeNamed(graph, "loop");
  const OrtGraph* body = nullptr;
  Ok(Api().Node_GetSubgraphs(loop, &body, 1, nullptr));
  Ok(Api().Graph_GetParentNode(body, &parent));
  EXPECT_EQ(parent, loop);
  std::vector<const OrtValueInfo*> body_inputs = List(Api().Graph_GetNumInputs, Api().Graph_GetInputs, body);
  EXPECT_EQ(Names(body_inputs), (std::vector<std::string>{"i", "c_in", "v_in"}));
  Ok(Api().ValueInfo_IsFromOuterScope(body_inputs[2], &outer));
  EXPECT_FALSE(outer);
  Ok(Api().Node_GetNumSubgraphs(NodeNamed(graph, "if"), &n));
  Ok(Api().Node_GetNumSubgraphs(Nodes(body)[0], &n));
  EXPECT_EQ(n, 0u);
}

TEST(GraphApi, ProjectClaimWithAndWithoutConstantInitializers) {
  auto p = ProjectProto(OpsModel());
  // add, gemm: reads x (twice) and w; produces g (read by addb).
  std::vector<int32_t> claim_of(p->model.graph->nodes.size(), -1);
  claim_of[0] = claim_of[1] = 0;
  std::vector<ep::Claim> claims(1);
  claims[0].nodes = {0, 1};
  ep::ComputeBoundaries(*p->view, claim_of, claims);
  ASSERT_EQ(claims[0].inputs.size(), 2u);  // x, w

  for (bool drop : {false, true}) {
    SCOPED_TRACE(drop ? "drop" : "keep");
    Result<ClaimProjection> claim = p->projection->ProjectClaim(claims[0], "fused_0", "MyEp", drop);
    ASSERT_TRUE(claim.ok()) << claim.status().ToString();
    const OrtGraph* graph = claim->graph;
    std::vector<std::string> names;
    for (const OrtNode* node : Nodes(graph)) names.push_back(NodeName(node));
    EXPECT_EQ(names, (std::vector<std::string>{"add", "gemm"}));
    EXPECT_EQ(Names(List(Api().Graph_GetNumInputs, Api().Graph_GetInputs, graph)),
              (drop ? std::vector<std::string>{"x"} : std::vector<std::string>{"x", "w"}));
    EXPECT_EQ(Names(List(Api().Graph_GetNumOutputs, Api().Graph_GetOutputs, graph)),
              std::vector<std::string>{"g"});
    std::vector<const OrtValueInfo*> inits =
        List(Api().Graph_GetNumInitializers, Api().Graph_GetInitializers, graph);
    ASSERT_EQ(Names(inits), std::vector<std::string>{"w"});
    const OrtValue* w = nullptr;
    Ok(Api().ValueInfo_GetInitializerValue(inits[0], &w));
    EXPECT_EQ(w->data, p->model.graph->initializers[0].tensor.raw_data());
    EXPECT_EQ(claim->claim_input_of_fused_input,
              (drop ? std::vector<int32_t>{0} : std::vector<int32_t>{0, 1}));
    // The fused node.
    const OrtNode* fused = claim->fused_node;
    EXPECT_EQ(NodeName(fused), "fused_0");
    EXPECT_EQ(Str(Api().Node_GetOperatorType, fused), "fused_0");
    EXPECT_EQ(Str(Api().Node_GetEpName, fused), "MyEp");
    EXPECT_EQ(Names(NodeList(Api().Node_GetNumInputs, Api().Node_GetInputs, fused)),
              (drop ? std::vector<std::string>{"x"} : std::vector<std::string>{"x", "w"}));
    // Inside the claim graph: g's consumer (addb) is outside, a's producer and consumer inside.
    const OrtNode* gemm = Nodes(graph)[1];
    EXPECT_EQ(Str(Api().Node_GetEpName, gemm), "MyEp");
    const OrtValueInfo* a = NodeList(Api().Node_GetNumInputs, Api().Node_GetInputs, gemm)[0];
    const OrtNode* producer = nullptr;
    Ok(Api().ValueInfo_GetValueProducer(a, &producer, nullptr));
    EXPECT_EQ(producer, Nodes(graph)[0]);
    const OrtValueInfo* g_out = List(Api().Graph_GetNumOutputs, Api().Graph_GetOutputs, graph)[0];
    size_t n = 9;
    Ok(Api().ValueInfo_GetValueNumConsumers(g_out, &n));
    EXPECT_EQ(n, 0u);
    bool flag = false;
    Ok(Api().ValueInfo_IsGraphOutput(g_out, &flag));
    EXPECT_TRUE(flag);
    // Its attributes are the original's, defaults included.
    EXPECT_EQ(AttributeNames(gemm), (std::vector<std::string>{"alpha", "beta", "transA", "transB"}));
  }
}

TEST(GraphApi, GraphViewIsPluginOwned) {
  auto p = ProjectProto(OpsModel());
  const OrtGraph* graph = p->projection->graph();
  const OrtNode* picked[] = {NodeNamed(graph, "mul"), NodeNamed(graph, "split")};
  OrtGraph* view = nullptr;
  Ok(Api().Graph_GetGraphView(graph, picked, 2, &view));
  ASSERT_NE(view, nullptr);
  std::vector<std::string> names;
  for (const OrtNode* node : Nodes(view)) names.push_back(NodeName(node));
  EXPECT_EQ(names, (std::vector<std::string>{"split", "mul"}));  // source order
  EXPECT_EQ(Names(List(Api().Graph_GetNumInputs, Api().Graph_GetInputs, view)),
            (std::vector<std::string>{"x"}));
  // Outputs in the given node order: m (graph output) from mul, then s1 from split.
  EXPECT_EQ(Names(List(Api().Graph_GetNumOutputs, Api().Graph_GetOutputs, view)),
            (std::vector<std::string>{"m", "s1"}));
  Api().ReleaseGraph(view);
  // Host graphs, nodes and value infos are never freed; NULL is fine.
  Api().ReleaseGraph(const_cast<OrtGraph*>(graph));
  Api().ReleaseGraph(nullptr);
  Api().ReleaseNode(nullptr);
  Api().ReleaseValueInfo(nullptr);
  Api().ReleaseModel(nullptr);
  EXPECT_EQ(Nodes(graph).size(), 7u);
  // A node of another graph, or one listed twice, is rejected.
  const OrtNode* twice[] = {picked[0], picked[0]};
  EXPECT_EQ(Code(Api().Graph_GetGraphView(graph, twice, 2, &view)), ORT_INVALID_ARGUMENT);
  int stranger = 0;
  const OrtNode* unknown[] = {reinterpret_cast<const OrtNode*>(&stranger)};
  EXPECT_EQ(Code(Api().Graph_GetGraphView(graph, unknown, 1, &view)), ORT_INVALID_ARGUMENT);
}

TEST(GraphApi, TwoProjectionsAreIdentical) {
  auto describe = [](const OrtGraph* graph) {
    std::string text;
    for (const OrtNode* node : Nodes(graph)) {
      text += NodeName(node) + "(";
      for (const std::string& attr : AttributeNames(node)) text += attr + ",";
      text += ")";
    }
    for (const std::string& name :
         Names(List(Api().Graph_GetNumInitializers, Api().Graph_GetInitializers, graph))) {
      text += name + ";";
    }
    return text;
  };
  auto first = ProjectProto(OpsModel());
  auto second = ProjectProto(OpsModel());
  EXPECT_EQ(describe(first->projection->graph()), describe(second->projection->graph()));
  EXPECT_FALSE(describe(first->projection->graph()).empty());
}

TEST(GraphApi, NullArgumentsNameFunctionAndArgument) {
  std::string message;
  const char* name = nullptr;
  EXPECT_EQ(Code(Api().Graph_GetName(nullptr, &name), &message), ORT_INVALID_ARGUMENT);
  EXPECT_NE(message.find("Graph_GetName"), std::string::npos) << message;
  EXPECT_NE(message.find("graph"), std::string::npos) << message;
  auto p = ProjectProto(OpsModel());
  const OrtNode* add = NodeNamed(p->projection->graph(), "add");
  EXPECT_EQ(Code(Api().Node_GetName(add, nullptr), &message), ORT_INVALID_ARGUMENT);
  EXPECT_EQ(Code(Api().ReadOpAttr(nullptr, ORT_OP_ATTR_INT, nullptr, 0, nullptr), &message),
            ORT_INVALID_ARGUMENT);
  EXPECT_NE(message.find("ReadOpAttr"), std::string::npos) << message;
  EXPECT_EQ(Code(Api().Node_GetAttributeByName(add, nullptr, nullptr)), ORT_INVALID_ARGUMENT);
  EXPECT_EQ(Api().ExternalInitializerInfo_GetByteSize(nullptr), 0u);
}

}  // namespace
}  // namespace nxrt::ort_plugin
