// optimizer/qdq_fusion_test.cpp: the qdq_fusion pass on static QDQ models: the QLinearConv or
// QLinearMatMul it makes, the cases it leaves alone, and the fused model's outputs against
// ONNX Runtime 1.30 running the same QDQ model at its default optimisation level (which fuses
// the same way): equal bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/testing/nn_test_util.h"
#include "optimizer/optimizer_test_util.h"
#include "ort_oracle/ort_oracle.h"

namespace nxrt::opt {
namespace {

using testing::AddIntsAttribute;
using testing::AddNode;
using testing::FillValueInfo;
using testing::MakeModel;
using testing::OpTypes;
using testing::Optimize;

struct Case {
  std::string name;
  bool conv = true;
  int32_t x_type = onnx::TensorProto::UINT8;
  int32_t w_type = onnx::TensorProto::INT8;
  bool per_channel = false;
  bool bias = true;
  bool y_read_twice = false;
  bool w_zero_point = true;
};

constexpr int64_t kC = 6, kM = 5, kH = 7, kK = 20, kRows = 3;

void AddInt8Tensor(onnx::GraphProto* g, const std::string& name, int32_t type,
                   std::vector<int64_t> dims, std::mt19937& rng, int lo, int hi) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  std::uniform_int_distribution<int> d(lo, hi);
  std::string raw;
  for (int64_t i = 0; i < n; ++i) raw.push_back(static_cast<char>(d(rng)));
  t->set_raw_data(raw);
}

void AddScalarOrVector(onnx::GraphProto* g, const std::string& name, int32_t type,
                       std::vector<int64_t> dims, const std::vector<float>& values) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  for (float v : values) {
    if (type == onnx::TensorProto::FLOAT) {
      t->add_float_data(v);
    } else {
      t->add_int32_data(static_cast<int32_t>(v));
    }
  }
}

// x_q -> DQ -> Conv (W = DQ(w_q), B = DQ(b_q)) or MatMul -> Q -> y_q.
onnx::ModelProto QdqModel(const Case& k) {
  std::mt19937 rng(77);
  onnx::ModelProto m = MakeModel(13);
  onnx::GraphProto* g = m.mutable_graph();
  const bool signed_x = k.x_type == onnx::TensorProto::INT8;
  const bool signed_w = k.w_type == onnx::TensorProto::INT8;
  if (k.conv) {
    FillValueInfo(g->add_input(), "x", k.x_type, {1, kC, kH, kH});
  } else {
    FillValueInfo(g->add_input(), "x", k.x_type, {kRows, kK});
  }
  FillValueInfo(g->add_output(), "y", k.x_type, {});
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  const std::vector<int64_t> w_dims =
      k.conv ? std::vector<int64_t>{kM, kC, 3, 3} : std::vector<int64_t>{kK, kM};
  AddInt8Tensor(g, "w", k.w_type, w_dims, rng, signed_w ? -128 : 0, signed_w ? 127 : 255);
  const int64_t channels = k.per_channel ? kM : 1;
  const std::vector<int64_t> param_dims = k.per_channel ? std::vector<int64_t>{kM}
                                                        : std::vector<int64_t>{};
  AddScalarOrVector(g, "x_scale", onnx::TensorProto::FLOAT, {}, {0.02f});
  AddScalarOrVector(g, "y_scale", onnx::TensorProto::FLOAT, {}, {0.7f});
  std::vector<float> w_scales;
  for (int64_t i = 0; i < channels; ++i) w_scales.push_back(0.01f + 0.002f * static_cast<float>(i));
  AddScalarOrVector(g, "w_scale", onnx::TensorProto::FLOAT, param_dims, w_scales);
  AddInt8Tensor(g, "x_zero_point", k.x_type, {}, rng, signed_x ? -5 : 120, signed_x ? 5 : 130);
  AddInt8Tensor(g, "y_zero_point", k.x_type, {}, rng, signed_x ? -5 : 120, signed_x ? 5 : 130);
  if (k.w_zero_point) {
    AddInt8Tensor(g, "w_zero_point", k.w_type, param_dims, rng, signed_w ? -3 : 120,
                  signed_w ? 3 : 135);
  }
  AddNode(g, "DequantizeLinear", {"x", "x_scale", "x_zero_point"}, {"xf"}, "dq_x");
  onnx::NodeProto* dq_w =
      k.w_zero_point
          ? AddNode(g, "DequantizeLinear", {"w", "w_scale", "w_zero_point"}, {"wf"}, "dq_w")
          : AddNode(g, "DequantizeLinear", {"w", "w_scale"}, {"wf"}, "dq_w");
  testing::AddIntAttribute(dq_w, "axis", k.conv ? 0 : 1);
  if (k.conv && k.bias) {
    std::vector<float> b;
    std::vector<float> b_scales;
    for (int64_t i = 0; i < kM; ++i) b.push_back(static_cast<float>(i * 997 % 4000 - 2000));
    for (float s : w_scales) b_scales.push_back(0.02f * s);
    AddScalarOrVector(g, "b", onnx::TensorProto::INT32, {kM}, b);
    AddScalarOrVector(g, "b_scale", onnx::TensorProto::FLOAT, param_dims, b_scales);
    onnx::NodeProto* dq_b = AddNode(g, "DequantizeLinear", {"b", "b_scale"}, {"bf"}, "dq_b");
    testing::AddIntAttribute(dq_b, "axis", 0);
  }
  if (k.conv) {
    onnx::NodeProto* conv = k.bias ? AddNode(g, "Conv", {"xf", "wf", "bf"}, {"yf"}, "conv")
                                   : AddNode(g, "Conv", {"xf", "wf"}, {"yf"}, "conv");
    AddIntsAttribute(conv, "pads", {1, 1, 1, 1});
  } else {
    AddNode(g, "MatMul", {"xf", "wf"}, {"yf"}, "matmul");
  }
  AddNode(g, "QuantizeLinear", {"yf", "y_scale", "y_zero_point"}, {"y"}, "q_y");
  if (k.y_read_twice) {
    FillValueInfo(g->add_output(), "r", onnx::TensorProto::FLOAT, {});
    g->mutable_output(1)->mutable_type()->mutable_tensor_type()->clear_shape();
    AddNode(g, "Relu", {"yf"}, {"r"}, "relu");
  }
  return m;
}

Tensor RandomInput(const Case& k) {
  std::mt19937 rng(5);
  const Shape shape = k.conv ? Shape{1, kC, kH, kH} : Shape{kRows, kK};
  const bool is_signed = k.x_type == onnx::TensorProto::INT8;
  Tensor t = Tensor::Allocate(is_signed ? DataType::kInt8 : DataType::kUint8, shape).value();
  std::uniform_int_distribution<int> d(is_signed ? -128 : 0, is_signed ? 127 : 255);
  auto* p = static_cast<uint8_t*>(t.mutable_raw_data());
  for (int64_t i = 0; i < t.element_count(); ++i) p[i] = static_cast<uint8_t>(d(rng));
  return t;
}

TEST(QdqFusion, FoldsConvAndMatMulAndMatchesOnnxRuntime) {
  const std::vector<Case> cases = {
      {"Conv u8 x s8 w, bias", true},
      {"Conv u8 x s8 w per channel", true, onnx::TensorProto::UINT8, onnx::TensorProto::INT8,
       true},
      {"Conv u8 x u8 w, no bias", true, onnx::TensorProto::UINT8, onnx::TensorProto::UINT8,
       false, false},
      {"Conv s8 x s8 w, no w zero point", true, onnx::TensorProto::INT8, onnx::TensorProto::INT8,
       false, true, false, false},
      {"MatMul u8 x s8 w", false},
      {"MatMul u8 x u8 w per column", false, onnx::TensorProto::UINT8, onnx::TensorProto::UINT8,
       true},
  };
  NXRT_ASSERT_OK_AND_ASSIGN(oracle::OrtOracle ort, oracle::OrtOracle::Load());
  const std::string path = ::testing::TempDir() + "nxrt_qdq_fusion_test.onnx";
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    const onnx::ModelProto m = QdqModel(k);
    ir::Model model = Optimize(m, {"qdq_fusion"});
    ASSERT_EQ(OpTypes(*model.graph),
              std::vector<std::string>{k.conv ? "QLinearConv" : "QLinearMatMul"});
    const ir::Node& fused = model.graph->nodes[0];
    EXPECT_EQ(fused.inputs.size(), k.conv && k.bias ? 9u : 8u);
    EXPECT_EQ(model.graph->values[fused.outputs[0]].name, "y");

    ir::testing::WriteModel(path, m);
    const Tensor x = RandomInput(k);
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<NamedTensor> expected, ort.Run(path, {{"x", x}}));
    for (int threads : {1, 2}) {
      SessionOptions options;
      options.intra_op_threads = threads;
      NXRT_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session,
                                Session::CreateFromBytes(testing::Serialize(m), options));
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<NamedTensor> y, session->Run({{"x", x}}));
      ASSERT_EQ(y[0].tensor.byte_size(), expected[0].tensor.byte_size());
      EXPECT_EQ(0, std::memcmp(y[0].tensor.raw_data(), expected[0].tensor.raw_data(),
                               y[0].tensor.byte_size()))
          << threads << " threads";
    }
  }
  std::remove(path.c_str());
}

TEST(QdqFusion, LeavesSharedOutputsAndPairingsOrtDoesNotRun) {
  Case shared{"the float product read twice", true};
  shared.y_read_twice = true;
  Case mixed{"s8 x with u8 w", true, onnx::TensorProto::INT8, onnx::TensorProto::UINT8};
  for (const Case& k : {shared, mixed}) {
    SCOPED_TRACE(k.name);
    ir::Model model = Optimize(QdqModel(k), {"qdq_fusion"});
    const std::vector<std::string> ops = OpTypes(*model.graph);
    EXPECT_NE(std::find(ops.begin(), ops.end(), "Conv"), ops.end());
  }
}

}  // namespace
}  // namespace nxrt::opt
