// optimizer/matmul_integer_to_float_fusion_test.cpp: the matmul_integer_to_float_fusion pass on
// dynamically quantized MatMuls as ORT's quantize_dynamic writes them: the MatMulIntegerToFloat
// it makes, the cases it leaves alone, and the outputs, equal bit for bit to the unfused graph's
// and to ONNX Runtime 1.30's (which fuses the same way) at 1 and 2 threads.
#include <gtest/gtest.h>

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

using testing::AddNode;
using testing::FillValueInfo;
using testing::MakeModel;
using testing::OpTypes;
using testing::Optimize;

// Odd sizes: K and N not multiples of any vector width.
constexpr int64_t kBatch = 2, kRows = 5, kK = 37, kN = 11;

struct Case {
  std::string name;
  int32_t w_type = onnx::TensorProto::INT8;
  bool per_column = false;    // b scale and zero point per column
  bool w_zero_point = true;
  bool scales_swapped = false;  // Mul(b_scale, a_scale) and Mul(S, F)
  bool bias = true;
  bool cast_read_twice = false;
  bool runtime_b_scale = false;  // b_scale a graph input: not matched
  int64_t bias_length = kN;      // a bias of another length is not folded
};

void AddTensor(onnx::GraphProto* g, const std::string& name, int32_t type,
               std::vector<int64_t> dims, const std::vector<float>& values) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  if (type == onnx::TensorProto::FLOAT) {
    for (float v : values) t->add_float_data(v);
    return;
  }
  std::string raw;
  for (float v : values) raw.push_back(static_cast<char>(static_cast<int>(v)));
  t->set_raw_data(raw);
}

// x -> DynamicQuantizeLinear -> MatMulInteger(w) -> Cast -> Mul(S = Mul(x_scale, w_scale))
//   [-> Add(bias)] -> y
onnx::ModelProto DynamicModel(const Case& k) {
  std::mt19937 rng(31);
  onnx::ModelProto m = MakeModel(13);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {kBatch, kRows, kK});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {});
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  const bool signed_w = k.w_type == onnx::TensorProto::INT8;
  std::uniform_int_distribution<int> wd(signed_w ? -128 : 0, signed_w ? 127 : 255);
  std::vector<float> w;
  for (int64_t i = 0; i < kK * kN; ++i) w.push_back(static_cast<float>(wd(rng)));
  AddTensor(g, "w", k.w_type, {kK, kN}, w);
  const int64_t params = k.per_column ? kN : 1;
  const std::vector<int64_t> param_dims = k.per_column ? std::vector<int64_t>{kN}
                                                       : std::vector<int64_t>{};
  std::vector<float> scales, zero_points;
  for (int64_t i = 0; i < params; ++i) {
    scales.push_back(0.003f + 0.0007f * static_cast<float>(i));
    zero_points.push_back(signed_w ? static_cast<float>(i % 5 - 2)
                                   : static_cast<float>(120 + i % 9));
  }
  if (k.runtime_b_scale) {
    FillValueInfo(g->add_input(), "w_scale", onnx::TensorProto::FLOAT, {});
  } else {
    AddTensor(g, "w_scale", onnx::TensorProto::FLOAT, param_dims, scales);
  }
  AddNode(g, "DynamicQuantizeLinear", {"x"}, {"xq", "x_scale", "x_zero_point"}, "dql");
  if (k.w_zero_point) {
    AddTensor(g, "w_zero_point", k.w_type, param_dims, zero_points);
    AddNode(g, "MatMulInteger", {"xq", "w", "x_zero_point", "w_zero_point"}, {"p"}, "matmul");
  } else {
    AddNode(g, "MatMulInteger", {"xq", "w", "x_zero_point"}, {"p"}, "matmul");
  }
  onnx::NodeProto* cast = AddNode(g, "Cast", {"p"}, {"f"}, "cast");
  testing::AddIntAttribute(cast, "to", onnx::TensorProto::FLOAT);
  if (k.scales_swapped) {
    AddNode(g, "Mul", {"w_scale", "x_scale"}, {"s"}, "scales");
    AddNode(g, "Mul", {"s", "f"}, {k.bias ? "scaled" : "y"}, "scale");
  } else {
    AddNode(g, "Mul", {"x_scale", "w_scale"}, {"s"}, "scales");
    AddNode(g, "Mul", {"f", "s"}, {k.bias ? "scaled" : "y"}, "scale");
  }
  if (k.bias) {
    std::vector<float> bias;
    std::uniform_real_distribution<float> bd(-2.0f, 2.0f);
    for (int64_t i = 0; i < k.bias_length; ++i) bias.push_back(bd(rng));
    AddTensor(g, "bias", onnx::TensorProto::FLOAT, {k.bias_length}, bias);
    AddNode(g, "Add", {"scaled", "bias"}, {"y"}, "bias_add");
  }
  if (k.cast_read_twice) {
    FillValueInfo(g->add_output(), "f", onnx::TensorProto::FLOAT, {});
    g->mutable_output(1)->mutable_type()->mutable_tensor_type()->clear_shape();
  }
  return m;
}

TEST(MatMulIntegerToFloatFusion, FoldsScalingAndBiasAndMatchesUnfusedAndOnnxRuntime) {
  const std::vector<Case> cases = {
      {"s8 w per tensor, bias"},
      {"s8 w per column, scales swapped, no bias", onnx::TensorProto::INT8, true, true, true,
       false},
      {"u8 w per column zero points, bias", onnx::TensorProto::UINT8, true},
      {"s8 w without zero point", onnx::TensorProto::INT8, false, false},
  };
  NXRT_ASSERT_OK_AND_ASSIGN(oracle::OrtOracle ort, oracle::OrtOracle::Load());
  const std::string path = ::testing::TempDir() + "nxrt_matmul_integer_to_float_test.onnx";
  const Tensor x = testing::RandomFloats({kBatch, kRows, kK}, 9, -3.0f, 5.0f);
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    const onnx::ModelProto m = DynamicModel(k);
    ir::Model model = Optimize(m, {"matmul_integer_to_float_fusion"});
    ASSERT_EQ(OpTypes(*model.graph), (std::vector<std::string>{
                                         "DynamicQuantizeLinear",
                                         "com.microsoft:MatMulIntegerToFloat"}));
    const ir::Node& fused = model.graph->nodes[1];
    EXPECT_EQ(fused.inputs.size(), k.bias ? 7u : (k.w_zero_point ? 6u : 5u));
    EXPECT_EQ(model.graph->values[fused.outputs[0]].name, "y");

    ir::testing::WriteModel(path, m);
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<NamedTensor> expected, ort.Run(path, {{"x", x}}));
    const std::vector<std::byte> bytes = testing::Serialize(m);
    for (int threads : {1, 2}) {
      for (int level : {0, 2}) {
        SessionOptions options;
        options.intra_op_threads = threads;
        options.optimization_level = level;
        NXRT_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session,
                                  Session::CreateFromBytes(bytes, options));
        NXRT_ASSERT_OK_AND_ASSIGN(std::vector<NamedTensor> y, session->Run({{"x", x}}));
        ASSERT_EQ(y[0].tensor.shape(), (Shape{kBatch, kRows, kN}));
        ASSERT_EQ(y[0].tensor.byte_size(), expected[0].tensor.byte_size());
        EXPECT_EQ(0, std::memcmp(y[0].tensor.raw_data(), expected[0].tensor.raw_data(),
                                 y[0].tensor.byte_size()))
            << threads << " threads, level " << level;
      }
    }
  }
  std::remove(path.c_str());
}

TEST(MatMulIntegerToFloatFusion, LeavesSharedProductsRuntimeScalesAndOtherBiases) {
  Case shared{"the float product read twice"};
  shared.cast_read_twice = true;
  Case runtime{"b scale fed at run time"};
  runtime.runtime_b_scale = true;
  for (const Case& k : {shared, runtime}) {
    SCOPED_TRACE(k.name);
    ir::Model model = Optimize(DynamicModel(k), {"matmul_integer_to_float_fusion"});
    EXPECT_EQ(OpTypes(*model.graph)[1], "MatMulInteger");
  }
  Case other_bias{"a bias of one element"};
  other_bias.bias_length = 1;
  ir::Model model = Optimize(DynamicModel(other_bias), {"matmul_integer_to_float_fusion"});
  EXPECT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"DynamicQuantizeLinear",
                                      "com.microsoft:MatMulIntegerToFloat", "Add"}));
}

}  // namespace
}  // namespace nxrt::opt
