// optimizer/quick_gelu_fusion_test.cpp: x * Sigmoid(alpha * x) → com.microsoft:QuickGelu, before
// and after, results against the unfused graph and against ONNX Runtime 1.30 (which fuses the
// same pattern at its default level) on random shapes, and the cases it must leave alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/testing/nn_test_util.h"
#include "optimizer/optimizer_test_util.h"
#include "ort_oracle/ort_oracle.h"

namespace nxrt::opt {
namespace {

using testing::AddNode;
using testing::ExpectSameResults;
using testing::FillFloatTensor;
using testing::FillValueInfo;
using testing::MakeModel;
using testing::Optimize;
using testing::OpTypes;
using testing::RandomFloats;
using testing::Rewrites;

enum class Form {
  kSilu,         // Mul(x, Sigmoid(x)): a Llama MLP's SiLU
  kSiluSwapped,  // Mul(Sigmoid(x), x)
  kScaled,       // Mul(x, Sigmoid(Mul(x, alpha))), alpha of rank 0: CLIP's QuickGelu
  kScaledLeft,   // Mul(Sigmoid(Mul(alpha, x)), x), alpha of shape [1]
};

struct Options {
  Form form = Form::kSilu;
  std::vector<int64_t> shape = {3, 16};
  float alpha = 1.702f;
  bool gated_mlp = false;           // y = Mul(the pattern, up), up a second input
  bool x_read_elsewhere = false;    // x also read by a Neg writing a second output
  bool sigmoid_is_output = false;   // the Sigmoid's output also a graph output
  bool other_gated = false;         // the last Mul gates another tensor than the Sigmoid reads
  bool alpha_per_element = false;   // alpha a tensor of x's last dim, not one element
  int32_t dtype = onnx::TensorProto::FLOAT;
};

void SetDims(onnx::ValueInfoProto* info, const std::vector<int64_t>& dims) {
  onnx::TensorShapeProto* shape = info->mutable_type()->mutable_tensor_type()->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

onnx::ModelProto QuickGeluModel(const Options& o) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", o.dtype);
  SetDims(g->mutable_input(0), o.shape);
  FillValueInfo(g->add_output(), "y", o.dtype);
  SetDims(g->mutable_output(0), o.shape);
  std::string gated = "x";
  if (o.other_gated) {
    FillValueInfo(g->add_input(), "x2", o.dtype);
    SetDims(g->mutable_input(1), o.shape);
    gated = "x2";
  }
  const std::string act = o.gated_mlp ? "act" : "y";
  std::string sigmoid_in = "x";
  if (o.form == Form::kScaled || o.form == Form::kScaledLeft) {
    if (o.alpha_per_element) {
      FillFloatTensor(g->add_initializer(), "alpha", {o.shape.back()},
                      std::vector<float>(static_cast<size_t>(o.shape.back()), o.alpha));
    } else if (o.form == Form::kScaled) {
      FillFloatTensor(g->add_initializer(), "alpha", {}, {o.alpha});
    } else {
      FillFloatTensor(g->add_initializer(), "alpha", {1}, {o.alpha});
    }
    if (o.form == Form::kScaled) {
      AddNode(g, "Mul", {"x", "alpha"}, {"u"}, "scale");
    } else {
      AddNode(g, "Mul", {"alpha", "x"}, {"u"}, "scale");
    }
    sigmoid_in = "u";
  }
  AddNode(g, "Sigmoid", {sigmoid_in}, {"s"}, "sigmoid");
  if (o.form == Form::kSilu || o.form == Form::kScaled) {
    AddNode(g, "Mul", {gated, "s"}, {act}, "silu");
  } else {
    AddNode(g, "Mul", {"s", gated}, {act}, "silu");
  }
  if (o.gated_mlp) {
    FillValueInfo(g->add_input(), "up", o.dtype);
    SetDims(g->mutable_input(g->input_size() - 1), o.shape);
    AddNode(g, "Mul", {"act", "up"}, {"y"}, "gate");
  }
  if (o.x_read_elsewhere) {
    AddNode(g, "Neg", {"x"}, {"minus_x"}, "neg");
    FillValueInfo(g->add_output(), "minus_x", o.dtype);
    SetDims(g->mutable_output(1), o.shape);
  }
  if (o.sigmoid_is_output) {
    FillValueInfo(g->add_output(), "s", o.dtype);
    SetDims(g->mutable_output(g->output_size() - 1), o.shape);
  }
  return m;
}

std::vector<NamedTensor> QuickGeluInputs(const Options& o, uint32_t seed) {
  std::vector<NamedTensor> inputs = {{"x", RandomFloats(o.shape, seed, -8.0f, 8.0f)}};
  if (o.other_gated) inputs.push_back({"x2", RandomFloats(o.shape, seed + 1, -8.0f, 8.0f)});
  if (o.gated_mlp) inputs.push_back({"up", RandomFloats(o.shape, seed + 2, -2.0f, 2.0f)});
  return inputs;
}

// |a - b| <= atol + rtol * |b| element by element, at most 5 failures printed.
void ExpectClose(const Tensor& actual, const Tensor& expected, float rtol, float atol) {
  ASSERT_EQ(actual.element_count(), expected.element_count());
  const float* a = actual.data<float>();
  const float* e = expected.data<float>();
  int bad = 0;
  for (int64_t i = 0; i < actual.element_count() && bad < 5; ++i) {
    const bool close = std::fabs(a[i] - e[i]) <= atol + rtol * std::fabs(e[i]);
    EXPECT_TRUE(close) << "element " << i << ": " << a[i] << " vs ONNX Runtime " << e[i];
    bad += close ? 0 : 1;
  }
}

TEST(QuickGeluFusion, FusesBothFormsAndMatchesUnfusedAndOnnxRuntimeOnRandomShapes) {
  NXRT_ASSERT_OK_AND_ASSIGN(oracle::OrtOracle ort, oracle::OrtOracle::Load());
  const std::string path = ::testing::TempDir() + "nxrt_quick_gelu_fusion_test.onnx";
  std::mt19937 rng(2240);
  for (int trial = 0; trial < 12; ++trial) {
    Options o;
    o.form = static_cast<Form>(trial % 4);
    o.gated_mlp = trial % 3 == 1;
    o.x_read_elsewhere = trial % 5 == 2;
    o.alpha = std::uniform_real_distribution<float>(0.5f, 2.0f)(rng);
    o.shape.clear();
    const int rank = std::uniform_int_distribution<int>(1, 4)(rng);
    for (int d = 0; d < rank; ++d) {
      o.shape.push_back(std::uniform_int_distribution<int>(1, 37)(rng));
    }
    SCOPED_TRACE("trial " + std::to_string(trial) + ", form " +
                 std::to_string(static_cast<int>(o.form)) + ", rank " + std::to_string(rank));
    const bool scaled = o.form == Form::kScaled || o.form == Form::kScaledLeft;
    const onnx::ModelProto proto = QuickGeluModel(o);

    ir::Model model = Optimize(proto, {"quick_gelu_fusion"});
    std::vector<std::string> ops = {"com.microsoft:QuickGelu"};
    if (o.gated_mlp) ops.push_back("Mul");
    if (o.x_read_elsewhere) ops.push_back("Neg");
    ASSERT_EQ(OpTypes(*model.graph), ops);
    const ir::Node& gelu = model.graph->nodes[0];
    EXPECT_EQ(gelu.name, "silu/QuickGeluFusion/");
    ASSERT_EQ(gelu.inputs.size(), 1u);
    EXPECT_EQ(model.graph->values[gelu.inputs[0]].name, "x");
    EXPECT_EQ(model.graph->values[gelu.outputs[0]].name, o.gated_mlp ? "act" : "y");
    const ir::Attribute* alpha = gelu.FindAttribute("alpha");
    ASSERT_NE(alpha, nullptr);
    EXPECT_EQ(alpha->f, scaled ? o.alpha : 1.0f);
    EXPECT_TRUE(model.graph->initializers.empty());

    const std::vector<NamedTensor> inputs = QuickGeluInputs(o, 31 + trial);
    const auto stats = ExpectSameResults(proto, inputs, {"quick_gelu_fusion"}, 1e-5f, 1e-6f);
    EXPECT_EQ(Rewrites(stats, "quick_gelu_fusion"), 1);
    ir::testing::WriteModel(path, proto);
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<NamedTensor> expected, ort.Run(path, inputs));
    for (int threads : {1, 2}) {
      SessionOptions options;
      options.intra_op_threads = threads;
      NXRT_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session,
                                Session::CreateFromBytes(testing::Serialize(proto), options));
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<NamedTensor> y, session->Run(inputs));
      ASSERT_EQ(y.size(), expected.size());
      for (size_t i = 0; i < y.size(); ++i) {
        ExpectClose(y[i].tensor, expected[i].tensor, 1e-5f, 1e-6f);
      }
    }
  }
  std::remove(path.c_str());
}

TEST(QuickGeluFusion, TakesAnUntypedValueThatItsProducersKernelsWriteInFloatOnly) {
  // com.microsoft:Gelu's output has no type (ONNX 1.12's inference does not know the op), as a
  // decoder's MatMulNBits gate projection has none; the CPU EP's Gelu writes float only.
  onnx::ModelProto m = MakeModel(17);
  onnx::OperatorSetIdProto* ms = m.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {5, 24});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {5, 24});
  AddNode(g, "Gelu", {"x"}, {"gate"}, "gelu", "com.microsoft");
  AddNode(g, "Sigmoid", {"gate"}, {"s"}, "sigmoid");
  AddNode(g, "Mul", {"gate", "s"}, {"y"}, "silu");
  ir::Model model = Optimize(m, {"quick_gelu_fusion"});
  EXPECT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"com.microsoft:Gelu", "com.microsoft:QuickGelu"}));
  const std::vector<NamedTensor> inputs = {{"x", RandomFloats({5, 24}, 7, -6.0f, 6.0f)}};
  const auto stats = ExpectSameResults(m, inputs, {"quick_gelu_fusion"}, 1e-5f, 1e-6f);
  EXPECT_EQ(Rewrites(stats, "quick_gelu_fusion"), 1);
}

TEST(QuickGeluFusion, LeavesPatternsItCannotReplace) {
  Options sigmoid_output;
  sigmoid_output.sigmoid_is_output = true;
  Options other_gated;
  other_gated.other_gated = true;
  Options per_element;
  per_element.form = Form::kScaled;
  per_element.alpha_per_element = true;
  Options doubles;  // the CPU EP's QuickGelu is float only
  doubles.dtype = onnx::TensorProto::DOUBLE;
  for (const Options& o : {sigmoid_output, other_gated, per_element, doubles}) {
    const size_t before = Optimize(QuickGeluModel(o), {}).graph->nodes.size();
    ir::Model model = Optimize(QuickGeluModel(o), {"quick_gelu_fusion"});
    EXPECT_EQ(model.graph->nodes.size(), before);
    for (const std::string& op : OpTypes(*model.graph)) EXPECT_NE(op, "com.microsoft:QuickGelu");
  }
}

TEST(QuickGeluFusion, LeavesTheSwishOfAMatMulToItsEpilogue) {
  // MatMul → x * Sigmoid(x): matmul_activation_fusion, which runs first, takes it as Swish.
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "a", onnx::TensorProto::FLOAT, {4, 8});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {4, 6});
  FillFloatTensor(g->add_initializer(), "w", {8, 6}, testing::Floats({8, 6}, 5));
  AddNode(g, "MatMul", {"a", "w"}, {"x"});
  AddNode(g, "Sigmoid", {"x"}, {"s"});
  AddNode(g, "Mul", {"x", "s"}, {"y"});
  ir::Model model = Optimize(m, {"matmul_activation_fusion", "quick_gelu_fusion"});
  EXPECT_EQ(OpTypes(*model.graph), std::vector<std::string>{"com.nxrt:FusedMatMul"});
}

}  // namespace
}  // namespace nxrt::opt
