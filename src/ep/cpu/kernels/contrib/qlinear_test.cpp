// ep/cpu/kernels/contrib/qlinear_test.cpp: the com.microsoft quantized elementwise ops
// (QLinearAdd, QLinearMul, QLinearSigmoid, QLinearGlobalAveragePool, QLinearConcat) as one-node
// models against ONNX Runtime 1.30's CPU EP on random int8 and uint8 tensors with random scales
// and zero points (fixed seed), broadcasting shapes and both pooling layouts, at 1 and 2 threads.
// Shapes run from a few elements to a few hundred thousand with odd sizes, so the AVX2 loops'
// tails (not a multiple of 32) and the splits over threads are both exercised. ORT computes some
// of these with fixed-point or lookup arithmetic, so an element may differ by one quantization
// step; more is a failure.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/kernels/contrib/contrib_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

Tensor RandomQuantized(std::mt19937& rng, DataType type, const Shape& shape) {
  Tensor t = Tensor::Allocate(type, shape).value();
  for (int64_t i = 0; i < t.element_count(); ++i) {
    static_cast<uint8_t*>(t.mutable_raw_data())[i] = static_cast<uint8_t>(rng());
  }
  return t;
}

Tensor ZeroPoint(std::mt19937& rng, DataType type) {
  Tensor t = Tensor::Allocate(type, {}).value();
  const int v = static_cast<int>(rng() % 60) - 30;
  if (type == DataType::kInt8) {
    *t.mutable_data<int8_t>() = static_cast<int8_t>(v);
  } else {
    *t.mutable_data<uint8_t>() = static_cast<uint8_t>(v + 128);
  }
  return t;
}

Tensor Scale(std::mt19937& rng) {
  return Tensor::Scalar(static_cast<float>(0.01 + 0.2 * (rng() % 1000) / 1000.0));
}

int Element(const Tensor& t, int64_t i) {
  return t.dtype() == DataType::kInt8 ? t.data<int8_t>()[i] : t.data<uint8_t>()[i];
}

// Runs `model` in ORT and in nxrt at 1 and 2 threads; every element within one step of ORT's.
void ExpectWithinOneStep(const oracle::OrtOracle& ort, const cpu::testing::SingleOpModel& model,
                         const std::vector<NamedTensor>& feeds, const std::string& what) {
  Result<std::vector<Tensor>> want = RunOrt(ort, model, feeds);
  ASSERT_TRUE(want.ok()) << what << ": ORT: " << want.status().ToString();
  for (int threads : {1, 2}) {
    Result<std::vector<Tensor>> got = model.Run(AsWritten(threads));
    ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
    const Tensor &g = (*got)[0], &w = (*want)[0];
    ASSERT_EQ(g.shape(), w.shape()) << what;
    ASSERT_EQ(g.dtype(), w.dtype()) << what;
    for (int64_t i = 0; i < g.element_count(); ++i) {
      ASSERT_LE(std::abs(Element(g, i) - Element(w, i)), 1)
          << what << " at " << threads << " thread(s), element " << i << ": " << Element(g, i)
          << " vs ORT " << Element(w, i);
    }
  }
}

class QLinearVsOrt : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
    ASSERT_TRUE(ort.ok()) << ort.status().ToString();
    ort_.emplace(std::move(ort).value());
  }
  std::optional<oracle::OrtOracle> ort_;
  std::mt19937 rng_{2260};
};

TEST_F(QLinearVsOrt, AddAndMulBroadcast) {
  for (int iter = 0; iter < 16; ++iter) {
    const DataType type = iter % 2 == 0 ? DataType::kUint8 : DataType::kInt8;
    const Shape a_shape = {RandomInt(rng_, 1, 3), RandomInt(rng_, 1, 5), RandomInt(rng_, 1, 75)};
    Shape b_shape = a_shape;
    if (iter % 3 == 1) b_shape = {a_shape[2]};
    if (iter % 3 == 2) b_shape = {a_shape[0], 1, a_shape[2]};
    const Tensor a = RandomQuantized(rng_, type, a_shape), b = RandomQuantized(rng_, type, b_shape);
    const char* op = iter % 4 < 2 ? "QLinearAdd" : "QLinearMul";
    cpu::testing::SingleOpModel model(op, 1, "com.microsoft");
    model.AddInput(In(a)).AddInput(Const(Scale(rng_))).AddInput(Const(ZeroPoint(rng_, type)));
    model.AddInput(In(b)).AddInput(Const(Scale(rng_))).AddInput(Const(ZeroPoint(rng_, type)));
    model.AddInput(Const(Scale(rng_))).AddInput(Const(ZeroPoint(rng_, type)));
    model.AddOutput(type);
    ExpectWithinOneStep(*ort_, model, {{"x0", a}, {"x3", b}},
                        std::string(op) + " " + std::string(DataTypeName(type)) +
                            ShapeToString(a_shape) +
                            " with " + ShapeToString(b_shape));
  }
}

TEST_F(QLinearVsOrt, SigmoidGlobalAveragePoolAndConcat) {
  for (int iter = 0; iter < 18; ++iter) {
    const DataType type = iter % 2 == 0 ? DataType::kUint8 : DataType::kInt8;
    const int op = iter % 3;
    const Shape shape = {RandomInt(rng_, 1, 2), RandomInt(rng_, 1, 40), RandomInt(rng_, 1, 9),
                         RandomInt(rng_, 1, 9)};
    const Tensor x = RandomQuantized(rng_, type, shape);
    std::string what = std::string(DataTypeName(type)) + ShapeToString(shape);
    if (op == 0 || op == 1) {
      cpu::testing::SingleOpModel model(op == 0 ? "QLinearSigmoid" : "QLinearGlobalAveragePool",
                                        1, "com.microsoft");
      model.AddInput(In(x)).AddInput(Const(Scale(rng_))).AddInput(Const(ZeroPoint(rng_, type)));
      model.AddInput(Const(Scale(rng_))).AddInput(Const(ZeroPoint(rng_, type)));
      model.AddOutput(type);
      if (op == 1) model.AddAttribute(IntAttr("channels_last", iter % 4 == 1 ? 1 : 0));
      ExpectWithinOneStep(*ort_, model, {{"x0", x}}, (op == 0 ? "sigmoid " : "pool ") + what);
      continue;
    }
    const int64_t axis = RandomInt(rng_, 0, 3);
    Shape other = shape;
    other[static_cast<size_t>(axis)] = RandomInt(rng_, 1, 4);
    const Tensor x2 = RandomQuantized(rng_, type, other);
    cpu::testing::SingleOpModel model("QLinearConcat", 1, "com.microsoft");
    model.AddInput(Const(Scale(rng_))).AddInput(Const(ZeroPoint(rng_, type)));
    const Tensor same_scale = Scale(rng_);
    model.AddInput(In(x)).AddInput(Const(same_scale)).AddInput(Const(ZeroPoint(rng_, type)));
    model.AddInput(In(x2)).AddInput(Const(Scale(rng_))).AddInput(Const(ZeroPoint(rng_, type)));
    model.AddOutput(type).AddAttribute(IntAttr("axis", axis));
    ExpectWithinOneStep(*ort_, model, {{"x2", x}, {"x5", x2}},
                        "concat axis " + std::to_string(axis) + " " + what);
  }
}

// Outputs of a few hundred thousand elements (odd sizes), large enough to be split over 2 threads:
// same-shape and broadcast QLinearAdd/QLinearMul, QLinearSigmoid, QLinearGlobalAveragePool in both
// layouts and QLinearConcat with one input copied and one requantized.
TEST_F(QLinearVsOrt, LargeOddShapesSplitOverThreads) {
  for (int iter = 0; iter < 4; ++iter) {
    const DataType type = iter % 2 == 0 ? DataType::kUint8 : DataType::kInt8;
    const Shape shape = {3, 331, 337};
    const Tensor x = RandomQuantized(rng_, type, shape);
    const std::string what = std::string(DataTypeName(type)) + ShapeToString(shape);
    for (const char* op : {"QLinearAdd", "QLinearMul"}) {
      const Shape b_shape = iter < 2 ? shape : Shape{331, 1};
      const Tensor b = RandomQuantized(rng_, type, b_shape);
      cpu::testing::SingleOpModel model(op, 1, "com.microsoft");
      model.AddInput(In(x)).AddInput(Const(Scale(rng_))).AddInput(Const(ZeroPoint(rng_, type)));
      model.AddInput(In(b)).AddInput(Const(Scale(rng_))).AddInput(Const(ZeroPoint(rng_, type)));
      model.AddInput(Const(Scale(rng_))).AddInput(Const(ZeroPoint(rng_, type)));
      model.AddOutput(type);
      ExpectWithinOneStep(*ort_, model, {{"x0", x}, {"x3", b}},
                          std::string(op) + " " + what + " with " + ShapeToString(b_shape));
    }
    for (const char* op : {"QLinearSigmoid", "QLinearGlobalAveragePool"}) {
      cpu::testing::SingleOpModel model(op, 1, "com.microsoft");
      model.AddInput(In(x)).AddInput(Const(Scale(rng_))).AddInput(Const(ZeroPoint(rng_, type)));
      model.AddInput(Const(Scale(rng_))).AddInput(Const(ZeroPoint(rng_, type)));
      model.AddOutput(type);
      if (std::string(op) == "QLinearGlobalAveragePool") {
        model.AddAttribute(IntAttr("channels_last", iter / 2));
      }
      ExpectWithinOneStep(*ort_, model, {{"x0", x}}, std::string(op) + " " + what);
    }
    if (iter < 2) {
      // Two million elements: QLinearGlobalAveragePool's shares (of a copy loop's size) split
      // between and within images.
      const Shape big = {2, 1031, 1033};
      const Tensor x_big = RandomQuantized(rng_, type, big);
      cpu::testing::SingleOpModel model("QLinearGlobalAveragePool", 1, "com.microsoft");
      model.AddInput(In(x_big)).AddInput(Const(Scale(rng_)));
      model.AddInput(Const(ZeroPoint(rng_, type))).AddInput(Const(Scale(rng_)));
      model.AddInput(Const(ZeroPoint(rng_, type))).AddOutput(type);
      model.AddAttribute(IntAttr("channels_last", iter));
      ExpectWithinOneStep(*ort_, model, {{"x0", x_big}},
                          "QLinearGlobalAveragePool " + ShapeToString(big));
    }
    const Tensor x2 = RandomQuantized(rng_, type, {3, 101, 337});
    cpu::testing::SingleOpModel model("QLinearConcat", 1, "com.microsoft");
    const Tensor y_scale = Scale(rng_), y_zero_point = ZeroPoint(rng_, type);
    model.AddInput(Const(y_scale)).AddInput(Const(y_zero_point));
    model.AddInput(In(x)).AddInput(Const(y_scale)).AddInput(Const(y_zero_point));
    model.AddInput(In(x2)).AddInput(Const(Scale(rng_))).AddInput(Const(ZeroPoint(rng_, type)));
    model.AddOutput(type).AddAttribute(IntAttr("axis", 1));
    ExpectWithinOneStep(*ort_, model, {{"x2", x}, {"x5", x2}}, "QLinearConcat " + what);
  }
}

// ORT has no MatMulIntegerToFloat for int8 A with uint8 B. Weights take their whole range: ORT's
// uint8 x int8 products on AVX2 saturate pairs of products in 16 bits (MLAS's u8s8 kernel), and so
// must nxrt's. Some shapes are large enough to be split over 2 threads; the b scale and zero
// point are per tensor or per column independently.
TEST_F(QLinearVsOrt, MatMulIntegerToFloatAndDynamicQuantizeMatMulMatch) {
  for (int iter = 0; iter < 20; ++iter) {
    const bool dynamic = iter % 2 == 1;
    const DataType a_type = iter % 4 < 2 ? DataType::kUint8 : DataType::kInt8;
    const DataType b_type =
        iter % 3 == 0 && (dynamic || a_type == DataType::kUint8) ? DataType::kUint8
                                                                 : DataType::kInt8;
    const bool large = iter >= 16;
    const int64_t k = large ? RandomInt(rng_, 200, 300) : RandomInt(rng_, 1, 40);
    const int64_t n = large ? RandomInt(rng_, 300, 400) : RandomInt(rng_, 1, 23);
    const Shape a_shape = {RandomInt(rng_, 1, 2),
                           large ? RandomInt(rng_, 60, 90) : RandomInt(rng_, 1, 5), k};
    const bool per_column = iter % 5 < 3, with_zero_points = iter % 3 != 2, bias = iter % 4 == 1;
    const bool zero_point_per_column = iter % 7 < 4 ? per_column : !per_column;
    Tensor b = RandomQuantized(rng_, b_type, {k, n});
    // Runs of the extreme weights, where the pairs saturate.
    for (int64_t i = 0; i + 1 < b.element_count(); i += 13) {
      static_cast<uint8_t*>(b.mutable_raw_data())[i] = b_type == DataType::kInt8 ? 0x80 : 0xFF;
      static_cast<uint8_t*>(b.mutable_raw_data())[i + 1] = b_type == DataType::kInt8 ? 0x80 : 0xFF;
    }
    const Tensor b_scale = RandomFloats(rng_, per_column ? Shape{n} : Shape{}, 0.001, 0.05);
    Tensor b_zp = Tensor::Allocate(b_type, zero_point_per_column ? Shape{n} : Shape{}).value();
    for (int64_t j = 0; j < b_zp.element_count(); ++j) {
      Tensor one = ZeroPoint(rng_, b_type);
      std::memcpy(static_cast<uint8_t*>(b_zp.mutable_raw_data()) + j, one.raw_data(), 1);
    }
    const Tensor bias_t = RandomFloats(rng_, {n}, -1, 1);
    cpu::testing::SingleOpModel model(dynamic ? "DynamicQuantizeMatMul" : "MatMulIntegerToFloat",
                                      1, "com.microsoft");
    Tensor a;
    if (dynamic) {
      a = RandomFloats(rng_, a_shape, -2, 3);
      model.AddInput(In(a)).AddInput(Const(b)).AddInput(Const(b_scale));
      model.AddInput(with_zero_points ? Const(b_zp) : cpu::testing::Omitted());
    } else {
      a = RandomQuantized(rng_, a_type, a_shape);
      // Runs of 255 in A meet the extreme weights.
      if (a_type == DataType::kUint8) {
        for (int64_t i = 0; i < a.element_count(); i += 3) a.mutable_data<uint8_t>()[i] = 255;
      }
      model.AddInput(In(a)).AddInput(Const(b)).AddInput(Const(Scale(rng_)));
      model.AddInput(Const(b_scale));
      model.AddInput(with_zero_points ? Const(ZeroPoint(rng_, a_type)) : cpu::testing::Omitted());
      model.AddInput(with_zero_points ? Const(b_zp) : cpu::testing::Omitted());
    }
    if (bias) model.AddInput(Const(bias_t));
    model.AddOutput(DataType::kFloat);
    for (int threads : {1, 2}) {
      ExpectMatchesOrt(*ort_, model, {{"x0", a}}, 1e-6,
                       std::string(dynamic ? "dynamic " : "") + ShapeToString(a_shape) + " x [" +
                           std::to_string(k) + "," + std::to_string(n) + "]" +
                           (per_column ? " scale per column" : "") +
                           (with_zero_points ? " zero points" : "") +
                           (zero_point_per_column ? " per column" : "") + (bias ? " bias" : "") +
                           " at " + std::to_string(threads) + " thread(s)",
                       AsWritten(threads));
    }
  }
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
