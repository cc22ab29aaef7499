// ep/cpu/kernels/shape/shape_test.cpp: the shape family run through the session as one-node
// models. These ops have no separate math: the references are written here from the ONNX
// definitions (a reshaped copy, a list of dims, a filled tensor, coordinates).
//
// Layer: tests of nxrt_ep_cpu (testing/single_op_model.h). Each op runs in its opset forms
// (attributes before, value inputs after), with value inputs both as initializers and fed at run
// time, on random shapes with fixed seeds; named negative cases check the messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/elementwise/cast.h"
#include "ep/cpu/math/testing/test_util.h"
#include "ep/cpu/testing/expect_tensor.h"
#include "ep/cpu/testing/single_op_model.h"

namespace nxrt::cpu {
namespace {

using math::testing::RandomShape;
using math::testing::RandomTensor;
using testing::ExpectSameTensor;
using testing::Initializer;
using testing::Input;
using testing::OpInput;
using testing::SingleOpModel;

Tensor Int64s(const std::vector<int64_t>& values) {
  return Tensor::FromVector<int64_t>({static_cast<int64_t>(values.size())}, values).value();
}

// `x`'s elements under another shape (the reference of every reshape-like op).
Tensor Reshaped(const Tensor& x, const Shape& shape) { return x.Reshaped(shape).value(); }

Result<Tensor> RunOne(const SingleOpModel& model) {
  NXRT_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, model.Run());
  return outputs.front();
}

void ExpectRunsTo(const SingleOpModel& model, const Tensor& expected, const std::string& where) {
  Result<Tensor> output = RunOne(model);
  ASSERT_TRUE(output.ok()) << where << ": " << output.status().ToString();
  ExpectSameTensor(expected, *output, where);
}

// Expects the run to fail with a message containing `part` (and the node's description).
void ExpectFails(const SingleOpModel& model, const std::string& part) {
  Result<Tensor> output = RunOne(model);
  ASSERT_FALSE(output.ok()) << "expected: " << part;
  EXPECT_NE(output.status().message().find("node 'node' ("), std::string::npos)
      << output.status().message();
  EXPECT_NE(output.status().message().find(part), std::string::npos)
      << output.status().message();
}

TEST(ShapeKernelsTest, ShapeAndSizeReadTheInputShape) {
  std::mt19937_64 rng(15);
  for (int c = 0; c < 8; ++c) {
    const Shape shape = RandomShape(rng, 0, 4, 0, 4);
    Tensor x = RandomTensor(rng, DataType::kFloat, shape, 0, 1);
    const auto rank = static_cast<int64_t>(shape.size());
    const int64_t start = static_cast<int64_t>(rng() % 7) - 3;
    const int64_t end = static_cast<int64_t>(rng() % 7) - 3;
    // Shape-15: negative bounds count from the end, both clamp to [0, rank].
    const auto clamp = [rank](int64_t v) {
      return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank);
    };
    std::vector<int64_t> dims;
    for (int64_t i = clamp(start); i < clamp(end); ++i) dims.push_back(shape[i]);
    ExpectRunsTo(SingleOpModel("Shape", 15)
                     .AddAttribute(testing::IntAttr("start", start))
                     .AddAttribute(testing::IntAttr("end", end))
                     .AddInput(Input(x))
                     .AddOutput(DataType::kInt64),
                 Int64s(dims), "Shape " + ShapeToString(shape) + " [" + std::to_string(start) +
                                   ", " + std::to_string(end) + ")");
    ExpectRunsTo(SingleOpModel("Shape", 13).AddInput(Input(x)).AddOutput(DataType::kInt64),
                 Int64s(shape), "Shape-13 " + ShapeToString(shape));
    ExpectRunsTo(SingleOpModel("Size", 13).AddInput(Input(x)).AddOutput(DataType::kInt64),
                 Tensor::Scalar<int64_t>(x.element_count()), "Size " + ShapeToString(shape));
  }
}

TEST(ShapeKernelsTest, ReshapeCopiesZerosAndInfersMinusOne) {
  std::mt19937_64 rng(5);
  Tensor x = RandomTensor(rng, DataType::kFloat, {2, 3, 4}, -1, 1);
  struct Case {
    std::vector<int64_t> shape;
    bool allow_zero;
    Shape expected;
  };
  const Case cases[] = {{{6, 4}, false, {6, 4}},       {{0, -1}, false, {2, 12}},
                        {{-1}, false, {24}},           {{0, 0, 2, 2}, false, {2, 3, 2, 2}},
                        {{4, -1, 3}, true, {4, 2, 3}}, {{1, 24, 1}, true, {1, 24, 1}}};
  for (const Case& c : cases) {
    for (bool fed : {false, true}) {
      const OpInput shape = fed ? Input(Int64s(c.shape)) : Initializer(Int64s(c.shape));
      ExpectRunsTo(SingleOpModel("Reshape", 14)
                       .AddAttribute(testing::IntAttr("allowzero", c.allow_zero))
                       .AddInput(Input(x))
                       .AddInput(shape)
                       .AddOutput(DataType::kFloat),
                   Reshaped(x, c.expected), "Reshape to " + ShapeToString(c.shape));
    }
  }
  Tensor words;
  ASSERT_TRUE(math::Cast(x, DataType::kString, &words).ok());
  ExpectRunsTo(SingleOpModel("Reshape", 13)
                   .AddInput(Input(words))
                   .AddInput(Initializer(Int64s({4, 6})))
                   .AddOutput(DataType::kString),
               Reshaped(words, {4, 6}), "Reshape string");
  // allowzero keeps a literal 0: an empty input can take a shape with a 0 dim.
  Tensor empty = Tensor::Allocate(DataType::kFloat, {0, 3}).value();
  ExpectRunsTo(SingleOpModel("Reshape", 14)
                   .AddAttribute(testing::IntAttr("allowzero", 1))
                   .AddInput(Input(empty))
                   .AddInput(Initializer(Int64s({3, 0})))
                   .AddOutput(DataType::kFloat),
               Reshaped(empty, {3, 0}), "Reshape allowzero empty");
}

TEST(ShapeKernelsTest, ReshapeErrorsNameTheShapeInput) {
  Tensor x = Tensor::Allocate(DataType::kFloat, {2, 3}).value();
  ExpectFails(SingleOpModel("Reshape", 14)
                  .AddInput(Input(x))
                  .AddInput(Initializer(Int64s({-1, -1})))
                  .AddOutput(DataType::kFloat),
              "input 1 'shape' [-1,-1] has -1 at dims 0 and 1; at most one dim is -1");
  ExpectFails(SingleOpModel("Reshape", 14)
                  .AddInput(Input(x))
                  .AddInput(Initializer(Int64s({4, 2})))
                  .AddOutput(DataType::kFloat),
              "input 1 'shape' [4,2] does not fit data of shape [2,3] (6 elements)");
  ExpectFails(SingleOpModel("Reshape", 14)
                  .AddInput(Input(x))
                  .AddInput(Initializer(Int64s({-1, 4})))
                  .AddOutput(DataType::kFloat),
              "input 1 'shape' [-1,4] does not fit data of shape [2,3] (6 elements)");
}

TEST(ShapeKernelsTest, FlattenSplitsAtTheAxis) {
  std::mt19937_64 rng(6);
  for (int c = 0; c < 6; ++c) {
    const Shape shape = RandomShape(rng, 1, 4, 1, 4);
    const auto rank = static_cast<int64_t>(shape.size());
    const int64_t axis = static_cast<int64_t>(rng() % (2 * rank + 1)) - rank;
    const int64_t split = axis < 0 ? axis + rank : axis;
    int64_t outer = 1;
    for (int64_t i = 0; i < split; ++i) outer *= shape[i];
    Tensor x = RandomTensor(rng, DataType::kInt32, shape, -9, 9);
    ExpectRunsTo(SingleOpModel("Flatten", 13)
                     .AddAttribute(testing::IntAttr("axis", axis))
                     .AddInput(Input(x))
                     .AddOutput(DataType::kInt32),
                 Reshaped(x, {outer, x.element_count() / outer}),
                 "Flatten " + ShapeToString(shape) + " axis " + std::to_string(axis));
  }
}

TEST(ShapeKernelsTest, SqueezeAndUnsqueezeInBothForms) {
  std::mt19937_64 rng(7);
  Tensor x = RandomTensor(rng, DataType::kFloat, {1, 3, 1, 2}, -1, 1);
  ExpectRunsTo(SingleOpModel("Squeeze", 11)
                   .AddAttribute(testing::IntsAttr("axes", {-2}))
                   .AddInput(Input(x))
                   .AddOutput(DataType::kFloat),
               Reshaped(x, {1, 3, 2}), "Squeeze-11 axes [-2]");
  ExpectRunsTo(SingleOpModel("Squeeze", 13).AddInput(Input(x)).AddOutput(DataType::kFloat),
               Reshaped(x, {3, 2}), "Squeeze-13 all");
  ExpectRunsTo(SingleOpModel("Squeeze", 13)
                   .AddInput(Input(x))
                   .AddInput(Input(Int64s({0})))
                   .AddOutput(DataType::kFloat),
               Reshaped(x, {3, 1, 2}), "Squeeze-13 fed axes [0]");
  ExpectRunsTo(SingleOpModel("Unsqueeze", 11)
                   .AddAttribute(testing::IntsAttr("axes", {0, 5}))
                   .AddInput(Input(x))
                   .AddOutput(DataType::kFloat),
               Reshaped(x, {1, 1, 3, 1, 2, 1}), "Unsqueeze-11 axes [0,5]");
  ExpectRunsTo(SingleOpModel("Unsqueeze", 13)
                   .AddInput(Input(x))
                   .AddInput(Initializer(Int64s({-1, 2})))
                   .AddOutput(DataType::kFloat),
               Reshaped(x, {1, 3, 1, 1, 2, 1}), "Unsqueeze-13 axes [-1,2]");
  ExpectFails(SingleOpModel("Squeeze", 13)
                  .AddInput(Input(x))
                  .AddInput(Initializer(Int64s({1})))
                  .AddOutput(DataType::kFloat),
              "axis 1 of input 0 [1,3,1,2] has size 3; only size-1 axes squeeze");
}

TEST(ShapeKernelsTest, ConstantTakesEveryValueForm) {
  Tensor matrix = Tensor::FromVector<double>({2, 2}, {1.5, -2, 0, 4}).value();
  ExpectRunsTo(SingleOpModel("Constant", 13)
                   .AddAttribute(testing::TensorAttr("value", matrix))
                   .AddOutput(DataType::kDouble),
               matrix, "Constant value");
  ExpectRunsTo(SingleOpModel("Constant", 13)
                   .AddAttribute(testing::FloatAttr("value_float", 2.5f))
                   .AddOutput(DataType::kFloat),
               Tensor::Scalar(2.5f), "Constant value_float");
  ExpectRunsTo(SingleOpModel("Constant", 13)
                   .AddAttribute(testing::FloatsAttr("value_floats", {1, 2, 3}))
                   .AddOutput(DataType::kFloat),
               Tensor::FromVector<float>({3}, {1, 2, 3}).value(), "Constant value_floats");
  ExpectRunsTo(SingleOpModel("Constant", 13)
                   .AddAttribute(testing::IntAttr("value_int", -7))
                   .AddOutput(DataType::kInt64),
               Tensor::Scalar<int64_t>(-7), "Constant value_int");
  ExpectRunsTo(SingleOpModel("Constant", 13)
                   .AddAttribute(testing::IntsAttr("value_ints", {4, 5}))
                   .AddOutput(DataType::kInt64),
               Int64s({4, 5}), "Constant value_ints");
  ExpectRunsTo(SingleOpModel("Constant", 13)
                   .AddAttribute(testing::StringAttr("value_string", "nxrt"))
                   .AddOutput(DataType::kString),
               Tensor::Scalar<std::string>("nxrt"), "Constant value_string");
  ExpectRunsTo(
      SingleOpModel("Constant", 13)
          .AddAttribute(testing::StringsAttr("value_strings", {"a", "bc"}))
          .AddOutput(DataType::kString),
      Tensor::FromVector<std::string>({2}, {"a", "bc"}).value(), "Constant value_strings");
}

// Constant's `value` on random shapes (empty and rank 0 included) of every numeric type and bool:
// the output is the attribute's tensor, byte for byte.
TEST(ShapeKernelsTest, ConstantOnRandomTensorsOfEveryTypeGivesTheAttribute) {
  std::mt19937_64 rng(2614);
  int cases = 0;
  std::vector<DataType> types = math::testing::AllNumericTypes();
  types.push_back(DataType::kBool);
  for (DataType type : types) {
    for (int c = 0; c < 2; ++c) {
      const Shape shape = RandomShape(rng, 0, 3, c == 0 ? 1 : 0, 4);
      const double lo = math::testing::IsSignedType(type) ? -9 : 0;
      const Tensor value = RandomTensor(rng, type, shape, lo, 9);
      SingleOpModel model("Constant", c == 0 ? 13 : 9);
      model.AddAttribute(testing::TensorAttr("value", value)).AddOutput(type);
      if (!model.CpuSupports().supported()) continue;  // a type the opset's schema lacks
      ExpectRunsTo(model, value,
                   "Constant " + std::string(DataTypeName(type)) + " " + ShapeToString(shape));
      ++cases;
    }
  }
  EXPECT_GE(cases, 20);  // 12 numeric types and bool at opsets 9 and 13, less what 9 lacks
}

TEST(ShapeKernelsTest, ConstantOfShapeFillsTheValue) {
  Tensor zeros = Tensor::Allocate(DataType::kFloat, {2, 3}).value();
  ExpectRunsTo(SingleOpModel("ConstantOfShape", 9)
                   .AddInput(Initializer(Int64s({2, 3})))
                   .AddOutput(DataType::kFloat),
               zeros, "ConstantOfShape default");
  Tensor sevens = Tensor::FromVector<int32_t>({3, 1}, {7, 7, 7}).value();
  ExpectRunsTo(SingleOpModel("ConstantOfShape", 9)
                   .AddAttribute(testing::TensorAttr(
                       "value", Tensor::FromVector<int32_t>({1}, {7}).value()))
                   .AddInput(Input(Int64s({3, 1})))
                   .AddOutput(DataType::kInt32),
               sevens, "ConstantOfShape int32 fed shape");
}

TEST(ShapeKernelsTest, RangeCountsLikeTheSpec) {
  ExpectRunsTo(SingleOpModel("Range", 11)
                   .AddInput(Initializer(Tensor::Scalar<int32_t>(1)))
                   .AddInput(Initializer(Tensor::Scalar<int32_t>(10)))
                   .AddInput(Initializer(Tensor::Scalar<int32_t>(3)))
                   .AddOutput(DataType::kInt32),
               Tensor::FromVector<int32_t>({3}, {1, 4, 7}).value(), "Range int32");
  ExpectRunsTo(SingleOpModel("Range", 11)
                   .AddInput(Input(Tensor::Scalar<int64_t>(10)))
                   .AddInput(Input(Tensor::Scalar<int64_t>(4)))
                   .AddInput(Input(Tensor::Scalar<int64_t>(-2)))
                   .AddOutput(DataType::kInt64),
               Int64s({10, 8, 6}), "Range int64 descending");
  ExpectRunsTo(SingleOpModel("Range", 11)
                   .AddInput(Initializer(Tensor::Scalar(0.5f)))
                   .AddInput(Initializer(Tensor::Scalar(2.0f)))
                   .AddInput(Initializer(Tensor::Scalar(0.5f)))
                   .AddOutput(DataType::kFloat),
               Tensor::FromVector<float>({3}, {0.5f, 1.0f, 1.5f}).value(), "Range float");
  ExpectRunsTo(SingleOpModel("Range", 11)
                   .AddInput(Initializer(Tensor::Scalar(3.0)))
                   .AddInput(Initializer(Tensor::Scalar(1.0)))
                   .AddInput(Initializer(Tensor::Scalar(1.0)))
                   .AddOutput(DataType::kDouble),
               Tensor::Allocate(DataType::kDouble, {0}).value(), "Range empty");
  ExpectFails(SingleOpModel("Range", 11)
                  .AddInput(Initializer(Tensor::Scalar<int64_t>(0)))
                  .AddInput(Initializer(Tensor::Scalar<int64_t>(5)))
                  .AddInput(Initializer(Tensor::Scalar<int64_t>(0)))
                  .AddOutput(DataType::kInt64),
              "input 2 'delta' is 0; Range needs a non-zero step");
}

// Issue 20: Range's count and values at the ends of int64, computed exactly (limit - start and
// i * delta overflow int64 there), both constant-folded (initializers) and at run time (inputs).
// The spec: count = max(ceil((limit - start) / delta), 0), value i = start + i * delta.
TEST(ShapeKernelsTest, RangeAtTheEndsOfInt64IsExact) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t k2p62 = int64_t{1} << 62;
  for (bool folded : {true, false}) {
    auto scalar = [&](int64_t v) {
      return folded ? Initializer(Tensor::Scalar<int64_t>(v)) : Input(Tensor::Scalar<int64_t>(v));
    };
    auto range = [&](int64_t start, int64_t limit, int64_t delta) {
      return SingleOpModel("Range", 11)
          .AddInput(scalar(start))
          .AddInput(scalar(limit))
          .AddInput(scalar(delta))
          .AddOutput(DataType::kInt64);
    };
    // (2^64 - 1) / 2^62 rounded up: 4 values, the last 3 * 2^62 - 2^63 = 2^62.
    ExpectRunsTo(range(kMin, kMax, k2p62), Int64s({kMin, -k2p62, 0, k2p62}), "Range full span");
    ExpectRunsTo(range(kMax, kMin, -k2p62), Int64s({kMax, k2p62 - 1, -1, -k2p62 - 1}),
                 "Range full span descending");
    // INT64_MAX to INT64_MIN going up: nothing (gave [INT64_MAX] through a wrapped difference).
    ExpectRunsTo(range(kMax, kMin, 1), Int64s({}), "Range INT64_MAX + 1");
    ExpectFails(range(kMin, kMax, 1), "give an element count that is NaN or 2^63 or more");
  }
  ExpectFails(SingleOpModel("Range", 11)
                  .AddInput(Initializer(Tensor::Scalar(0.0f)))
                  .AddInput(Initializer(Tensor::Scalar(1e30f)))
                  .AddInput(Initializer(Tensor::Scalar(1.0f)))
                  .AddOutput(DataType::kFloat),
              "give an element count that is NaN or 2^63 or more");
  ExpectFails(SingleOpModel("Range", 11)
                  .AddInput(Input(Tensor::Scalar(std::numeric_limits<double>::infinity())))
                  .AddInput(Input(Tensor::Scalar(std::numeric_limits<double>::infinity())))
                  .AddInput(Input(Tensor::Scalar(1.0)))
                  .AddOutput(DataType::kDouble),
              "give an element count that is NaN or 2^63 or more");
}

TEST(ShapeKernelsTest, EyeLikeShiftsTheDiagonal) {
  Tensor x = Tensor::Allocate(DataType::kInt32, {3, 4}).value();
  for (int64_t k : {-1, 0, 2}) {
    Tensor expected = Tensor::Allocate(DataType::kFloat, {3, 4}).value();
    for (int64_t row = 0; row < 3; ++row) {
      if (row + k >= 0 && row + k < 4) expected.mutable_data<float>()[row * 4 + row + k] = 1;
    }
    ExpectRunsTo(SingleOpModel("EyeLike", 9)
                     .AddAttribute(testing::IntAttr("k", k))
                     .AddAttribute(
                         testing::IntAttr("dtype", static_cast<int64_t>(DataType::kFloat)))
                     .AddInput(Input(x))
                     .AddOutput(DataType::kFloat),
                 expected, "EyeLike k=" + std::to_string(k));
  }
}

// A scalar of `type` holding `value` (integer types take it as an integer).
Tensor ScalarOf(DataType type, double value) {
  Tensor t = Tensor::Allocate(type, {}).value();
  math::testing::SetValue(&t, 0, value, static_cast<int64_t>(value));
  return t;
}

// Range on random starts, limits and steps in quarters (exact in every type): the reference is
// the definition, max(ceil((limit - start) / delta), 0) elements start + i * delta.
TEST(ShapeKernelsTest, RangeOnRandomBoundsMatchesTheDefinition) {
  std::mt19937_64 rng(2611);
  const auto draw = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int cases = 0;
  for (DataType type : {DataType::kFloat, DataType::kDouble, DataType::kInt16, DataType::kInt32,
                        DataType::kInt64}) {
    const bool is_float = math::testing::IsFloatType(type);
    const double unit = is_float ? 0.25 : 1.0;
    for (int c = 0; c < 12; ++c) {
      const double start = draw(-20, 20) * unit;
      const double limit = draw(-20, 20) * unit;
      double delta = 0;
      while (delta == 0) delta = draw(-6, 6) * unit;
      const auto count = static_cast<int64_t>(std::max(0.0, std::ceil((limit - start) / delta)));
      Tensor expected = Tensor::Allocate(type, {count}).value();
      for (int64_t i = 0; i < count; ++i) {
        const double v = start + static_cast<double>(i) * delta;
        math::testing::SetValue(&expected, i, v, static_cast<int64_t>(v));
      }
      SingleOpModel model("Range", 11);
      for (double bound : {start, limit, delta}) {
        model.AddInput(c % 2 ? Input(ScalarOf(type, bound)) : Initializer(ScalarOf(type, bound)));
      }
      model.AddOutput(type);
      ExpectRunsTo(model, expected,
                   "Range " + std::string(DataTypeName(type)) + " " + std::to_string(start) +
                       ", " + std::to_string(limit) + ", " + std::to_string(delta));
      ++cases;
    }
  }
  EXPECT_EQ(cases, 60);
}

// EyeLike on random 2-D shapes (empty ones included), diagonals beyond either edge, every output
// type, with and without the dtype attribute: ones where column == row + k, zeros elsewhere.
TEST(ShapeKernelsTest, EyeLikeOnRandomShapesAndTypesMatchesTheDefinition) {
  std::mt19937_64 rng(2612);
  const std::vector<DataType> types = {DataType::kFloat,  DataType::kDouble, DataType::kFloat16,
                                       DataType::kInt8,   DataType::kInt32,  DataType::kInt64,
                                       DataType::kUint8,  DataType::kUint64, DataType::kBool};
  for (int c = 0; c < 40; ++c) {
    const Shape shape = RandomShape(rng, 2, 2, 0, 5);
    const DataType in_type = types[rng() % types.size()];
    const bool with_dtype = c % 3 != 0;
    const DataType out_type = with_dtype ? types[rng() % types.size()] : in_type;
    const int64_t k = std::uniform_int_distribution<int64_t>(-shape[0] - 1, shape[1] + 1)(rng);
    Tensor expected = Tensor::Allocate(out_type, shape).value();
    for (int64_t i = 0; i < expected.element_count(); ++i) {
      const bool on = i % shape[1] == i / shape[1] + k;
      math::testing::SetValue(&expected, i, on ? 1.0 : 0.0, on ? 1 : 0);
    }
    SingleOpModel model("EyeLike", 9);
    if (k != 0 || c % 2) model.AddAttribute(testing::IntAttr("k", k));
    if (with_dtype) {
      model.AddAttribute(testing::IntAttr("dtype", static_cast<int64_t>(out_type)));
    }
    model.AddInput(Input(RandomTensor(rng, in_type, shape, 0, 3))).AddOutput(out_type);
    ExpectRunsTo(model, expected,
                 "EyeLike " + std::string(DataTypeName(in_type)) + " -> " +
                     std::string(DataTypeName(out_type)) + " " + ShapeToString(shape) + " k=" +
                     std::to_string(k));
  }
}

// ConstantOfShape on random shapes (rank 0 and empty dims included) and random one-element values
// of several types: the value repeated over the shape.
TEST(ShapeKernelsTest, ConstantOfShapeOnRandomShapesAndValuesMatchesTheDefinition) {
  std::mt19937_64 rng(2613);
  const std::vector<DataType> types = {DataType::kFloat, DataType::kDouble, DataType::kFloat16,
                                       DataType::kInt8,  DataType::kInt32,  DataType::kInt64,
                                       DataType::kUint8, DataType::kBool};
  for (int c = 0; c < 30; ++c) {
    const Shape shape = RandomShape(rng, 0, 3, 0, 4);
    const DataType type = types[rng() % types.size()];
    const Tensor value = RandomTensor(rng, type, {1}, -50, 50);
    Tensor expected = Tensor::Allocate(type, shape).value();
    for (int64_t i = 0; i < expected.element_count(); ++i) {
      std::memcpy(static_cast<std::byte*>(expected.mutable_raw_data()) + i * DataTypeSize(type),
                  value.raw_data(), DataTypeSize(type));
    }
    SingleOpModel model("ConstantOfShape", 9);
    model.AddAttribute(testing::TensorAttr("value", value))
        .AddInput(c % 2 ? Input(Int64s(shape)) : Initializer(Int64s(shape)))
        .AddOutput(type);
    ExpectRunsTo(model, expected,
                 "ConstantOfShape " + std::string(DataTypeName(type)) + " " +
                     ShapeToString(shape));
  }
}

TEST(ShapeKernelsTest, NonZeroListsCoordinatesInRowMajorOrder) {
  std::mt19937_64 rng(10);
  for (DataType type : {DataType::kFloat, DataType::kInt64, DataType::kBool}) {
    for (int c = 0; c < 3; ++c) {
      const Shape shape = RandomShape(rng, 1, 3, 0, 4);
      Tensor x = RandomTensor(rng, type, shape, 0, 2);  // about a third zeros
      std::vector<int64_t> positions;
      for (int64_t i = 0; i < x.element_count(); ++i) {
        if (math::testing::GetDouble(x, i) != 0) positions.push_back(i);
      }
      const auto found = static_cast<int64_t>(positions.size());
      Tensor expected = Tensor::Allocate(DataType::kInt64, {static_cast<int64_t>(shape.size()),
                                                            found}).value();
      for (int64_t k = 0; k < found; ++k) {
        const std::vector<int64_t> index = math::testing::Unravel(shape, positions[k]);
        for (size_t axis = 0; axis < shape.size(); ++axis) {
          expected.mutable_data<int64_t>()[axis * found + k] = index[axis];
        }
      }
      ExpectRunsTo(SingleOpModel("NonZero", 13).AddInput(Input(x)).AddOutput(DataType::kInt64),
                   expected, "NonZero " + std::string(DataTypeName(type)) + " " +
                                 ShapeToString(shape));
    }
  }
}

}  // namespace
}  // namespace nxrt::cpu
