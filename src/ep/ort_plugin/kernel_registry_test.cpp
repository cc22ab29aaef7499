// ep/ort_plugin/kernel_registry_test.cpp: the kernel-registry functions of the host tables
// (OrtEpApi kernel defs and registries, EpGraphSupportInfo_LookUpKernel, operator schemas, the
// control-flow helpers; OrtApi::KernelInfo_*), called through the tables on nodes of a model
// built here, with ORT's matching rules as the expected values (kernel_registry.h).
#include "ep/ort_plugin/kernel_registry.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "ep/ort_plugin/api_table.h"
#include "ir/onnx_loader.h"
#include "ir/onnx_test_models.h"

namespace nxrt::ort_plugin {
namespace {

const OrtApi& Api() { return HostApi(); }
const OrtEpApi& Ep() { return HostEpApi(); }

// The error code of `status` (ORT_OK for null), releasing it; its message into `message`.
OrtErrorCode Code(OrtStatus* status, std::string* message = nullptr) {
  if (status == nullptr) return ORT_OK;
  const OrtErrorCode code = Api().GetErrorCode(status);
  if (message != nullptr) *message = Api().GetErrorMessage(status);
  Api().ReleaseStatus(status);
  return code;
}

// x[2,3] float, d[2,3] double → Add(x, x) "add"; Mul(d, d) "mul_d"; Squeeze(x, axes=[0]) at
// opset `opset`; Gemm(x, w, alpha=2.5) "gemm" with the constant w[3,3]; If(c) "if".
struct Fixture {
  ir::Model model;
  std::unique_ptr<ir::GraphView> view;
  std::unique_ptr<GraphProjection> projection;
  const OrtNode* Node(const std::string& name) const {
    for (const OrtNode* node : projection->graph()->nodes) {
      if (node->name == name) return node;
    }
    ADD_FAILURE() << "no node " << name;
    return nullptr;
  }
};

std::unique_ptr<Fixture> MakeFixture(int64_t opset = 17) {
  onnx::ModelProto proto = ir::testing::MakeModel(opset);
  onnx::GraphProto* g = proto.mutable_graph();
  ir::testing::FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  ir::testing::FillValueInfo(g->add_input(), "d", onnx::TensorProto::DOUBLE, {2, 3});
  ir::testing::FillValueInfo(g->add_input(), "c", onnx::TensorProto::BOOL, {});
  ir::testing::FillFloatTensor(g->add_initializer(), "w", {3, 3},
                               {1, 0, 0, 0, 1, 0, 0, 0, 1});
  ir::testing::AddNode(g, "Add", {"x", "x"}, {"a"}, "add");
  ir::testing::AddNode(g, "Mul", {"d", "d"}, {"m"}, "mul_d");
  onnx::NodeProto* gemm = ir::testing::AddNode(g, "Gemm", {"x", "w"}, {"y"}, "gemm");
  onnx::AttributeProto* alpha = gemm->add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(onnx::AttributeProto::FLOAT);
  alpha->set_f(2.5f);
  onnx::NodeProto* if_node = ir::testing::AddNode(g, "If", {"c"}, {"i"}, "if");
  for (const char* branch : {"then_branch", "else_branch"}) {
    onnx::GraphProto* body = ir::testing::AddGraphAttribute(if_node, branch);
    ir::testing::AddNode(body, "Relu", {"x"}, {std::string(branch) + "_out"});
    ir::testing::FillValueInfo(body->add_output(), std::string(branch) + "_out",
                               onnx::TensorProto::FLOAT, {2, 3});
  }
  for (const char* out : {"a", "y", "i"}) {
    ir::testing::FillValueInfo(g->add_output(), out, onnx::TensorProto::FLOAT, {2, 3});
  }
  ir::testing::FillValueInfo(g->add_output(), "m", onnx::TensorProto::DOUBLE, {2, 3});
  auto f = std::make_unique<Fixture>();
  Result<ir::Model> model = ir::LoadModelFromBytes(ir::testing::Serialize(proto));
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  f->model = std::move(model).value();
  f->view = std::make_unique<ir::GraphView>(ir::GraphView::Create(f->model, *f->model.graph).value());
  f->projection = GraphProjection::Create(f->model, *f->view).value();
  return f;
}

const OrtDataType* Type(ONNXTensorElementDataType t) {
  const OrtDataType* type = nullptr;
  EXPECT_EQ(Code(Ep().GetTensorDataType(t, &type)), ORT_OK);
  return type;
}

// A def of `op` for EP "ep" over [start, end], constraint `name` = `types`.
OrtKernelDef* Def(const char* op, int start, int end, const char* name,
                  std::vector<const OrtDataType*> types) {
  OrtKernelDefBuilder* b = nullptr;
  EXPECT_EQ(Code(Ep().CreateKernelDefBuilder(&b)), ORT_OK);
  EXPECT_EQ(Code(Ep().KernelDefBuilder_SetOperatorType(b, op)), ORT_OK);
  EXPECT_EQ(Code(Ep().KernelDefBuilder_SetDomain(b, "")), ORT_OK);
  EXPECT_EQ(Code(Ep().KernelDefBuilder_SetSinceVersion(b, start, end)), ORT_OK);
  EXPECT_EQ(Code(Ep().KernelDefBuilder_SetExecutionProvider(b, "ep")), ORT_OK);
  if (name != nullptr) {
    EXPECT_EQ(Code(Ep().KernelDefBuilder_AddTypeConstraint(b, name, types.data(), types.size())),
              ORT_OK);
  }
  OrtKernelDef* def = nullptr;
  EXPECT_EQ(Code(Ep().KernelDefBuilder_Build(b, &def)), ORT_OK);
  Ep().ReleaseKernelDefBuilder(b);
  return def;
}

OrtStatus* ORT_API_CALL NoKernel(void*, const OrtKernelInfo*, OrtKernelImpl** out) noexcept {
  *out = nullptr;
  return nullptr;
}

// Adds `def` (released after) to `registry`; the error code.
OrtErrorCode Add(OrtKernelRegistry* registry, OrtKernelDef* def, std::string* message = nullptr) {
  const OrtErrorCode code = Code(Ep().KernelRegistry_AddKernel(registry, def, NoKernel, nullptr),
                                 message);
  Ep().ReleaseKernelDef(def);
  return code;
}

TEST(KernelRegistryApi, DefsReadBackWhatTheBuilderSet) {
  OrtKernelDefBuilder* b = nullptr;
  ASSERT_EQ(Code(Ep().CreateKernelDefBuilder(&b)), ORT_OK);
  OrtKernelDef* def = nullptr;
  std::string message;
  EXPECT_EQ(Code(Ep().KernelDefBuilder_Build(b, &def), &message), ORT_INVALID_ARGUMENT);
  EXPECT_NE(message.find("SetOperatorType"), std::string::npos) << message;
  EXPECT_EQ(Code(Ep().KernelDefBuilder_SetOperatorType(b, "Loop")), ORT_OK);
  EXPECT_EQ(Code(Ep().KernelDefBuilder_SetDomain(b, "")), ORT_OK);
  EXPECT_EQ(Code(Ep().KernelDefBuilder_SetSinceVersion(b, 5, 3), &message), ORT_INVALID_ARGUMENT);
  EXPECT_EQ(Code(Ep().KernelDefBuilder_SetSinceVersion(b, 21, 22)), ORT_OK);
  EXPECT_EQ(Code(Ep().KernelDefBuilder_SetExecutionProvider(b, "MyEp")), ORT_OK);
  EXPECT_EQ(Code(Ep().KernelDefBuilder_SetInputMemType(b, 1, OrtMemTypeCPUInput)), ORT_OK);
  EXPECT_EQ(Code(Ep().KernelDefBuilder_SetOutputMemType(b, 0, OrtMemTypeCPUOutput)), ORT_OK);
  const int in[] = {2}, out[] = {0};
  EXPECT_EQ(Code(Ep().KernelDefBuilder_AddInputOutputAliases(b, in, out, 1)), ORT_OK);
  EXPECT_EQ(Code(Ep().KernelDefBuilder_AddInputOutputMutableAliases(b, in, out, 0)),
            ORT_INVALID_ARGUMENT);
  const OrtDataType* bad[] = {reinterpret_cast<const OrtDataType*>(&message)};
  EXPECT_EQ(Code(Ep().KernelDefBuilder_AddTypeConstraint(b, "V", bad, 1)), ORT_INVALID_ARGUMENT);
  ASSERT_EQ(Code(Ep().KernelDefBuilder_Build(b, &def)), ORT_OK);
  Ep().ReleaseKernelDefBuilder(b);
  EXPECT_STREQ(Ep().KernelDef_GetOperatorType(def), "Loop");
  EXPECT_STREQ(Ep().KernelDef_GetDomain(def), "");
  EXPECT_STREQ(Ep().KernelDef_GetExecutionProvider(def), "MyEp");
  int start = 0, end = 0;
  EXPECT_EQ(Code(Ep().KernelDef_GetSinceVersion(def, &start, &end)), ORT_OK);
  EXPECT_EQ(start, 21);
  EXPECT_EQ(end, 22);
  OrtMemType mem = OrtMemTypeDefault;
  EXPECT_EQ(Code(Ep().KernelDef_GetInputMemType(def, 1, &mem)), ORT_OK);
  EXPECT_EQ(mem, OrtMemTypeCPUInput);
  EXPECT_EQ(Code(Ep().KernelDef_GetInputMemType(def, 0, &mem)), ORT_OK);
  EXPECT_EQ(mem, OrtMemTypeDefault);
  EXPECT_EQ(Code(Ep().KernelDef_GetOutputMemType(def, 0, &mem)), ORT_OK);
  EXPECT_EQ(mem, OrtMemTypeCPUOutput);
  EXPECT_EQ(def->aliases, (std::vector<std::pair<int, int>>{{2, 0}}));
  Ep().ReleaseKernelDef(def);
  Ep().ReleaseKernelDef(nullptr);
}

TEST(KernelRegistryApi, TensorDataTypes) {
  const OrtDataType* f = Type(ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "tensor(float)");
  EXPECT_EQ(f, Type(ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT));  // one object per type
  EXPECT_EQ(Type(ONNX_TENSOR_ELEMENT_DATA_TYPE_INT4)->name, "tensor(int4)");
  const OrtDataType* none = nullptr;
  EXPECT_EQ(Code(Ep().GetTensorDataType(ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED, &none)),
            ORT_NOT_IMPLEMENTED);  // as ONNX Runtime 1.30 ("tensor type 0 is not supported")
}

// Overlapping versions with a common type conflict; other types or versions do not.
TEST(KernelRegistryApi, ConflictingKernelsAreRefused) {
  OrtKernelRegistry* registry = nullptr;
  ASSERT_EQ(Code(Ep().CreateKernelRegistry(&registry)), ORT_OK);
  const OrtDataType* f = Type(ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  const OrtDataType* d = Type(ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE);
  EXPECT_EQ(Add(registry, Def("Add", 7, 12, "T", {f})), ORT_OK);
  EXPECT_EQ(Add(registry, Def("Add", 13, 13, "T", {f})), ORT_OK);
  EXPECT_EQ(Add(registry, Def("Add", 7, 12, "T", {d})), ORT_OK);
  std::string message;
  EXPECT_EQ(Add(registry, Def("Add", 12, 13, "T", {f, d}), &message), ORT_FAIL);
  EXPECT_NE(message.find("conflicts with"), std::string::npos) << message;
  EXPECT_EQ(registry->entries.size(), 3u);
  Ep().ReleaseKernelRegistry(registry);
}

// ORT's version rule: the def starts at the node's since_version, or covers it with a bounded end.
TEST(KernelRegistryApi, LookupFollowsOrtsVersionAndTypeRules) {
  auto f = MakeFixture(17);  // Add-14, Mul-14
  const OrtDataType* fl = Type(ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  const OrtDataType* db = Type(ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE);
  struct Case {
    int start, end;
    bool match;
  };
  for (const Case& c : {Case{14, 14, true}, Case{13, 14, true}, Case{7, INT_MAX, false},
                        Case{14, INT_MAX, true}, Case{13, 13, false}, Case{15, 20, false}}) {
    OrtKernelRegistry registry;
    ASSERT_EQ(Add(&registry, Def("Add", c.start, c.end, "T", {fl})), ORT_OK);
    Result<KernelLookup> found = FindKernel(registry, "ep", *f->Node("add"));
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    EXPECT_EQ(found->entry != nullptr, c.match) << c.start << ".." << c.end << ": " << found->reason;
    if (!c.match) {
      EXPECT_NE(found->reason.find("since_version 14"), std::string::npos) << found->reason;
    }
  }
  OrtKernelRegistry registry;
  ASSERT_EQ(Add(&registry, Def("Mul", 14, 14, "T", {fl})), ORT_OK);
  Result<KernelLookup> mul = FindKernel(registry, "ep", *f->Node("mul_d"));
  ASSERT_TRUE(mul.ok());
  EXPECT_EQ(mul->entry, nullptr);
  EXPECT_NE(mul->reason.find("input 0 'd' is tensor(double)"), std::string::npos) << mul->reason;
  ASSERT_EQ(Add(&registry, Def("Mul", 13, 14, "T", {db})), ORT_OK);
  mul = FindKernel(registry, "ep", *f->Node("mul_d"));
  ASSERT_TRUE(mul.ok());
  ASSERT_NE(mul->entry, nullptr);
  EXPECT_EQ(mul->entry->def.since_start, 13);
  // Another EP's kernel never matches; a constraint the schema lacks is an error.
  EXPECT_EQ(FindKernel(registry, "other_ep", *f->Node("mul_d"))->entry, nullptr);
  OrtKernelRegistry bad;
  ASSERT_EQ(Add(&bad, Def("Add", 14, 14, "X", {fl})), ORT_OK);
  Result<KernelLookup> error = FindKernel(bad, "ep", *f->Node("add"));
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.status().message().find("constrains type 'X'"), std::string::npos);

  // Through the table: LookUpKernel on the graph's support info.
  OrtEpGraphSupportInfo support;
  support.graph = f->projection->graph();
  support.registry = &registry;
  support.ep_name = "ep";
  const OrtKernelDef* def = nullptr;
  EXPECT_EQ(Code(Ep().EpGraphSupportInfo_LookUpKernel(&support, f->Node("mul_d"), &def)), ORT_OK);
  EXPECT_EQ(def, &registry.entries[1].def);
  EXPECT_EQ(Code(Ep().EpGraphSupportInfo_LookUpKernel(&support, f->Node("add"), &def)), ORT_OK);
  EXPECT_EQ(def, nullptr);
  int not_a_node = 0;
  EXPECT_EQ(Code(Ep().EpGraphSupportInfo_LookUpKernel(
                &support, reinterpret_cast<const OrtNode*>(&not_a_node), &def)),
            ORT_INVALID_ARGUMENT);
}

TEST(KernelRegistryApi, KernelInfoOfANode) {
  auto f = MakeFixture();
  OrtKeyValuePairs config;
  config.Set("session.x", "1");
  OrtKernelInfo info;
  info.node = f->Node("gemm");
  info.config = &config;
  size_t n = 0;
  EXPECT_EQ(Code(Api().KernelInfo_GetInputCount(&info, &n)), ORT_OK);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(Code(Api().KernelInfo_GetOutputCount(&info, &n)), ORT_OK);
  EXPECT_EQ(n, 1u);
  char name[8];
  size_t size = 0;
  EXPECT_EQ(Code(Api().KernelInfo_GetNodeName(&info, nullptr, &size)), ORT_OK);
  EXPECT_EQ(size, 5u);  // "gemm" and its NUL
  size = 3;
  EXPECT_EQ(Code(Api().KernelInfo_GetNodeName(&info, name, &size)), ORT_INVALID_ARGUMENT);
  EXPECT_EQ(size, 5u);
  size = sizeof(name);
  EXPECT_EQ(Code(Api().KernelInfo_GetInputName(&info, 1, name, &size)), ORT_OK);
  EXPECT_STREQ(name, "w");
  size = sizeof(name);
  EXPECT_EQ(Code(Api().KernelInfo_GetOperatorType(&info, name, &size)), ORT_OK);
  EXPECT_STREQ(name, "Gemm");
  int since = 0;
  EXPECT_EQ(Code(Api().KernelInfo_GetOperatorSinceVersion(&info, &since)), ORT_OK);
  EXPECT_EQ(since, 13);
  float alpha = 0, beta = 0;
  EXPECT_EQ(Code(Api().KernelInfoGetAttribute_float(&info, "alpha", &alpha)), ORT_OK);
  EXPECT_EQ(alpha, 2.5f);
  EXPECT_EQ(Code(Api().KernelInfoGetAttribute_float(&info, "beta", &beta)), ORT_OK);
  EXPECT_EQ(beta, 1.0f);  // the schema's default, as ORT adds it
  int64_t trans = -1;
  EXPECT_EQ(Code(Api().KernelInfoGetAttribute_int64(&info, "transB", &trans)), ORT_OK);
  EXPECT_EQ(trans, 0);
  EXPECT_EQ(Code(Api().KernelInfoGetAttribute_int64(&info, "alpha", &trans)), ORT_INVALID_ARGUMENT);
  EXPECT_EQ(Code(Api().KernelInfoGetAttribute_int64(&info, "nothing", &trans)), ORT_FAIL);
  OrtTypeInfo* type = nullptr;
  EXPECT_EQ(Code(Api().KernelInfo_GetInputTypeInfo(&info, 0, &type)), ORT_OK);
  ONNXType onnx_type = ONNX_TYPE_UNKNOWN;
  EXPECT_EQ(Code(Api().GetOnnxTypeFromTypeInfo(type, &onnx_type)), ORT_OK);
  EXPECT_EQ(onnx_type, ONNX_TYPE_TENSOR);
  Api().ReleaseTypeInfo(type);
  int is_constant = -1;
  const OrtValue* value = nullptr;
  EXPECT_EQ(Code(Api().KernelInfoGetConstantInput_tensor(&info, 1, &is_constant, &value)), ORT_OK);
  EXPECT_EQ(is_constant, 1);
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(static_cast<const float*>(value->data)[4], 1.0f);
  EXPECT_EQ(Code(Api().KernelInfoGetConstantInput_tensor(&info, 0, &is_constant, &value)), ORT_OK);
  EXPECT_EQ(is_constant, 0);
  EXPECT_EQ(value, nullptr);
  OrtKeyValuePairs* entries = nullptr;
  EXPECT_EQ(Code(Api().KernelInfo_GetConfigEntries(&info, &entries)), ORT_OK);
  EXPECT_STREQ(Api().GetKeyValue(entries, "session.x"), "1");
  Api().ReleaseKeyValuePairs(entries);
  OrtKernelInfo* copy = nullptr;
  EXPECT_EQ(Code(Api().CopyKernelInfo(&info, &copy)), ORT_OK);
  size = sizeof(name);
  EXPECT_EQ(Code(Api().KernelInfo_GetNodeName(copy, name, &size)), ORT_OK);
  EXPECT_STREQ(name, "gemm");
  Api().ReleaseKernelInfo(copy);
  OrtAllocator* allocator = nullptr;
  EXPECT_EQ(Code(Api().KernelInfoGetAllocator(&info, OrtMemTypeDefault, &allocator)), ORT_OK);
  EXPECT_EQ(allocator, static_cast<OrtAllocator*>(&DefaultCpuAllocator()));
}

// The host's control-flow kernels: only for their op, owning the helper, never run directly.
TEST(KernelRegistryApi, ControlFlowKernels) {
  auto f = MakeFixture();
  OrtKernelInfo if_info;
  if_info.node = f->Node("if");
  OrtKernelInfo add_info;
  add_info.node = f->Node("add");
  OrtKernelImpl* kernel = nullptr;
  std::string message;
  EXPECT_EQ(Code(Ep().CreateIfKernel(&add_info, &kernel), &message), ORT_INVALID_ARGUMENT);
  EXPECT_NE(message.find("node 'add' is Add, not If"), std::string::npos) << message;
  ASSERT_EQ(Code(Ep().CreateIfKernel(&if_info, &kernel)), ORT_OK);
  HostControlFlowKernel* host = AsHostControlFlowKernel(kernel);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->kind, HostControlFlowKernel::Kind::kIf);
  EXPECT_EQ(Code(kernel->Compute(kernel, nullptr)), ORT_FAIL);
  Ep().ReleaseKernelImpl(kernel);
  EXPECT_EQ(AsHostControlFlowKernel(kernel), nullptr);  // released: no longer live

  struct Helper : OrtLoopKernelHelper {
    int* released;
  };
  int released = 0;
  Helper helper{};
  helper.ort_version_supported = ORT_API_VERSION;
  helper.released = &released;
  helper.Release = [](OrtLoopKernelHelper* h) noexcept { ++*static_cast<Helper*>(h)->released; };
  EXPECT_EQ(Code(Ep().CreateLoopKernel(&if_info, &helper, &kernel)), ORT_INVALID_ARGUMENT);
  helper.ConcatOutput = [](OrtLoopKernelHelper*, void*, const OrtValue* const*, size_t, void*,
                           size_t) noexcept -> OrtStatus* { return nullptr; };
  EXPECT_EQ(Code(Ep().CreateLoopKernel(&if_info, &helper, &kernel), &message),
            ORT_INVALID_ARGUMENT);  // an If node
  EXPECT_EQ(released, 0);           // not taken on failure
}

TEST(KernelRegistryApi, OperatorSchemas) {
  OrtOpSchema* schema = nullptr;
  ASSERT_EQ(Code(Ep().GetOpSchema("Gemm", 17, "", &schema)), ORT_OK);
  ASSERT_NE(schema, nullptr);
  int since = 0;
  EXPECT_EQ(Code(Ep().OpSchema_GetSinceVersion(schema, &since)), ORT_OK);
  EXPECT_EQ(since, 13);
  size_t n = 0;
  EXPECT_EQ(Code(Ep().OpSchema_GetNumInputs(schema, &n)), ORT_OK);
  EXPECT_EQ(n, 3u);
  const char* name = nullptr;
  EXPECT_EQ(Code(Ep().OpSchema_GetInputName(schema, 2, &name)), ORT_OK);
  EXPECT_STREQ(name, "C");
  const OrtOpSchemaTypeConstraint* t = nullptr;
  EXPECT_EQ(Code(Ep().OpSchema_GetInputTypeConstraint(schema, 0, &t)), ORT_OK);
  ASSERT_NE(t, nullptr);
  const OrtOpSchemaTypeConstraint* t_out = nullptr;
  EXPECT_EQ(Code(Ep().OpSchema_GetOutputTypeConstraint(schema, 0, &t_out)), ORT_OK);
  EXPECT_EQ(t, t_out);  // shared constraint: the same object
  EXPECT_EQ(Code(Ep().OpSchemaTypeConstraint_GetTypeParamName(t, &name)), ORT_OK);
  EXPECT_STREQ(name, "T");
  const char* const* types = nullptr;
  EXPECT_EQ(Code(Ep().OpSchemaTypeConstraint_GetAllowedTypes(t, &types, &n)), ORT_OK);
  bool has_float = false;
  for (size_t i = 0; i < n; ++i) has_float = has_float || std::strcmp(types[i], "tensor(float)") == 0;
  EXPECT_TRUE(has_float);
  const size_t* indices = nullptr;
  EXPECT_EQ(Code(Ep().OpSchemaTypeConstraint_GetInputIndices(t, &indices, &n)), ORT_OK);
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(Code(Ep().OpSchemaTypeConstraint_GetOutputIndices(t, &indices, &n)), ORT_OK);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(Code(Ep().OpSchema_GetTypeConstraintCount(schema, &n)), ORT_OK);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(Code(Ep().OpSchema_GetInputName(schema, 3, &name)), ORT_INVALID_ARGUMENT);
  Ep().ReleaseOpSchema(schema);
  schema = reinterpret_cast<OrtOpSchema*>(1);
  EXPECT_EQ(Code(Ep().GetOpSchema("NoSuchOp", 17, "", &schema)), ORT_OK);
  EXPECT_EQ(schema, nullptr);
}

TEST(KernelRegistryApi, SharedPrePackedWeightCacheTakesTheBuffers) {
  HostAllocator& cpu = DefaultCpuAllocator();
  const int64_t before = cpu.in_use.load();
  {
    OrtSharedPrePackedWeightCache cache;
    cache.allocator = &cpu;
    void* buffers[] = {cpu.Alloc(&cpu, 64), cpu.Alloc(&cpu, 32)};
    size_t sizes[] = {64, 32};
    EXPECT_EQ(Code(Ep().SharedPrePackedWeightCache_StoreWeightData(&cache, buffers, sizes, 2)),
              ORT_OK);
    EXPECT_EQ(cache.sizes, (std::vector<size_t>{64, 32}));
    EXPECT_EQ(Code(Ep().SharedPrePackedWeightCache_StoreWeightData(&cache, buffers, sizes, 0)),
              ORT_INVALID_ARGUMENT);
  }
  EXPECT_EQ(cpu.in_use.load(), before);  // the cache freed what it owned
}

}  // namespace
}  // namespace nxrt::ort_plugin
