// ep/cpu/kernels/elementwise/elementwise_test.cpp: the elementwise family run through the session
// as one-node models, against the math library's reference on random shapes with fixed seeds.
//
// Layer: tests of nxrt_ep_cpu (testing/single_op_model.h). Every op of binary_kinds.inc and
// unary_kinds.inc runs on every dtype the math accepts; then the ops with opset-dependent forms
// (Clip, Dropout), Cast/CastLike over all type pairs, large inputs split over threads, and named
// negative cases checking the messages.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "ep/cpu/math/elementwise/binary.h"
#include "ep/cpu/math/elementwise/cast.h"
#include "ep/cpu/math/elementwise/unary.h"
#include "ep/cpu/math/elementwise/where.h"
#include "ep/cpu/math/testing/test_util.h"
#include "ep/cpu/testing/expect_tensor.h"
#include "ep/cpu/testing/single_op_model.h"
#include "nxrt/session.h"
#include "onnx/onnx_pb.h"

namespace nxrt::cpu {
namespace {

using math::BinaryKind;
using math::UnaryKind;
using math::testing::BroadcastableTo;
using math::testing::IsFloatType;
using math::testing::IsSignedType;
using math::testing::RandomShape;
using math::testing::RandomTensor;
using testing::ExpectSameTensor;
using testing::Initializer;
using testing::Input;
using testing::Omitted;
using testing::SingleOpModel;

constexpr int64_t kOpset = 21;

std::vector<BinaryKind> AllBinaryKinds() {
  return {
#define NXRT_BINARY_KIND(name) BinaryKind::k##name,
#include "ep/cpu/math/elementwise/binary_kinds.inc"
#undef NXRT_BINARY_KIND
  };
}

std::vector<UnaryKind> AllUnaryKinds() {
  return {
#define NXRT_UNARY_KIND(name, functor, types, out) UnaryKind::k##name,
#include "ep/cpu/math/elementwise/unary_kinds.inc"
#undef NXRT_UNARY_KIND
  };
}

std::vector<DataType> NumericAndBool() {
  std::vector<DataType> types = math::testing::AllNumericTypes();
  types.push_back(DataType::kBool);
  return types;
}

// Random values of `type` over [lo, hi] (bool: 0/1); floats also get a NaN and an infinity.
Tensor Values(std::mt19937_64& rng, DataType type, const Shape& shape, double lo, double hi) {
  if (type == DataType::kBool) {
    lo = 0;
    hi = 1;
  }
  Tensor t = RandomTensor(rng, type, shape, lo, hi);
  if (IsFloatType(type) && t.element_count() > 8) {
    math::testing::SetValue(&t, 3, std::numeric_limits<double>::quiet_NaN(), 0);
    math::testing::SetValue(&t, 5, std::numeric_limits<double>::infinity(), 0);
  }
  return t;
}

std::string Case(std::string_view op, DataType type, const Shape& a, const Shape& b) {
  return std::string(op) + " " + std::string(DataTypeName(type)) + " " + ShapeToString(a) +
         " " + ShapeToString(b);
}

// Runs `model` and expects its single output to equal `expected`.
void ExpectRunsTo(const SingleOpModel& model, const Tensor& expected, const std::string& where,
                  const SessionOptions& options = {}) {
  Result<std::vector<Tensor>> outputs = model.Run(options);
  ASSERT_TRUE(outputs.ok()) << where << ": " << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), 1u) << where;
  ExpectSameTensor(expected, outputs->front(), where);
}

TEST(ElementwiseKernelsTest, BinaryOpsMatchTheReference) {
  std::mt19937_64 rng(20240601);
  int cases = 0;
  for (BinaryKind kind : AllBinaryKinds()) {
    const std::string op(math::BinaryKindName(kind));
    for (DataType type : NumericAndBool()) {
      if (!math::PrepareBinary(kind, type, {1}, type, {1}).ok()) continue;
      for (int c = 0; c < 3; ++c) {
        const Shape out = RandomShape(rng, 0, 4, c == 2 ? 0 : 1, 5);
        const Shape a_shape = kind == BinaryKind::kPRelu ? out : BroadcastableTo(rng, out);
        const Shape b_shape = BroadcastableTo(rng, out);
        const bool small = kind == BinaryKind::kPow || kind == BinaryKind::kBitShift;
        const double lo = IsSignedType(type) ? (small ? -3 : -20) : 0;
        const double hi = small ? 9 : 40;
        Tensor a = Values(rng, type, a_shape, lo, hi);
        Tensor b = Values(rng, type, b_shape, lo, hi);
        math::BinaryAttrs attrs;
        SingleOpModel model(op, kOpset);
        if (kind == BinaryKind::kMod) {
          attrs.fmod = IsFloatType(type) || c == 1;
          model.AddAttribute(testing::IntAttr("fmod", attrs.fmod ? 1 : 0));
        }
        if (kind == BinaryKind::kBitShift) {
          attrs.shift_left = c != 1;
          model.AddAttribute(testing::StringAttr("direction", attrs.shift_left ? "LEFT" : "RIGHT"));
        }
        Tensor expected;
        ASSERT_TRUE(math::Binary(kind, a, b, &expected, attrs).ok());
        model.AddInput(Input(a)).AddInput(Input(b)).AddOutput(expected.dtype());
        if (!model.CpuSupports().supported()) break;  // a type the op's schema lacks
        ExpectRunsTo(model, expected, Case(op, type, a_shape, b_shape));
        ++cases;
      }
    }
  }
  EXPECT_GE(cases, 450);  // 21 ops, most on 12 numeric types, 3 cases each
}

TEST(ElementwiseKernelsTest, PowTakesAnExponentOfAnotherType) {
  std::mt19937_64 rng(7);
  Tensor base = RandomTensor(rng, DataType::kFloat, {3, 4}, -3, 3);
  Tensor exponent = RandomTensor(rng, DataType::kInt64, {4}, -2, 3);
  Tensor expected;
  ASSERT_TRUE(math::Binary(BinaryKind::kPow, base, exponent, &expected).ok());
  SingleOpModel model("Pow", 15);
  model.AddInput(Input(base)).AddInput(Initializer(exponent)).AddOutput(DataType::kFloat);
  ExpectRunsTo(model, expected, "Pow float^int64");
}

TEST(ElementwiseKernelsTest, LegacyBroadcastAlignsBFromTheAxis) {
  std::mt19937_64 rng(6);
  Tensor a = RandomTensor(rng, DataType::kFloat, {2, 3, 4}, -3, 3);
  Tensor b = RandomTensor(rng, DataType::kFloat, {3}, -3, 3);
  Tensor expected;
  ASSERT_TRUE(math::Binary(BinaryKind::kMul, a, b.Reshaped({3, 1}).value(), &expected).ok());
  ExpectRunsTo(SingleOpModel("Mul", 6)
                   .AddAttribute(testing::IntAttr("broadcast", 1))
                   .AddAttribute(testing::IntAttr("axis", 1))
                   .AddInput(Input(a))
                   .AddInput(Input(b))
                   .AddOutput(DataType::kFloat),
               expected, "Mul-6 broadcast axis 1");
  // Without `axis`, legacy broadcasting aligns the trailing dims, as NumPy does.
  Tensor c = RandomTensor(rng, DataType::kFloat, {4}, -3, 3);
  ASSERT_TRUE(math::Binary(BinaryKind::kSub, a, c, &expected).ok());
  ExpectRunsTo(SingleOpModel("Sub", 6)
                   .AddAttribute(testing::IntAttr("broadcast", 1))
                   .AddInput(Input(a))
                   .AddInput(Input(c))
                   .AddOutput(DataType::kFloat),
               expected, "Sub-6 broadcast");
  // PRelu-6: a 1-D slope with one value per channel (dim 1).
  ASSERT_TRUE(math::Binary(BinaryKind::kPRelu, a, b.Reshaped({3, 1}).value(), &expected).ok());
  ExpectRunsTo(SingleOpModel("PRelu", 6)
                   .AddInput(Input(a))
                   .AddInput(Initializer(b))
                   .AddOutput(DataType::kFloat),
               expected, "PRelu-6 per channel");
  SingleOpModel misfit("Add", 6);
  misfit.AddAttribute(testing::IntAttr("broadcast", 1))
      .AddAttribute(testing::IntAttr("axis", 3))
      .AddInput(Input(a))
      .AddInput(Input(b))
      .AddOutput(DataType::kFloat);
  Result<std::vector<Tensor>> outputs = misfit.Run();
  ASSERT_FALSE(outputs.ok());
  EXPECT_NE(outputs.status().message().find(
                "attribute 'axis' is 3: input 1 of shape [3] does not fit input 0 of shape "
                "[2,3,4] from that axis"),
            std::string::npos)
      << outputs.status().message();
}

TEST(ElementwiseKernelsTest, VariadicOpsMatchTheReference) {
  std::mt19937_64 rng(99);
  const std::pair<const char*, math::VariadicKind> ops[] = {{"Max", math::VariadicKind::kMax},
                                                            {"Min", math::VariadicKind::kMin},
                                                            {"Sum", math::VariadicKind::kSum},
                                                            {"Mean", math::VariadicKind::kMean}};
  for (auto [op, kind] : ops) {
    for (DataType type : {DataType::kFloat, DataType::kDouble, DataType::kFloat16,
                          DataType::kInt32, DataType::kUint8}) {
      if (!math::PrepareVariadic(kind, type, std::vector<Shape>{{1}}).ok()) continue;
      for (int count = 1; count <= 4; ++count) {
        const Shape out = RandomShape(rng, 1, 4, 1, 5);
        std::vector<Tensor> inputs;
        SingleOpModel model(op, kOpset);
        for (int i = 0; i < count; ++i) {
          inputs.push_back(Values(rng, type, BroadcastableTo(rng, out), 0, 50));
          model.AddInput(Input(inputs.back()));
        }
        Tensor expected;
        ASSERT_TRUE(math::Variadic(kind, inputs, &expected).ok());
        model.AddOutput(type);
        if (!model.CpuSupports().supported()) break;  // a type the op's schema lacks
        // The float16 kernel itself, which rounds after each input: by default the session runs
        // float16 Sum and Mean in float32 (optimizer pass insert_cast), rounding once.
        SessionOptions kernel_itself;
        kernel_itself.disabled_optimizers = {"insert_cast"};
        ExpectRunsTo(model, expected, std::string(op) + " of " + std::to_string(count),
                     kernel_itself);
      }
    }
  }
}

TEST(ElementwiseKernelsTest, WhereSelectsEveryType) {
  std::mt19937_64 rng(5);
  std::vector<DataType> types = NumericAndBool();
  types.push_back(DataType::kString);
  for (DataType type : types) {
    const Shape out = RandomShape(rng, 1, 3, 1, 4);
    Tensor condition = RandomTensor(rng, DataType::kBool, BroadcastableTo(rng, out), 0, 1);
    Tensor x;
    Tensor y;
    if (type == DataType::kString) {
      Tensor xf = RandomTensor(rng, DataType::kFloat, BroadcastableTo(rng, out), -9, 9);
      Tensor yf = RandomTensor(rng, DataType::kFloat, BroadcastableTo(rng, out), -9, 9);
      ASSERT_TRUE(math::Cast(xf, DataType::kString, &x).ok());
      ASSERT_TRUE(math::Cast(yf, DataType::kString, &y).ok());
    } else {
      x = Values(rng, type, BroadcastableTo(rng, out), 0, 9);
      y = Values(rng, type, BroadcastableTo(rng, out), 0, 9);
    }
    Tensor expected;
    ASSERT_TRUE(math::Where(condition, x, y, &expected).ok());
    SingleOpModel model("Where", kOpset);
    model.AddInput(Input(condition)).AddInput(Input(x)).AddInput(Input(y)).AddOutput(type);
    ExpectRunsTo(model, expected, "Where " + std::string(DataTypeName(type)));
  }
}

TEST(ElementwiseKernelsTest, UnaryOpsMatchTheReference) {
  std::mt19937_64 rng(31337);
  int cases = 0;
  for (UnaryKind kind : AllUnaryKinds()) {
    const std::string op(math::UnaryKindName(kind));
    // Non-default attributes where the op has any, so the kernel must read them.
    math::UnaryAttrs attrs = math::DefaultUnaryAttrs(kind);
    std::vector<AttributeValue> attributes;
    const auto set_float = [&](const char* name, float* field, float value) {
      *field = value;
      attributes.push_back(testing::FloatAttr(name, value));
    };
    if (kind == UnaryKind::kLeakyRelu || kind == UnaryKind::kElu || kind == UnaryKind::kCelu ||
        kind == UnaryKind::kThresholdedRelu || kind == UnaryKind::kHardSigmoid ||
        kind == UnaryKind::kSelu) {
      set_float("alpha", &attrs.alpha, 0.37f);
    }
    if (kind == UnaryKind::kHardSigmoid) set_float("beta", &attrs.beta, 0.61f);
    if (kind == UnaryKind::kSelu) set_float("gamma", &attrs.gamma, 1.3f);
    if (kind == UnaryKind::kShrink) {
      set_float("lambd", &attrs.lambd, 1.5f);
      set_float("bias", &attrs.bias, 0.25f);
    }
    if (kind == UnaryKind::kGelu) {
      attrs.gelu_tanh = true;
      attributes.push_back(testing::StringAttr("approximate", "tanh"));
    }
    if (kind == UnaryKind::kIsInf) {
      attrs.detect_negative = false;
      attributes.push_back(testing::IntAttr("detect_negative", 0));
    }
    for (DataType type : NumericAndBool()) {
      if (!math::PrepareUnary(kind, type, attrs).ok()) continue;
      const Shape shape = RandomShape(rng, 0, 4, 1, 6);
      Tensor x = Values(rng, type, shape, IsSignedType(type) ? -4 : 0, 4);
      Tensor expected;
      ASSERT_TRUE(math::Unary(kind, x, &expected, attrs).ok());
      SingleOpModel model(op, kOpset);
      for (const AttributeValue& attribute : attributes) model.AddAttribute(attribute);
      model.AddInput(Input(x)).AddOutput(expected.dtype());
      if (!model.CpuSupports().supported()) continue;  // a type the op's schema lacks
      ExpectRunsTo(model, expected, op + " " + std::string(DataTypeName(type)));
      ++cases;
    }
  }
  EXPECT_GE(cases, 120);  // 41 ops, most on float16, float and double
}

TEST(ElementwiseKernelsTest, ClipTakesAttributesBeforeOpset11AndInputsAfter) {
  std::mt19937_64 rng(11);
  Tensor x = Values(rng, DataType::kFloat, {4, 5}, -10, 10);
  const float lo = -2.5f;
  const float hi = 3.0f;
  const Tensor lo_t = Tensor::Scalar(lo);
  const Tensor hi_t = Tensor::Scalar(hi);
  for (int form = 0; form < 4; ++form) {
    const bool has_min = form & 1;
    const bool has_max = form & 2;
    Tensor expected;
    ASSERT_TRUE(math::Clip(x, has_min ? &lo_t : nullptr, has_max ? &hi_t : nullptr, &expected)
                    .ok());
    SingleOpModel attrs_model("Clip", 6);
    if (has_min) attrs_model.AddAttribute(testing::FloatAttr("min", lo));
    if (has_max) attrs_model.AddAttribute(testing::FloatAttr("max", hi));
    attrs_model.AddInput(Input(x)).AddOutput(DataType::kFloat);
    ExpectRunsTo(attrs_model, expected, "Clip-6 form " + std::to_string(form));

    SingleOpModel inputs_model("Clip", 13);
    inputs_model.AddInput(Input(x))
        .AddInput(has_min ? Input(lo_t) : Omitted())
        .AddInput(has_max ? Initializer(hi_t) : Omitted())
        .AddOutput(DataType::kFloat);
    ExpectRunsTo(inputs_model, expected, "Clip-13 form " + std::to_string(form));
  }
  Tensor ints = Values(rng, DataType::kInt8, {7}, -100, 100);
  const Tensor lo8 = Tensor::Scalar<int8_t>(-5);
  Tensor expected;
  ASSERT_TRUE(math::Clip(ints, &lo8, nullptr, &expected).ok());
  SingleOpModel model("Clip", 13);
  model.AddInput(Input(ints)).AddInput(Input(lo8)).AddOutput(DataType::kInt8);
  ExpectRunsTo(model, expected, "Clip-13 int8");
}

TEST(ElementwiseKernelsTest, CastAndCastLikeConvertEveryTypePair) {
  std::mt19937_64 rng(3);
  std::vector<DataType> types = NumericAndBool();
  types.push_back(DataType::kString);
  for (DataType from : types) {
    Tensor x;
    if (from == DataType::kString) {
      Tensor source = RandomTensor(rng, DataType::kInt32, {2, 3}, -100, 100);
      ASSERT_TRUE(math::Cast(source, DataType::kString, &x).ok());
    } else {
      x = Values(rng, from, {2, 3}, IsSignedType(from) ? -100 : 0, 200);
    }
    for (DataType to : types) {
      Tensor expected;
      ASSERT_TRUE(math::Cast(x, to, &expected).ok());
      const std::string where =
          std::string(DataTypeName(from)) + " to " + std::string(DataTypeName(to));
      SingleOpModel cast("Cast", kOpset);
      cast.AddAttribute(testing::IntAttr("to", static_cast<int64_t>(to)));
      cast.AddInput(Input(x)).AddOutput(to);
      ExpectRunsTo(cast, expected, "Cast " + where);
      SingleOpModel cast_like("CastLike", kOpset);
      cast_like.AddInput(Input(x)).AddInput(Input(Tensor::Allocate(to, {1}).value()));
      cast_like.AddOutput(to);
      ExpectRunsTo(cast_like, expected, "CastLike " + where);
    }
  }
}

TEST(ElementwiseKernelsTest, IdentityAndDropoutCopy) {
  std::mt19937_64 rng(8);
  Tensor x = Values(rng, DataType::kFloat, {3, 5}, -1, 1);
  ExpectRunsTo(SingleOpModel("Identity", kOpset).AddInput(Input(x)).AddOutput(DataType::kFloat),
               x, "Identity");
  Tensor words;
  ASSERT_TRUE(math::Cast(x, DataType::kString, &words).ok());
  ExpectRunsTo(
      SingleOpModel("Identity", kOpset).AddInput(Input(words)).AddOutput(DataType::kString),
      words, "Identity string");

  Tensor true_mask = Tensor::Allocate(DataType::kBool, {3, 5}).value();
  for (int64_t i = 0; i < 15; ++i) true_mask.mutable_data<bool>()[i] = true;
  SingleOpModel dropout13("Dropout", 13);
  dropout13.AddInput(Input(x))
      .AddInput(Initializer(Tensor::Scalar(0.5f)))
      .AddInput(Initializer(Tensor::Scalar(false)))
      .AddOutput(DataType::kFloat)
      .AddOutput(DataType::kBool);
  Result<std::vector<Tensor>> outputs = dropout13.Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ExpectSameTensor(x, (*outputs)[0], "Dropout-13 output");
  ExpectSameTensor(true_mask, (*outputs)[1], "Dropout-13 mask");

  SingleOpModel dropout7("Dropout", 7);
  dropout7.AddAttribute(testing::FloatAttr("ratio", 0.2f));
  dropout7.AddInput(Input(x)).AddOutput(DataType::kFloat).AddOutput(DataType::kFloat);
  outputs = dropout7.Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ExpectSameTensor(x, (*outputs)[0], "Dropout-7 output");
  Tensor ones = Tensor::Allocate(DataType::kFloat, {3, 5}).value();
  for (int64_t i = 0; i < 15; ++i) ones.mutable_data<float>()[i] = 1.0f;
  ExpectSameTensor(ones, (*outputs)[1], "Dropout-7 mask");
}

TEST(ElementwiseKernelsTest, LargeInputsSplitOverThreadsGiveTheSameResult) {
  std::mt19937_64 rng(2);
  SessionOptions options;
  options.intra_op_threads = 4;
  Tensor a = RandomTensor(rng, DataType::kFloat, {96, 1024}, -5, 5);
  Tensor b = RandomTensor(rng, DataType::kFloat, {1024}, -5, 5);
  Tensor sum;
  ASSERT_TRUE(math::Binary(BinaryKind::kAdd, a, b, &sum).ok());
  ExpectRunsTo(SingleOpModel("Add", kOpset).AddInput(Input(a)).AddInput(Input(b)).AddOutput(
                   DataType::kFloat),
               sum, "large Add", options);
  Tensor tanh;
  ASSERT_TRUE(math::Unary(UnaryKind::kTanh, a, &tanh).ok());
  ExpectRunsTo(SingleOpModel("Tanh", kOpset).AddInput(Input(a)).AddOutput(DataType::kFloat),
               tanh, "large Tanh", options);
  // The vectorised float loops of fast_math.h at 1 and 2 threads, on an odd length (vector tails
  // at each range's end) with NaN and the infinities inside the ranges.
  Tensor odd = RandomTensor(rng, DataType::kFloat, {3, 20011}, -1.2, 1.2);
  for (int64_t i : {7, 20011, 40000}) {
    math::testing::SetValue(&odd, i, std::numeric_limits<double>::quiet_NaN(), 0);
    math::testing::SetValue(&odd, i + 1, std::numeric_limits<double>::infinity(), 0);
    math::testing::SetValue(&odd, i + 2, -std::numeric_limits<double>::infinity(), 0);
  }
  for (UnaryKind kind : {UnaryKind::kExp, UnaryKind::kAtan, UnaryKind::kAsin, UnaryKind::kAcos,
                         UnaryKind::kSqrt, UnaryKind::kIsInf, UnaryKind::kElu, UnaryKind::kSelu,
                         UnaryKind::kCelu, UnaryKind::kHardSwish, UnaryKind::kLog,
                         UnaryKind::kSin, UnaryKind::kCos, UnaryKind::kTan, UnaryKind::kSinh,
                         UnaryKind::kCosh, UnaryKind::kSoftplus}) {
    Tensor expected;
    ASSERT_TRUE(math::Unary(kind, odd, &expected).ok());
    const std::string op(math::UnaryKindName(kind));
    for (int threads : {1, 2}) {
      SessionOptions at;
      at.intra_op_threads = threads;
      ExpectRunsTo(SingleOpModel(op, kOpset).AddInput(Input(odd)).AddOutput(expected.dtype()),
                   expected, op + " at " + std::to_string(threads) + " thread(s)", at);
    }
  }
  // Where's masked pick over broadcast parts cut for the threads: a row of conditions against
  // the odd-length planes and a scalar Y.
  Tensor condition = RandomTensor(rng, DataType::kBool, {20011}, 0, 1);
  Tensor scalar = RandomTensor(rng, DataType::kFloat, {}, -1, 1);
  Tensor picked;
  ASSERT_TRUE(math::Where(condition, odd, scalar, &picked).ok());
  Tensor slopes = RandomTensor(rng, DataType::kFloat, {20011}, -1, 1);
  Tensor prelu;
  ASSERT_TRUE(math::Binary(BinaryKind::kPRelu, odd, slopes, &prelu).ok());
  for (int threads : {1, 2}) {
    SessionOptions at;
    at.intra_op_threads = threads;
    ExpectRunsTo(SingleOpModel("Where", kOpset)
                     .AddInput(Input(condition))
                     .AddInput(Input(odd))
                     .AddInput(Input(scalar))
                     .AddOutput(DataType::kFloat),
                 picked, "Where at " + std::to_string(threads) + " thread(s)", at);
    ExpectRunsTo(SingleOpModel("PRelu", kOpset)
                     .AddInput(Input(odd))
                     .AddInput(Input(slopes))
                     .AddOutput(DataType::kFloat),
                 prelu, "PRelu at " + std::to_string(threads) + " thread(s)", at);
  }
  Tensor half;
  ASSERT_TRUE(math::Cast(a, DataType::kFloat16, &half).ok());
  SingleOpModel cast("Cast", kOpset);
  cast.AddAttribute(testing::IntAttr("to", static_cast<int64_t>(DataType::kFloat16)));
  ExpectRunsTo(cast.AddInput(Input(a)).AddOutput(DataType::kFloat16), half, "large Cast",
               options);
}

TEST(ElementwiseKernelsTest, ShapesThatDoNotBroadcastNameNodeAndShapes) {
  SingleOpModel model("Add", kOpset);
  model.AddInput(Input(Tensor::Allocate(DataType::kFloat, {2, 3}).value()))
      .AddInput(Input(Tensor::Allocate(DataType::kFloat, {4}).value()))
      .AddOutput(DataType::kFloat);
  Result<std::vector<Tensor>> outputs = model.Run();
  ASSERT_FALSE(outputs.ok());
  const std::string message = outputs.status().message();
  EXPECT_NE(message.find("node 'node' (Add, opset 21)"), std::string::npos) << message;
  EXPECT_NE(message.find("cannot broadcast [2,3] with [4] (dim -1: 3 vs 4)"), std::string::npos)
      << message;
}

// Dropout-12+ in training mode with a ratio above 0 is tested with the random family
// (kernels/random/random_test.cpp).
TEST(ElementwiseKernelsTest, DropoutInTrainingModeWithRatioZeroIsACopy) {
  Tensor x = Tensor::FromVector<float>({2}, {1.5f, -2.0f}).value();
  SingleOpModel zero_ratio("Dropout", 13);
  zero_ratio.AddInput(Input(x))
      .AddInput(Initializer(Tensor::Scalar(0.0f)))
      .AddInput(Input(Tensor::Scalar(true)))
      .AddOutput(DataType::kFloat);
  ExpectRunsTo(zero_ratio, x, "Dropout-13 training with ratio 0");
}

TEST(ElementwiseKernelsTest, ClipBoundOfAnotherTypeIsRefusedWithBothTypes) {
  SingleOpModel model("Clip", 13);
  model.AddInput(Input(Tensor::Allocate(DataType::kFloat, {2}).value()))
      .AddInput(Input(Tensor::Scalar(1.0)))
      .AddOutput(DataType::kFloat);
  // Refused at load, as ONNX Runtime 1.30 does ("Type parameter (T) ... bound to different
  // types").
  Result<std::vector<Tensor>> outputs = model.Run();
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), StatusCode::kInvalidModel);
  EXPECT_NE(outputs.status().message().find(
                "(Clip, opset 13): input 1 'x1' has type tensor(double) but input 0 'x0' has type "
                "tensor(float); both are of type parameter T"),
            std::string::npos)
      << outputs.status().message();
}

// Issue 6: the integer edge cases of Div and Mod, values from the ONNX definitions.
template <typename T>
Tensor Ints(std::vector<T> values) {
  return Tensor::FromVector<T>({static_cast<int64_t>(values.size())}, values).value();
}

template <typename T>
std::vector<T> RunBinaryInts(const char* op, std::vector<T> a, std::vector<T> b,
                             std::vector<AttributeValue> attributes = {}) {
  SingleOpModel model(op, kOpset);
  for (const AttributeValue& attribute : attributes) model.AddAttribute(attribute);
  model.AddInput(Input(Ints<T>(a))).AddInput(Input(Ints<T>(b)));
  model.AddOutput(Ints<T>(a).dtype());
  Result<std::vector<Tensor>> outputs = model.Run();
  EXPECT_TRUE(outputs.ok()) << op << ": " << outputs.status().ToString();
  if (!outputs.ok()) return {};
  const Tensor& y = outputs->front();
  return std::vector<T>(y.data<T>(), y.data<T>() + y.element_count());
}

TEST(ElementwiseKernelsTest, Issue6IntegerDivTruncatesTowardZero) {
  EXPECT_EQ(RunBinaryInts<int32_t>("Div", {8, -8, 7, -7}, {-3, 3, -2, 2}),
            (std::vector<int32_t>{-2, -2, -3, -3}));
  EXPECT_EQ(RunBinaryInts<int64_t>("Div", {8, -8, 7, -7}, {-3, 3, -2, 2}),
            (std::vector<int64_t>{-2, -2, -3, -3}));
  EXPECT_EQ(RunBinaryInts<int8_t>("Div", {8, -8, 7, -7}, {-3, 3, -2, 2}),
            (std::vector<int8_t>{-2, -2, -3, -3}));
}

// fmod=0 is Python's % (the result takes the divisor's sign); fmod=1 is C's fmod (the
// dividend's). The ONNX mod_mixed_sign cases.
TEST(ElementwiseKernelsTest, Issue6ModWithFmod0TakesTheDivisorsSign) {
  const std::vector<int32_t> x = {-4, 7, 5, 4, -7, 8};
  const std::vector<int32_t> y = {2, -3, 8, -2, 3, 5};
  EXPECT_EQ(RunBinaryInts<int32_t>("Mod", x, y, {testing::IntAttr("fmod", 0)}),
            (std::vector<int32_t>{0, -2, 5, 0, 2, 3}));
  EXPECT_EQ(RunBinaryInts<int32_t>("Mod", x, y, {testing::IntAttr("fmod", 1)}),
            (std::vector<int32_t>{0, 1, 5, 0, -1, 3}));
  const std::vector<int64_t> x64(x.begin(), x.end());
  const std::vector<int64_t> y64(y.begin(), y.end());
  EXPECT_EQ(RunBinaryInts<int64_t>("Mod", x64, y64), (std::vector<int64_t>{0, -2, 5, 0, 2, 3}));
}

// INT_MIN / -1 overflows; x86's idiv traps on it. The result wraps to INT_MIN (two's complement,
// NumPy's answer) and the remainder is 0.
template <typename T>
void ExpectMinOverMinusOneDoesNotTrap() {
  const T lowest = std::numeric_limits<T>::min();
  EXPECT_EQ(RunBinaryInts<T>("Div", {lowest, lowest}, {-1, 1}), (std::vector<T>{lowest, lowest}));
  EXPECT_EQ(RunBinaryInts<T>("Mod", {lowest}, {-1}), (std::vector<T>{0}));
  EXPECT_EQ(RunBinaryInts<T>("Mod", {lowest}, {-1}, {testing::IntAttr("fmod", 1)}),
            (std::vector<T>{0}));
}

TEST(ElementwiseKernelsTest, Issue6IntMinDividedByMinusOneDoesNotTrap) {
  ExpectMinOverMinusOneDoesNotTrap<int32_t>();
  ExpectMinOverMinusOneDoesNotTrap<int64_t>();
}

// Issue 6: Erf, Max, Min, Clip and Relu propagate NaN (Max/Min from any input, broadcast or
// not), in float, double and float16.
TEST(ElementwiseKernelsTest, Issue6NanPropagatesThroughErfMaxMinClipRelu) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (DataType type : {DataType::kFloat, DataType::kDouble, DataType::kFloat16}) {
    const auto tensor = [&](const Shape& shape, const std::vector<double>& values) {
      Tensor t = Tensor::Allocate(type, shape).value();
      for (size_t i = 0; i < values.size(); ++i) {
        math::testing::SetValue(&t, static_cast<int64_t>(i), values[i], 0);
      }
      return t;
    };
    const std::string name(DataTypeName(type));
    const auto expect_all_nan = [&](const SingleOpModel& model, const std::string& op) {
      Result<std::vector<Tensor>> outputs = model.Run();
      ASSERT_TRUE(outputs.ok()) << op << " " << name << ": " << outputs.status().ToString();
      const Tensor& y = outputs->front();
      ASSERT_EQ(y.element_count(), 3) << op << " " << name;
      for (int64_t i = 0; i < 3; ++i) {
        const double v = math::testing::GetDouble(y, i);
        EXPECT_TRUE(std::isnan(v)) << op << " " << name << ", element " << i << " is " << v;
      }
    };
    const Tensor x = tensor({3}, {nan, 1, nan});
    const Tensor other = tensor({3}, {1, nan, 2});
    const Tensor one_nan = tensor({1}, {nan});
    for (const char* op : {"Max", "Min"}) {
      expect_all_nan(SingleOpModel(op, kOpset).AddInput(Input(x)).AddInput(Input(other)).AddOutput(
                         type),
                     op);
      expect_all_nan(SingleOpModel(op, kOpset)
                         .AddInput(Input(tensor({3}, {-5, 0, 5})))
                         .AddInput(Input(one_nan))
                         .AddInput(Input(tensor({3}, {5, 0, -5})))
                         .AddOutput(type),
                     std::string(op) + " of 3, broadcast NaN");
    }
    const Tensor all_nan = tensor({3}, {nan, nan, nan});
    for (const char* op : {"Erf", "Relu"}) {
      expect_all_nan(SingleOpModel(op, kOpset).AddInput(Input(all_nan)).AddOutput(type), op);
    }
    expect_all_nan(SingleOpModel("Clip", kOpset)
                       .AddInput(Input(all_nan))
                       .AddInput(Initializer(tensor({}, {-1})))
                       .AddInput(Initializer(tensor({}, {1})))
                       .AddOutput(type),
                   "Clip-13");
    if (type == DataType::kFloat) {
      expect_all_nan(SingleOpModel("Clip", 6)
                         .AddAttribute(testing::FloatAttr("min", -1.0f))
                         .AddAttribute(testing::FloatAttr("max", 1.0f))
                         .AddInput(Input(all_nan))
                         .AddOutput(DataType::kFloat),
                     "Clip-6");
    }
  }
}

// Issue 6: Cast float -> int32 -> bool truncates first, so every value is false. Two nodes, so
// the runtime must not fold the casts into one float -> bool (which would make +-0.1 true).
TEST(ElementwiseKernelsTest, Issue6CastFloatToInt32ToBoolIsAllFalse) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(kOpset);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("cast_cast");
  const auto add_cast = [&](const char* name, const char* in, const char* out, DataType to) {
    onnx::NodeProto* node = graph->add_node();
    node->set_name(name);
    node->set_op_type("Cast");
    node->add_input(in);
    node->add_output(out);
    onnx::AttributeProto* attribute = node->add_attribute();
    attribute->set_name("to");
    attribute->set_type(onnx::AttributeProto::INT);
    attribute->set_i(static_cast<int64_t>(to));
  };
  add_cast("to_int32", "x", "ints", DataType::kInt32);
  add_cast("to_bool", "ints", "y", DataType::kBool);
  const auto declare = [](onnx::ValueInfoProto* value, const char* name, DataType dtype) {
    value->set_name(name);
    onnx::TypeProto::Tensor* type = value->mutable_type()->mutable_tensor_type();
    type->set_elem_type(static_cast<int32_t>(dtype));
    type->mutable_shape()->add_dim()->set_dim_value(5);
  };
  declare(graph->add_input(), "x", DataType::kFloat);
  declare(graph->add_output(), "y", DataType::kBool);
  std::string bytes;
  ASSERT_TRUE(model.SerializeToString(&bytes));
  Result<std::unique_ptr<Session>> session =
      Session::CreateFromBytes(std::as_bytes(std::span(bytes)));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const Tensor x = Tensor::FromVector<float>({5}, {-0.2f, -0.1f, 0.0f, 0.1f, 0.2f}).value();
  Result<std::vector<NamedTensor>> outputs = (*session)->Run({{"x", x}});
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), 1u);
  const Tensor expected =
      Tensor::FromVector<bool>({5}, {false, false, false, false, false}).value();
  ExpectSameTensor(expected, outputs->front().tensor, "Cast float -> int32 -> bool");
}

}  // namespace
}  // namespace nxrt::cpu
