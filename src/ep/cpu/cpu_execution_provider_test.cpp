// ep/cpu/cpu_execution_provider_test.cpp: the CPU EP's answers at the EP API level: identity,
// options, the refusal reasons of Supports (each message checked), kernel creation errors, and
// the kernel table checked against the ONNX schema versions.
//
// Layer: tests of nxrt_ep_cpu. Kernel results are tested through the session, per family.
#include "ep/cpu/cpu_execution_provider.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "ir/op_schema.h"

namespace nxrt::cpu {
namespace {

ValueInfo TensorValue(std::string name, DataType dtype) {
  ValueInfo value;
  value.name = std::move(name);
  value.kind = ValueKind::kTensor;
  value.dtype = dtype;
  return value;
}

// A default-domain node with tensor inputs and outputs of the given dtypes.
NodeInfo Node(std::string op_type, int64_t opset, std::vector<DataType> inputs,
              std::vector<DataType> outputs, std::vector<AttributeValue> attributes = {}) {
  NodeInfo::Data data;
  data.id = 3;
  data.name = "n3";
  data.op_type = op_type;
  data.opset = opset;
  data.since_version = ir::SinceVersion("", op_type, opset);
  const char* input_names[] = {"a", "b", "c", "d", "e"};
  for (size_t i = 0; i < inputs.size(); ++i) {
    data.inputs.push_back(TensorValue(input_names[i], inputs[i]));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    data.outputs.push_back(TensorValue("y" + std::to_string(i), outputs[i]));
  }
  data.attributes = std::move(attributes);
  return NodeInfo(std::move(data));
}

AttributeValue IntAttribute(std::string name, int64_t value) {
  AttributeValue attribute;
  attribute.name = std::move(name);
  attribute.type = AttributeType::kInt;
  attribute.i = value;
  return attribute;
}

TEST(CpuExecutionProviderTest, IsTheHostCpuEp) {
  CpuExecutionProvider ep;
  EXPECT_EQ(ep.type_name(), "cpu");
  EXPECT_TRUE(ep.device().is_host());
  EXPECT_EQ(ep.device().ToString(), "cpu:0");
  EXPECT_TRUE(ep.Initialize(EpConfig{}).ok());
}

TEST(CpuExecutionProviderTest, RejectsUnknownOptions) {
  CpuExecutionProvider ep;
  Status status = ep.Initialize(EpConfig{{"threads", "4"}});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "unknown option 'threads' (known: none)");
}

TEST(CpuExecutionProviderTest, SupportsAddAtEveryOpset) {
  CpuExecutionProvider ep;
  for (int64_t opset = 1; opset <= 21; ++opset) {
    KernelMatch match = ep.Supports(Node("Add", opset, {DataType::kFloat, DataType::kFloat},
                                         {DataType::kFloat}));
    EXPECT_TRUE(match.supported()) << "opset " << opset << ": " << match.reason();
  }
}

TEST(CpuExecutionProviderTest, ReasonForAnUnknownOp) {
  CpuExecutionProvider ep;
  KernelMatch match = ep.Supports(Node("FooBar", 17, {DataType::kFloat}, {DataType::kFloat}));
  ASSERT_FALSE(match.supported());
  EXPECT_EQ(match.reason(), "no kernel for op 'FooBar'");
}

TEST(CpuExecutionProviderTest, ReasonForAnOpsetOutOfRange) {
  CpuExecutionProvider ep;
  KernelMatch match = ep.Supports(Node("Mod", 9, {DataType::kInt32, DataType::kInt32},
                                       {DataType::kInt32}));
  ASSERT_FALSE(match.supported());
  EXPECT_EQ(match.reason(),
            "no kernel for Mod at opset 9; kernels cover opsets [10,12], [13,latest] "
            "(convert the model to a covered opset, e.g. with onnx.version_converter)");
}

TEST(CpuExecutionProviderTest, ReasonForAnUnsupportedDtype) {
  CpuExecutionProvider ep;
  KernelMatch match = ep.Supports(Node("Add", 13, {DataType::kInt8, DataType::kInt8},
                                       {DataType::kInt8}));
  ASSERT_FALSE(match.supported());
  EXPECT_EQ(match.reason(),
            "Add (opset 13): input 0 'a' has type int8; T supports uint32, uint64, int32, int64, "
            "float16, float, double, bfloat16");
  // The same dtype is fine from Add-14 on.
  EXPECT_TRUE(ep.Supports(Node("Add", 14, {DataType::kInt8, DataType::kInt8},
                               {DataType::kInt8}))
                  .supported());
}

TEST(CpuExecutionProviderTest, ReasonForMismatchedDtypes) {
  CpuExecutionProvider ep;
  KernelMatch match = ep.Supports(Node("Mul", 17, {DataType::kFloat, DataType::kDouble},
                                       {DataType::kFloat}));
  ASSERT_FALSE(match.supported());
  EXPECT_EQ(match.reason(),
            "Mul (opset 17): input 0 'a' has type float but input 1 'b' has type double; both "
            "are type T and must agree");
}

TEST(CpuExecutionProviderTest, ReasonForACastTargetNxrtLacks) {
  CpuExecutionProvider ep;
  // 23 is float4e2m1 (ONNX 1.18), which nxrt's DataType does not have.
  KernelMatch match = ep.Supports(Node("Cast", 23, {DataType::kFloat}, {DataType::kUndefined},
                                       {IntAttribute("to", 23)}));
  ASSERT_FALSE(match.supported());
  EXPECT_EQ(match.reason(),
            "Cast (opset 23): attribute 'to' is 23 (an element type nxrt lacks); the CPU EP "
            "casts to numeric types, float8, int4, bool and string only");
}

TEST(CpuExecutionProviderTest, ReasonForIdentityOnASequence) {
  CpuExecutionProvider ep;
  NodeInfo::Data data;
  data.name = "id";
  data.op_type = "Identity";
  data.opset = 17;
  ValueInfo sequence = TensorValue("seq", DataType::kFloat);
  sequence.kind = ValueKind::kSequence;
  data.inputs.push_back(sequence);
  data.outputs.push_back(sequence);
  KernelMatch match = ep.Supports(NodeInfo(std::move(data)));
  ASSERT_FALSE(match.supported());
  EXPECT_EQ(match.reason(),
            "Identity (opset 17): input 0 'seq' is a sequence; the CPU EP's Identity takes "
            "tensors only");
}

TEST(CpuExecutionProviderTest, CreateKernelNamesTheBadAttribute) {
  CpuExecutionProvider ep;
  Result<std::unique_ptr<Kernel>> kernel =
      ep.CreateKernel(Node("Mod", 17, {DataType::kInt32, DataType::kInt32}, {DataType::kInt32},
                           {IntAttribute("fmod", 2)}));
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidModel);
  EXPECT_EQ(kernel.status().message(),
            "node 'n3' (Mod, opset 17): attribute 'fmod' is 2, expected 0 or 1");
}

TEST(CpuExecutionProviderTest, CreateKernelRefusesWhatSupportsRefuses) {
  CpuExecutionProvider ep;
  Result<std::unique_ptr<Kernel>> kernel =
      ep.CreateKernel(Node("FooBar", 17, {DataType::kFloat}, {DataType::kFloat}));
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(kernel.status().message(), "node 'n3' (FooBar, opset 17): no kernel for op 'FooBar'");
}

// Every entry starts at a version of its op's ONNX schema, so a node gets the kernel written for
// the schema in force at its opset. nxrt's own fused ops (domain com.nxrt, version 1) and ONNX
// Runtime's contrib ops (com.microsoft, version 1) have no ONNX schema.
TEST(CpuExecutionProviderTest, TableRangesStartAtSchemaVersions) {
  CpuExecutionProvider ep;
  ASSERT_TRUE(ep.Initialize(EpConfig{}).ok());
  ASSERT_GT(ep.registry().size(), 0u);
  for (const ep::KernelDef* def : ep.registry().Entries()) {
    if (def->domain == "com.nxrt" || def->domain == "com.microsoft" ||
        def->op_type == "SimplifiedLayerNormalization") {  // ORT's schema in the ONNX domain
      EXPECT_EQ(def->since_version, 1) << def->Description();
      continue;
    }
    EXPECT_TRUE(ir::IsKnownOp(def->domain, def->op_type)) << def->Description();
    EXPECT_EQ(ir::SinceVersion(def->domain, def->op_type, def->since_version), def->since_version)
        << def->Description() << " does not start at a schema version";
  }
}

// The ops the elementwise, reduction, normalisation and shape families promise, at opset 17.
TEST(CpuExecutionProviderTest, TableHasTheElementwiseReductionNormalizationAndShapeOps) {
  CpuExecutionProvider ep;
  std::set<std::string> ops;
  for (const ep::KernelDef* def : ep.registry().Entries()) {
    if (def->until_version >= 17 && def->since_version <= 17) ops.insert(def->op_type);
  }
  for (const char* op :
       {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Sum", "Mean", "Equal", "Less",
        "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor", "BitShift", "PRelu",
        "Where", "Abs", "Neg", "Sqrt", "Exp", "Log", "Erf", "Tanh", "Sigmoid", "Relu",
        "LeakyRelu", "HardSigmoid", "HardSwish", "Clip", "Not", "Cast", "CastLike", "Identity",
        "Dropout", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ArgMax", "ArgMin",
        "Softmax", "LogSoftmax", "Hardmax", "LayerNormalization", "BatchNormalization",
        "InstanceNormalization", "LpNormalization", "MeanVarianceNormalization", "CumSum",
        "Shape", "Size", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "ConstantOfShape",
        "Constant", "Range", "EyeLike", "NonZero"}) {
    EXPECT_TRUE(ops.count(op)) << op << " has no kernel at opset 17";
  }
}

}  // namespace
}  // namespace nxrt::cpu
