// optimizer/insert_cast_test.cpp: the insert_cast pass on graphs before and after: where the
// float32 islands start and end, what stays in half precision, the model's Casts it cancels, and
// the results against float32 math.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "optimizer/optimizer_test_util.h"

namespace nxrt::opt {
namespace {

using testing::AddIntAttribute;
using testing::AddIntsAttribute;
using testing::AddNode;
using testing::FillValueInfo;
using testing::MakeModel;
using testing::OpTypes;
using testing::Optimize;
using testing::RandomFloats;
using testing::Rewrites;
using testing::Serialize;

constexpr int32_t kHalf = onnx::TensorProto::FLOAT16;
constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

void FillHalfTensor(onnx::TensorProto* t, const std::string& name,
                    std::initializer_list<int64_t> dims, const std::vector<float>& values) {
  t->set_name(name);
  t->set_data_type(kHalf);
  for (int64_t d : dims) t->add_dims(d);
  std::string raw(values.size() * 2, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t bits = Float16(values[i]).bits;
    std::memcpy(raw.data() + 2 * i, &bits, 2);
  }
  t->set_raw_data(raw);
}

// x [2, 3, 5, 5] float16 → Conv(W, B, pads 1) → Relu → Reshape [2, -1] → Softmax → y float16.
onnx::ModelProto ConvChainModel() {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", kHalf, {2, 3, 5, 5});
  FillValueInfo(g->add_output(), "y", kHalf, {2, 100});
  FillHalfTensor(g->add_initializer(), "w", {4, 3, 3, 3}, testing::Floats({4, 3, 3, 3}, 1, -0.5f, 0.5f));
  FillHalfTensor(g->add_initializer(), "b", {4}, testing::Floats({4}, 2, -0.5f, 0.5f));
  onnx::TensorProto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(2);
  shape->add_int64_data(-1);
  AddIntsAttribute(AddNode(g, "Conv", {"x", "w", "b"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  AddNode(g, "Relu", {"c"}, {"r"}, "relu");
  AddNode(g, "Reshape", {"r", "shape"}, {"rs"}, "reshape");
  AddIntAttribute(AddNode(g, "Softmax", {"rs"}, {"y"}, "softmax"), "axis", 1);
  FillValueInfo(g->add_value_info(), "c", kHalf, {2, 4, 5, 5});
  FillValueInfo(g->add_value_info(), "r", kHalf, {2, 4, 5, 5});
  FillValueInfo(g->add_value_info(), "rs", kHalf, {2, 100});
  return m;
}

Tensor ToHalf(const Tensor& f) {
  Tensor h = Tensor::Allocate(DataType::kFloat16, std::vector<int64_t>(f.shape().begin(),
                                                                       f.shape().end())).value();
  for (int64_t i = 0; i < f.element_count(); ++i) h.mutable_data<Float16>()[i] = Float16(f.data<float>()[i]);
  return h;
}

float HalfAt(const Tensor& t, int64_t i) { return static_cast<float>(t.data<Float16>()[i]); }

TEST(InsertCast, ConvChainRunsInFloat32BetweenTwoCasts) {
  ir::Model model = Optimize(ConvChainModel(), {"insert_cast"});
  EXPECT_EQ(OpTypes(*model.graph), (std::vector<std::string>{"Cast", "Conv", "Relu", "Reshape",
                                                              "Softmax", "Cast"}));
  // The float16 weights were converted once; the originals are gone.
  for (const ir::Initializer& init : model.graph->initializers) {
    EXPECT_NE(init.tensor.dtype(), DataType::kFloat16) << model.graph->values[init.value].name;
  }
  const ir::Value& y = model.graph->values[static_cast<size_t>(model.graph->outputs[0])];
  EXPECT_EQ(y.name, "y");
  EXPECT_EQ(y.type.elem_type, DataType::kFloat16);
  for (const ir::Node& node : model.graph->nodes) {
    if (node.op_type == "Cast") continue;
    for (ir::ValueId v : node.outputs) {
      EXPECT_EQ(model.graph->values[static_cast<size_t>(v)].type.elem_type, DataType::kFloat)
          << node.name;
    }
  }
}

TEST(InsertCast, ConvChainMatchesTheFloat32ModelRoundedOnceAtOneAndTwoThreads) {
  const std::vector<std::byte> bytes = Serialize(ConvChainModel());
  const Tensor x = ToHalf(RandomFloats({2, 3, 5, 5}, 7, -2, 2));
  for (int threads : {1, 2}) {
    SessionOptions islands;
    islands.intra_op_threads = threads;
    SessionOptions loops = islands;
    loops.disabled_optimizers = {"insert_cast"};
    auto a = Session::CreateFromBytes(bytes, islands);
    auto b = Session::CreateFromBytes(bytes, loops);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(Rewrites((*a)->OptimizerPasses(), "insert_cast"), 4);
    EXPECT_EQ(Rewrites((*b)->OptimizerPasses(), "insert_cast"), -1);
    auto ya = (*a)->Run({{"x", x}});
    auto yb = (*b)->Run({{"x", x}});
    ASSERT_TRUE(ya.ok()) << ya.status().message();
    ASSERT_TRUE(yb.ok()) << yb.status().message();
    const Tensor& island = (*ya)[0].tensor;
    const Tensor& reference = (*yb)[0].tensor;
    ASSERT_EQ(island.dtype(), DataType::kFloat16);
    // A reference in double from the float16 inputs and weights.
    const std::vector<float> w = testing::Floats({4, 3, 3, 3}, 1, -0.5f, 0.5f);
    const std::vector<float> bias = testing::Floats({4}, 2, -0.5f, 0.5f);
    for (int64_t n = 0; n < 2; ++n) {
      std::vector<double> row(100);
      double max = -INFINITY;
      for (int64_t o = 0; o < 4; ++o) {
        for (int64_t i = 0; i < 5; ++i) {
          for (int64_t j = 0; j < 5; ++j) {
            double acc = static_cast<float>(Float16(bias[o]));
            for (int64_t c = 0; c < 3; ++c) {
              for (int64_t ki = 0; ki < 3; ++ki) {
                for (int64_t kj = 0; kj < 3; ++kj) {
                  const int64_t yi = i + ki - 1, xj = j + kj - 1;
                  if (yi < 0 || yi >= 5 || xj < 0 || xj >= 5) continue;
                  acc += static_cast<double>(HalfAt(x, ((n * 3 + c) * 5 + yi) * 5 + xj)) *
                         static_cast<float>(Float16(w[((o * 3 + c) * 3 + ki) * 3 + kj]));
                }
              }
            }
            row[static_cast<size_t>((o * 5 + i) * 5 + j)] = std::max(acc, 0.0);
            max = std::max(max, std::max(acc, 0.0));
          }
        }
      }
      double sum = 0;
      for (double& v : row) sum += (v = std::exp(v - max));
      for (int64_t k = 0; k < 100; ++k) {
        const double want = row[static_cast<size_t>(k)] / sum;
        EXPECT_NEAR(HalfAt(island, n * 100 + k), want, 1e-3 * want + 1e-6) << n << "," << k;
        EXPECT_NEAR(HalfAt(island, n * 100 + k), HalfAt(reference, n * 100 + k),
                    4e-3 * want + 1e-6);
      }
    }
  }
}

// x float32 → Cast(to float16) → Sigmoid → Cast(to float) → y: the exporter's keep-io-types edges.
onnx::ModelProto CastPairModel(int32_t half) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", kFloat, {3, 37});
  FillValueInfo(g->add_output(), "y", kFloat, {3, 37});
  AddIntAttribute(AddNode(g, "Cast", {"x"}, {"h"}, "to_half"), "to", half);
  AddNode(g, "Sigmoid", {"h"}, {"s"}, "sigmoid");
  AddIntAttribute(AddNode(g, "Cast", {"s"}, {"y"}, "to_float"), "to", kFloat);
  FillValueInfo(g->add_value_info(), "h", half, {3, 37});
  FillValueInfo(g->add_value_info(), "s", half, {3, 37});
  return m;
}

TEST(InsertCast, ModelCastsAroundAnIslandCancelAsInOnnxRuntime) {
  for (int32_t half : {kHalf, static_cast<int32_t>(onnx::TensorProto::BFLOAT16)}) {
    ir::Model model = Optimize(CastPairModel(half), {"insert_cast"});
    ASSERT_EQ(OpTypes(*model.graph), std::vector<std::string>{"Sigmoid"});
    const ir::Node& sigmoid = model.graph->nodes[0];
    EXPECT_EQ(model.graph->values[static_cast<size_t>(sigmoid.inputs[0])].name, "x");
    EXPECT_EQ(model.graph->values[static_cast<size_t>(sigmoid.outputs[0])].name, "y");
    // The result is float32 Sigmoid of the float32 input, never rounded to half.
    auto session = Session::CreateFromBytes(Serialize(CastPairModel(half)));
    ASSERT_TRUE(session.ok()) << session.status().message();
    const Tensor x = RandomFloats({3, 37}, 9, -6, 6);
    auto y = (*session)->Run({{"x", x}});
    ASSERT_TRUE(y.ok()) << y.status().message();
    for (int64_t i = 0; i < x.element_count(); ++i) {
      const double want = 1.0 / (1.0 + std::exp(-static_cast<double>(x.data<float>()[i])));
      EXPECT_NEAR((*y)[0].tensor.data<float>()[i], want, 2e-6) << i;
    }
  }
}

TEST(InsertCast, ValuesReadOutsideTheIslandKeepTheirHalfType) {
  // x → Max(x, 0) → r (a graph output too) → Mul(r, r) → s; x → Transpose → t (graph output).
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", kHalf, {4, 6});
  FillValueInfo(g->add_output(), "r", kHalf, {4, 6});
  FillValueInfo(g->add_output(), "s", kHalf, {4, 6});
  FillValueInfo(g->add_output(), "t", kHalf, {6, 4});
  FillHalfTensor(g->add_initializer(), "zero", {}, {0.0f});
  AddNode(g, "Max", {"x", "zero"}, {"r"}, "max");
  AddNode(g, "Mul", {"r", "r"}, {"s"}, "square");
  AddIntsAttribute(AddNode(g, "Transpose", {"x"}, {"t"}, "transpose"), "perm", {1, 0});
  ir::Model model = Optimize(m, {"insert_cast"});
  // One Cast of x serves Max; the Transpose, fed by a graph input, stays float16.
  EXPECT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"Cast", "Max", "Cast", "Mul", "Cast", "Transpose"}));
  for (ir::ValueId out : model.graph->outputs) {
    EXPECT_EQ(model.graph->values[static_cast<size_t>(out)].type.elem_type, DataType::kFloat16);
  }
  auto session = Session::CreateFromBytes(Serialize(m));
  ASSERT_TRUE(session.ok()) << session.status().message();
  const Tensor x = ToHalf(RandomFloats({4, 6}, 11, -3, 3));
  auto y = (*session)->Run({{"x", x}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  for (int64_t i = 0; i < 24; ++i) {
    const float r = std::max(HalfAt(x, i), 0.0f);
    EXPECT_EQ(HalfAt((*y)[0].tensor, i), r);
    const double square = static_cast<double>(r) * r;
    EXPECT_NEAR(HalfAt((*y)[1].tensor, i), square, square / 1024);
    EXPECT_EQ(HalfAt((*y)[2].tensor, (i % 6) * 4 + i / 6), HalfAt(x, i));
  }
}

TEST(InsertCast, IsolatedUnaryOpsStayHalfAndMoversJoinBetweenModelCasts) {
  // x float16 → Sigmoid → y float16: one pass in float16 (its kernel converts in bulk), no Casts.
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", kHalf, {3, 37});
  FillValueInfo(g->add_output(), "y", kHalf, {3, 37});
  AddNode(g, "Sigmoid", {"x"}, {"y"}, "sigmoid");
  EXPECT_EQ(OpTypes(*Optimize(m, {"insert_cast"}).graph), std::vector<std::string>{"Sigmoid"});
  auto session = Session::CreateFromBytes(Serialize(m));
  ASSERT_TRUE(session.ok()) << session.status().message();
  const Tensor x = ToHalf(RandomFloats({3, 37}, 17, -6, 6));
  auto y = (*session)->Run({{"x", x}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  for (int64_t i = 0; i < x.element_count(); ++i) {
    const double want = 1.0 / (1.0 + std::exp(-static_cast<double>(HalfAt(x, i))));
    EXPECT_NEAR(HalfAt((*y)[0].tensor, i), want, want / 1024) << i;
  }
  // x float32 → Cast(float16) → Transpose → Cast(float) → y: the Cast pair cancels around the
  // Transpose as around a computing node.
  onnx::ModelProto c = MakeModel(17);
  g = c.mutable_graph();
  FillValueInfo(g->add_input(), "x", kFloat, {4, 6});
  FillValueInfo(g->add_output(), "y", kFloat, {6, 4});
  AddIntAttribute(AddNode(g, "Cast", {"x"}, {"h"}, "to_half"), "to", kHalf);
  AddIntsAttribute(AddNode(g, "Transpose", {"h"}, {"t"}, "transpose"), "perm", {1, 0});
  AddIntAttribute(AddNode(g, "Cast", {"t"}, {"y"}, "to_float"), "to", kFloat);
  FillValueInfo(g->add_value_info(), "h", kHalf, {4, 6});
  FillValueInfo(g->add_value_info(), "t", kHalf, {6, 4});
  EXPECT_EQ(OpTypes(*Optimize(c, {"insert_cast"}).graph), std::vector<std::string>{"Transpose"});
}

TEST(InsertCast, SwitchedOffLeavesTheGraphAndFloat32ModelsAreUntouched) {
  ir::Model off = Optimize(ConvChainModel(), {});
  EXPECT_EQ(OpTypes(*off.graph), (std::vector<std::string>{"Conv", "Relu", "Reshape", "Softmax"}));
  onnx::ModelProto f = MakeModel(17);
  onnx::GraphProto* g = f.mutable_graph();
  FillValueInfo(g->add_input(), "x", kFloat, {4});
  FillValueInfo(g->add_output(), "y", kFloat, {4});
  AddNode(g, "Relu", {"x"}, {"y"}, "relu");
  ir::Model model = testing::Load(f);
  auto r = OptimizeModel(model, {2, {}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(OpTypes(*model.graph), std::vector<std::string>{"Relu"});
}

TEST(InsertCast, Float16ConstantsStillMatchTheGeluPattern) {
  // x · 0.5 · (1 + Erf(x / √2)) with √2 stored in float16 (1.4140625, 1.1e-4 from √2).
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", kHalf, {2, 9});
  FillValueInfo(g->add_output(), "y", kHalf, {2, 9});
  FillHalfTensor(g->add_initializer(), "sqrt2", {}, {1.41421356f});
  FillHalfTensor(g->add_initializer(), "one", {}, {1.0f});
  FillHalfTensor(g->add_initializer(), "half", {}, {0.5f});
  AddNode(g, "Div", {"x", "sqrt2"}, {"d"}, "div");
  AddNode(g, "Erf", {"d"}, {"e"}, "erf");
  AddNode(g, "Add", {"e", "one"}, {"a"}, "add");
  AddNode(g, "Mul", {"a", "half"}, {"h"}, "mul_half");
  AddNode(g, "Mul", {"x", "h"}, {"y"}, "mul_x");
  for (const char* v : {"d", "e", "a", "h"}) FillValueInfo(g->add_value_info(), v, kHalf, {2, 9});
  ir::Model model = Optimize(m, {"insert_cast", "gelu_fusion"});
  EXPECT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"Cast", "com.nxrt:Gelu", "Cast"}));
  auto session = Session::CreateFromBytes(Serialize(m));
  ASSERT_TRUE(session.ok()) << session.status().message();
  const Tensor x = ToHalf(RandomFloats({2, 9}, 13, -4, 4));
  auto y = (*session)->Run({{"x", x}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  for (int64_t i = 0; i < 18; ++i) {
    const double v = HalfAt(x, i);
    const double want = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    EXPECT_NEAR(HalfAt((*y)[0].tensor, i), want, 1e-3 * std::fabs(want) + 1e-4) << v;
  }
}

}  // namespace
}  // namespace nxrt::opt
