// ep/op_registry_test.cpp: kernel lookup by opset and dtype, and the reasons it gives.
#include "ep/op_registry.h"

#include <gtest/gtest.h>

#include <cstring>

#include "ep/kernel_host.h"

namespace nxrt::ep {
namespace {

// A kernel that records which registry entry made it.
class TaggedKernel : public Kernel {
 public:
  explicit TaggedKernel(std::string tag) : tag_(std::move(tag)) {}
  Status Prepare(PrepareContext&) override { return Status::Ok(); }
  Status Compute(ComputeContext&) override { return Status::Ok(); }
  const std::string& tag() const { return tag_; }

 private:
  std::string tag_;
};

KernelFactory Tag(std::string tag) {
  return [tag](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<TaggedKernel>(tag));
  };
}

const std::vector<DataType> kFloats = {DataType::kFloat, DataType::kDouble};
const std::vector<DataType> kNumbers = {DataType::kFloat, DataType::kDouble, DataType::kInt32,
                                        DataType::kInt64};

ValueInfo TensorValue(std::string name, DataType dtype) {
  ValueInfo v;
  v.name = std::move(name);
  v.kind = ValueKind::kTensor;
  v.dtype = dtype;
  return v;
}

NodeInfo Node(std::string op, int64_t opset, std::vector<DataType> in, DataType out,
              std::string domain = "") {
  NodeInfo::Data d;
  d.id = 3;
  d.name = op + "_3";
  d.op_type = std::move(op);
  d.domain = std::move(domain);
  d.opset = opset;
  for (size_t i = 0; i < in.size(); ++i) {
    d.inputs.push_back(TensorValue(std::string(1, static_cast<char>('a' + i)), in[i]));
  }
  d.outputs.push_back(TensorValue("y", out));
  return NodeInfo(std::move(d));
}

// Add as the CPU EP would register it: three opset ranges.
OpRegistry AddRegistry() {
  OpRegistry r;
  EXPECT_TRUE(r.Register({"", "Add", 7, 12, {{"T", {0, 1}, {0}, kFloats}}, Tag("add7")}).ok());
  EXPECT_TRUE(r.Register({"", "Add", 13, 13, {{"T", {0, 1}, {0}, kNumbers}}, Tag("add13")}).ok());
  EXPECT_TRUE(
      r.Register({"", "Add", 14, kLatestOpset, {{"T", {0, 1}, {0}, kNumbers}}, Tag("add14")}).ok());
  return r;
}

std::string TagOf(const OpRegistry& r, const NodeInfo& node) {
  Result<std::unique_ptr<Kernel>> k = r.CreateKernel(node);
  if (!k.ok()) return "error: " + k.status().message();
  return static_cast<TaggedKernel&>(**k).tag();
}

TEST(OpRegistryTest, PicksTheHighestSinceVersionAtOrBelowTheOpset) {
  OpRegistry r = AddRegistry();
  EXPECT_EQ(TagOf(r, Node("Add", 7, {DataType::kFloat, DataType::kFloat}, DataType::kFloat)),
            "add7");
  EXPECT_EQ(TagOf(r, Node("Add", 12, {DataType::kFloat, DataType::kFloat}, DataType::kFloat)),
            "add7");
  EXPECT_EQ(TagOf(r, Node("Add", 13, {DataType::kInt64, DataType::kInt64}, DataType::kInt64)),
            "add13");
  EXPECT_EQ(TagOf(r, Node("Add", 14, {DataType::kFloat, DataType::kFloat}, DataType::kFloat)),
            "add14");
  EXPECT_EQ(TagOf(r, Node("Add", 21, {DataType::kFloat, DataType::kFloat}, DataType::kFloat)),
            "add14");
  EXPECT_EQ(r.size(), 3u);
}

TEST(OpRegistryTest, ExplainsAMissingOp) {
  OpRegistry r = AddRegistry();
  Result<const KernelDef*> def = r.Find(Node("Mul", 14, {DataType::kFloat}, DataType::kFloat));
  ASSERT_FALSE(def.ok());
  EXPECT_EQ(def.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(def.status().message(), "no kernel for op 'Mul'");
  def = r.Find(Node("Add", 1, {DataType::kFloat}, DataType::kFloat, "com.example"));
  EXPECT_EQ(def.status().message(), "no kernel for op 'Add' (domain 'com.example')");
}

TEST(OpRegistryTest, ExplainsAnOpsetOutsideEveryRange) {
  OpRegistry r = AddRegistry();
  KernelMatch m =
      r.Supports(Node("Add", 6, {DataType::kFloat, DataType::kFloat}, DataType::kFloat));
  ASSERT_FALSE(m.supported());
  EXPECT_EQ(m.reason(),
            "no kernel for Add at opset 6; kernels cover opsets [7,12], [13,13], [14,latest] "
            "(convert the model to a covered opset, e.g. with onnx.version_converter)");
}

TEST(OpRegistryTest, ExplainsAnUnsupportedDtypeWithTheSupportedList) {
  OpRegistry r = AddRegistry();
  KernelMatch m =
      r.Supports(Node("Add", 14, {DataType::kFloat16, DataType::kFloat16}, DataType::kFloat16));
  ASSERT_FALSE(m.supported());
  EXPECT_EQ(m.reason(),
            "Add (opset 14): input 0 'a' has type float16; T supports float, double, int32, "
            "int64");
  // At opset 12 only the float kernel applies, so the list is shorter.
  m = r.Supports(Node("Add", 12, {DataType::kInt32, DataType::kInt32}, DataType::kInt32));
  EXPECT_EQ(m.reason(), "Add (opset 12): input 0 'a' has type int32; T supports float, double");
}

TEST(OpRegistryTest, ExplainsInputsThatDisagreeOnOneTypeVariable) {
  OpRegistry r = AddRegistry();
  KernelMatch m =
      r.Supports(Node("Add", 14, {DataType::kFloat, DataType::kDouble}, DataType::kFloat));
  ASSERT_FALSE(m.supported());
  EXPECT_EQ(m.reason(),
            "Add (opset 14): input 0 'a' has type float but input 1 'b' has type double; both "
            "are type T and must agree");
}

TEST(OpRegistryTest, UnknownDtypesAreLeftToPrepare) {
  OpRegistry r = AddRegistry();
  EXPECT_TRUE(
      r.Supports(Node("Add", 14, {DataType::kUndefined, DataType::kFloat}, DataType::kUndefined))
          .supported());
}

// Y = X (input 0), for running a kernel through a host.
class CopyFirstKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& ctx) override {
    return ctx.SetOutput(0, ctx.input_dtype(0), Shape(ctx.input_shape(0).begin(),
                                                      ctx.input_shape(0).end()));
  }
  Status Compute(ComputeContext& ctx) override {
    std::memcpy(ctx.output(0)->mutable_raw_data(), ctx.input(0)->raw_data(),
                ctx.input(0)->byte_size());
    return Status::Ok();
  }
};

// An input whose type the model does not give when the entry is found (level 0 loads without
// type inference): the kernel made checks the dtypes the inputs have at run time against the
// entry's constraint before its own Prepare, so it never reads a double buffer as float.
TEST(OpRegistryTest, UntypedInputsAreCheckedAgainstTheConstraintAtPrepare) {
  OpRegistry r;
  ASSERT_TRUE(r.Register({"", "Add", 14, kLatestOpset, {{"T", {0, 1}, {0}, kNumbers}},
                          [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
                            return std::unique_ptr<Kernel>(std::make_unique<CopyFirstKernel>());
                          }})
                  .ok());
  const NodeInfo node =
      Node("Add", 14, {DataType::kUndefined, DataType::kFloat}, DataType::kUndefined);
  Result<std::unique_ptr<Kernel>> kernel = r.CreateKernel(node);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  KernelHost host(std::move(kernel).value(), "Add_3");
  const Tensor d = Tensor::FromVector<double>({2}, {1.5, 2.5}).value();
  const Tensor f = Tensor::FromVector<float>({2}, {1.5f, 2.5f}).value();
  const Tensor b = Tensor::FromVector<bool>({2}, {true, false}).value();
  Result<std::vector<Tensor>> mixed = host.Run(std::vector<Tensor>{d, f});
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(mixed.status().message().find(
                "node 'Add_3' (Add, opset 14): input 0 has type double but input 1 has type "
                "float; both are type T and must agree"),
            std::string::npos)
      << mixed.status().message();
  Result<std::vector<Tensor>> refused = host.Run(std::vector<Tensor>{b, b});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("input 0 has type bool, which T does not allow"),
            std::string::npos)
      << refused.status().message();
  Result<std::vector<Tensor>> same = host.Run(std::vector<Tensor>{f, f});
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ((*same)[0].span<float>()[1], 2.5f);
}

TEST(OpRegistryTest, ChecksOutputConstraintsAndVariadicInputs) {
  OpRegistry r;
  ASSERT_TRUE(r.Register({"",
                          "Cast",
                          13,
                          kLatestOpset,
                          {{"T1", {0}, {}, kNumbers}, {"T2", {}, {0}, {DataType::kFloat}}},
                          Tag("cast")})
                  .ok());
  EXPECT_TRUE(r.Supports(Node("Cast", 13, {DataType::kInt64}, DataType::kFloat)).supported());
  EXPECT_EQ(r.Supports(Node("Cast", 13, {DataType::kInt64}, DataType::kInt8)).reason(),
            "Cast (opset 13): output 0 'y' has type int8; T2 supports float");

  ASSERT_TRUE(
      r.Register({"", "Sum", 13, kLatestOpset, {{"T", {}, {0}, kFloats, 0}}, Tag("sum")}).ok());
  EXPECT_TRUE(r.Supports(Node("Sum", 13, {DataType::kFloat, DataType::kFloat, DataType::kFloat},
                              DataType::kFloat))
                  .supported());
  EXPECT_EQ(r.Supports(Node("Sum", 13, {DataType::kFloat, DataType::kFloat, DataType::kInt32},
                            DataType::kFloat))
                .reason(),
            "Sum (opset 13): input 2 'c' has type int32; T supports float, double");
}

TEST(OpRegistryTest, DisjointDtypesMayShareARangeAndTheFirstFitWins) {
  OpRegistry r;
  ASSERT_TRUE(
      r.Register({"", "Relu", 14, kLatestOpset, {{"T", {0}, {0}, kFloats}}, Tag("float")}).ok());
  ASSERT_TRUE(r.Register({"",
                          "Relu",
                          14,
                          kLatestOpset,
                          {{"T", {0}, {0}, {DataType::kInt8, DataType::kInt32}}},
                          Tag("int")})
                  .ok());
  EXPECT_EQ(TagOf(r, Node("Relu", 14, {DataType::kInt32}, DataType::kInt32)), "int");
  EXPECT_EQ(TagOf(r, Node("Relu", 14, {DataType::kDouble}, DataType::kDouble)), "float");
  EXPECT_EQ(r.Supports(Node("Relu", 14, {DataType::kUint8}, DataType::kUint8)).reason(),
            "Relu (opset 14): input 0 'a' has type uint8; T supports float, double, int8, int32");
}

TEST(OpRegistryTest, AttributeCheckRefusesWithItsReason) {
  OpRegistry r;
  KernelDef def{"", "Gemm", 13, kLatestOpset, {{"T", {0, 1}, {0}, kFloats}}, Tag("gemm")};
  def.check = [](const NodeInfo& node) {
    Result<int64_t> trans = node.GetInt("transA", 0);
    if (trans.ok() && *trans != 0) {
      return KernelMatch::Unsupported("transA=1 is not implemented; transpose A beforehand");
    }
    return KernelMatch::Supported();
  };
  ASSERT_TRUE(r.Register(std::move(def)).ok());
  NodeInfo::Data d;
  d.name = "g";
  d.op_type = "Gemm";
  d.opset = 13;
  d.inputs = {TensorValue("a", DataType::kFloat), TensorValue("b", DataType::kFloat)};
  AttributeValue trans;
  trans.name = "transA";
  trans.type = AttributeType::kInt;
  trans.i = 1;
  d.attributes.push_back(trans);
  EXPECT_EQ(r.Supports(NodeInfo(d)).reason(),
            "Gemm (opset 13): transA=1 is not implemented; transpose A beforehand");
  d.attributes[0].i = 0;
  EXPECT_TRUE(r.Supports(NodeInfo(d)).supported());
}

TEST(OpRegistryTest, RejectsMalformedAndAmbiguousEntries) {
  OpRegistry r = AddRegistry();
  Status s = r.Register({"", "Add", 12, 13, {{"T", {0, 1}, {0}, kFloats}}, Tag("x")});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "kernel entry Add [12,13]: overlaps Add [7,12] for the same dtypes; make the opset "
            "ranges disjoint or give a shared type variable disjoint dtypes");
  EXPECT_EQ(r.Register({"", "", 1, 1, {}, Tag("x")}).message(),
            "kernel entry <no op_type> [1,1]: op_type is empty");
  EXPECT_EQ(r.Register({"", "Mul", 0, 3, {}, Tag("x")}).message(),
            "kernel entry Mul [0,3]: since_version 0 is below 1");
  EXPECT_EQ(r.Register({"", "Mul", 7, 6, {}, Tag("x")}).message(),
            "kernel entry Mul [7,6]: until_version 6 is below since_version 7");
  EXPECT_EQ(r.Register({"", "Mul", 7, 8, {}, nullptr}).message(),
            "kernel entry Mul [7,8]: no kernel factory");
  EXPECT_EQ(r.Register({"", "Mul", 7, 8, {{"T", {0}, {}, {}}}, Tag("x")}).message(),
            "kernel entry Mul [7,8]: type constraint 'T' allows no dtype");
  EXPECT_EQ(r.size(), 3u);
}

TEST(OpRegistryTest, FactoryErrorsNameTheNode) {
  OpRegistry r;
  ASSERT_TRUE(r.Register({"",
                          "Conv",
                          11,
                          kLatestOpset,
                          {},
                          [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
                            NXRT_ASSIGN_OR_RETURN(int64_t group, node.GetInt("group"));
                            (void)group;
                            return std::unique_ptr<Kernel>();
                          }})
                  .ok());
  NodeInfo node = Node("Conv", 11, {DataType::kFloat}, DataType::kFloat);
  Result<std::unique_ptr<Kernel>> k = r.CreateKernel(node);
  EXPECT_EQ(k.status().message(),
            "node 'Conv_3' (Conv, opset 11): required attribute 'group' is missing");
  NodeInfo unknown = Node("Pool", 11, {DataType::kFloat}, DataType::kFloat);
  EXPECT_EQ(r.CreateKernel(unknown).status().message(),
            "node 'Pool_3' (Pool, opset 11): no kernel for op 'Pool'");
}

TEST(OpRegistryTest, ListsEntriesInAStableOrder) {
  OpRegistry r = AddRegistry();
  ASSERT_TRUE(r.Register({"com.example", "Custom", 1, 1, {}, Tag("custom")}).ok());
  std::vector<std::string> listed;
  for (const KernelDef* def : r.Entries()) listed.push_back(def->Description());
  EXPECT_EQ(listed, (std::vector<std::string>{"Add [7,12]", "Add [13,13]", "Add [14,latest]",
                                              "com.example:Custom [1,1]"}));
}

}  // namespace
}  // namespace nxrt::ep
