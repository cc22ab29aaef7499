// ep/cpu/kernels/normalization/normalization_test.cpp: the normalisation family run through the
// session as one-node models, against the math library's reference on random shapes with fixed
// seeds.
//
// Layer: tests of nxrt_ep_cpu (testing/single_op_model.h). Softmax/LogSoftmax/Hardmax in both
// axis semantics (opset 11 and 13), LayerNormalization with its optional inputs and outputs,
// BatchNormalization-6, -9 and -15 (mixed parameter types), Instance/Group/Lp/MeanVariance
// normalisation, CumSum, large inputs split over threads, and named refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/normalization/cumsum.h"
#include "ep/cpu/math/normalization/normalization.h"
#include "ep/cpu/math/normalization/softmax.h"
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
using testing::Omitted;
using testing::SingleOpModel;

// Runs `model` and expects its outputs to equal `expected`, in order.
void ExpectRunsTo(const SingleOpModel& model, const std::vector<Tensor>& expected,
                  const std::string& where, const SessionOptions& options = {}) {
  Result<std::vector<Tensor>> outputs = model.Run(options);
  ASSERT_TRUE(outputs.ok()) << where << ": " << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), expected.size()) << where;
  for (size_t i = 0; i < expected.size(); ++i) {
    ExpectSameTensor(expected[i], (*outputs)[i], where + ", output " + std::to_string(i));
  }
}

int64_t RandomAxis(std::mt19937_64& rng, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  return static_cast<int64_t>(rng() % (2 * r)) - r;
}

TEST(NormalizationKernelsTest, SoftmaxFamilyMatchesTheReferenceInBothSemantics) {
  std::mt19937_64 rng(1313);
  const std::pair<const char*, math::SoftmaxKind> ops[] = {
      {"Softmax", math::SoftmaxKind::kSoftmax},
      {"LogSoftmax", math::SoftmaxKind::kLogSoftmax},
      {"Hardmax", math::SoftmaxKind::kHardmax}};
  for (auto [op, kind] : ops) {
    for (int64_t opset : {11, 13}) {
      for (DataType type : {DataType::kFloat, DataType::kDouble, DataType::kFloat16}) {
        const Shape shape = RandomShape(rng, 1, 4, 1, 6);
        const int64_t axis = RandomAxis(rng, shape.size());
        Tensor x = RandomTensor(rng, type, shape, -4, 4);
        Tensor expected;
        ASSERT_TRUE(math::Softmax(kind, x, axis, math::SoftmaxAxisModeForOpset(opset), &expected)
                        .ok());
        SingleOpModel model(op, opset);
        model.AddAttribute(testing::IntAttr("axis", axis)).AddInput(Input(x)).AddOutput(type);
        ExpectRunsTo(model, {expected},
                     std::string(op) + "-" + std::to_string(opset) + " " +
                         ShapeToString(shape) + " axis " + std::to_string(axis));
      }
    }
  }
}

// Issue 6: [[[0,1],[2,3]]] with axis=1. Before opset 13 the input is coerced to 2-D at the axis,
// so all four values form one row; from opset 13 the op runs along axis 1 alone (pairs {0,2} and
// {1,3}). Values: softmax([0,1,2,3]) and softmax([0,2]) = [0.119203, 0.880797].
std::vector<float> RunAxis1(const char* op, int64_t opset) {
  SingleOpModel model(op, opset);
  model.AddAttribute(testing::IntAttr("axis", 1))
      .AddInput(Input(Tensor::FromVector<float>({1, 2, 2}, {0, 1, 2, 3}).value()))
      .AddOutput(DataType::kFloat);
  Result<std::vector<Tensor>> outputs = model.Run();
  EXPECT_TRUE(outputs.ok()) << op << "-" << opset << ": " << outputs.status().ToString();
  if (!outputs.ok()) return {};
  const Tensor& y = outputs->front();
  EXPECT_EQ(ShapeToString(y.shape()), "[1,2,2]");
  return std::vector<float>(y.data<float>(), y.data<float>() + y.element_count());
}

void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected,
                const std::string& where) {
  ASSERT_EQ(actual.size(), expected.size()) << where;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-5) << where << ", element " << i;
  }
}

TEST(NormalizationKernelsTest, Issue6SoftmaxOpset11Axis1NormalisesAllFourValues) {
  ExpectNear(RunAxis1("Softmax", 11), {0.032059f, 0.087144f, 0.236883f, 0.643914f}, "Softmax-11");
  ExpectNear(RunAxis1("LogSoftmax", 11), {-3.440190f, -2.440190f, -1.440190f, -0.440190f},
             "LogSoftmax-11");
  ExpectNear(RunAxis1("Hardmax", 11), {0, 0, 0, 1}, "Hardmax-11");
}

TEST(NormalizationKernelsTest, Issue6SoftmaxOpset13Axis1NormalisesAlongAxis1) {
  ExpectNear(RunAxis1("Softmax", 13), {0.119203f, 0.119203f, 0.880797f, 0.880797f}, "Softmax-13");
  ExpectNear(RunAxis1("LogSoftmax", 13), {-2.126928f, -2.126928f, -0.126928f, -0.126928f},
             "LogSoftmax-13");
  ExpectNear(RunAxis1("Hardmax", 13), {0, 0, 1, 1}, "Hardmax-13");
}

TEST(NormalizationKernelsTest, LayerNormalizationWithOptionalBiasAndStatistics) {
  std::mt19937_64 rng(17);
  for (int c = 0; c < 6; ++c) {
    const Shape shape = RandomShape(rng, 1, 4, 1, 6);
    const auto rank = static_cast<int64_t>(shape.size());
    math::LayerNormAttrs attrs;
    attrs.axis = static_cast<int64_t>(rng() % rank) - (c % 2 ? rank : 0);
    attrs.epsilon = 1e-3f;
    const int64_t axis = attrs.axis < 0 ? attrs.axis + rank : attrs.axis;
    const Shape params(shape.begin() + axis, shape.end());
    const DataType type = c < 3 ? DataType::kFloat : DataType::kDouble;
    Tensor x = RandomTensor(rng, type, shape, -2, 2);
    Tensor scale = RandomTensor(rng, type, params, 0.5, 1.5);
    Tensor bias = RandomTensor(rng, type, params, -1, 1);
    const bool with_bias = c % 3 != 0;
    const bool with_stats = c % 2 == 0;
    Tensor y;
    Tensor mean;
    Tensor inv_std_dev;
    ASSERT_TRUE(math::LayerNorm(x, scale, with_bias ? &bias : nullptr, attrs, &y,
                                with_stats ? &mean : nullptr, with_stats ? &inv_std_dev : nullptr)
                    .ok());
    SingleOpModel model("LayerNormalization", 17);
    model.AddAttribute(testing::IntAttr("axis", attrs.axis))
        .AddAttribute(testing::FloatAttr("epsilon", attrs.epsilon))
        .AddInput(Input(x))
        .AddInput(Initializer(scale))
        .AddInput(with_bias ? Initializer(bias) : Omitted())
        .AddOutput(type);
    std::vector<Tensor> expected = {y};
    if (with_stats) {
      model.AddOutput(DataType::kFloat).AddOutput(DataType::kFloat);
      expected.push_back(mean);
      expected.push_back(inv_std_dev);
    }
    ExpectRunsTo(model, expected, "LayerNormalization case " + std::to_string(c));
  }
}

TEST(NormalizationKernelsTest, BatchNormalizationInInferenceMode) {
  std::mt19937_64 rng(9);
  for (int64_t opset : {6, 9, 15}) {
    const Shape shape = {2, 3, 4, 5};
    // BatchNormalization-15 lets the parameters and statistics have their own float types.
    const DataType param_type = opset == 15 ? DataType::kDouble : DataType::kFloat;
    const DataType stats_type = opset == 15 ? DataType::kFloat16 : DataType::kFloat;
    Tensor x = RandomTensor(rng, DataType::kFloat, shape, -3, 3);
    Tensor scale = RandomTensor(rng, param_type, {3}, 0.5, 2);
    Tensor bias = RandomTensor(rng, param_type, {3}, -1, 1);
    Tensor mean = RandomTensor(rng, stats_type, {3}, -1, 1);
    Tensor var = RandomTensor(rng, stats_type, {3}, 0.1, 2);
    Tensor expected;
    ASSERT_TRUE(math::BatchNorm(x, scale, bias, mean, var, 1e-4f, &expected).ok());
    SingleOpModel model("BatchNormalization", opset);
    if (opset == 6) model.AddAttribute(testing::IntAttr("is_test", 1));
    model.AddAttribute(testing::FloatAttr("epsilon", 1e-4f))
        .AddAttribute(testing::FloatAttr("momentum", 0.9f))
        .AddInput(Input(x))
        .AddInput(Initializer(scale))
        .AddInput(Initializer(bias))
        .AddInput(Initializer(mean))
        .AddInput(Initializer(var))
        .AddOutput(DataType::kFloat);
    ExpectRunsTo(model, {expected}, "BatchNormalization-" + std::to_string(opset));
  }
}

TEST(NormalizationKernelsTest, InstanceGroupLpAndMeanVarianceNormalization) {
  std::mt19937_64 rng(21);
  Tensor x = RandomTensor(rng, DataType::kFloat, {2, 4, 3, 5}, -2, 2);
  Tensor scale = RandomTensor(rng, DataType::kFloat, {4}, 0.5, 1.5);
  Tensor bias = RandomTensor(rng, DataType::kFloat, {4}, -1, 1);
  Tensor expected;
  ASSERT_TRUE(math::InstanceNorm(x, scale, bias, 1e-5f, &expected).ok());
  ExpectRunsTo(SingleOpModel("InstanceNormalization", 6)
                   .AddInput(Input(x))
                   .AddInput(Initializer(scale))
                   .AddInput(Initializer(bias))
                   .AddOutput(DataType::kFloat),
               {expected}, "InstanceNormalization");

  Tensor group_scale = RandomTensor(rng, DataType::kFloat, {2}, 0.5, 1.5);
  Tensor group_bias = RandomTensor(rng, DataType::kFloat, {2}, -1, 1);
  ASSERT_TRUE(math::GroupNorm(x, group_scale, group_bias, 2, 1e-3f, &expected).ok());
  ExpectRunsTo(SingleOpModel("GroupNormalization", 18)
                   .AddAttribute(testing::IntAttr("num_groups", 2))
                   .AddAttribute(testing::FloatAttr("epsilon", 1e-3f))
                   .AddInput(Input(x))
                   .AddInput(Initializer(group_scale))
                   .AddInput(Initializer(group_bias))
                   .AddOutput(DataType::kFloat),
               {expected}, "GroupNormalization-18");

  for (int64_t p : {1, 2}) {
    ASSERT_TRUE(math::LpNorm(x, 1, p, &expected).ok());
    ExpectRunsTo(SingleOpModel("LpNormalization", 1)
                     .AddAttribute(testing::IntAttr("axis", 1))
                     .AddAttribute(testing::IntAttr("p", p))
                     .AddInput(Input(x))
                     .AddOutput(DataType::kFloat),
                 {expected}, "LpNormalization p=" + std::to_string(p));
  }

  const std::vector<int64_t> default_axes = {0, 2, 3};
  ASSERT_TRUE(math::Mvn(x, default_axes, &expected).ok());
  ExpectRunsTo(
      SingleOpModel("MeanVarianceNormalization", 13).AddInput(Input(x)).AddOutput(DataType::kFloat),
      {expected}, "MeanVarianceNormalization default axes");
  const std::vector<int64_t> axes = {1, 3};
  ASSERT_TRUE(math::Mvn(x, axes, &expected).ok());
  ExpectRunsTo(SingleOpModel("MeanVarianceNormalization", 9)
                   .AddAttribute(testing::IntsAttr("axes", axes))
                   .AddInput(Input(x))
                   .AddOutput(DataType::kFloat),
               {expected}, "MeanVarianceNormalization axes [1,3]");
}

TEST(NormalizationKernelsTest, CumSumMatchesTheReference) {
  std::mt19937_64 rng(14);
  for (DataType type : {DataType::kFloat, DataType::kInt32, DataType::kInt64, DataType::kDouble}) {
    for (int c = 0; c < 4; ++c) {
      const Shape shape = RandomShape(rng, 1, 4, 1, 5);
      const int64_t axis = RandomAxis(rng, shape.size());
      math::CumSumAttrs attrs;
      attrs.exclusive = c & 1;
      attrs.reverse = c & 2;
      Tensor x = RandomTensor(rng, type, shape, -9, 9);
      Tensor expected;
      ASSERT_TRUE(math::CumSum(x, axis, attrs, &expected).ok());
      Tensor axis_tensor = c % 2 ? Tensor::Scalar<int32_t>(static_cast<int32_t>(axis))
                                 : Tensor::Scalar<int64_t>(axis);
      SingleOpModel model("CumSum", 14);
      model.AddAttribute(testing::IntAttr("exclusive", attrs.exclusive))
          .AddAttribute(testing::IntAttr("reverse", attrs.reverse))
          .AddInput(Input(x))
          .AddInput(c < 2 ? Initializer(axis_tensor) : Input(axis_tensor))
          .AddOutput(type);
      ExpectRunsTo(model, {expected},
                   "CumSum " + std::string(DataTypeName(type)) + " " + ShapeToString(shape) +
                       " axis " + std::to_string(axis) + " case " + std::to_string(c));
    }
  }
}

TEST(NormalizationKernelsTest, LargeInputsSplitOverThreadsGiveTheSameResult) {
  std::mt19937_64 rng(3);
  SessionOptions options;
  options.intra_op_threads = 4;
  Tensor x = RandomTensor(rng, DataType::kFloat, {8, 64, 384}, -3, 3);
  Tensor expected;
  ASSERT_TRUE(math::Softmax(math::SoftmaxKind::kSoftmax, x, -1,
                            math::SoftmaxAxisMode::kSingleAxis, &expected)
                  .ok());
  ExpectRunsTo(SingleOpModel("Softmax", 13).AddInput(Input(x)).AddOutput(DataType::kFloat),
               {expected}, "large Softmax", options);

  Tensor scale = RandomTensor(rng, DataType::kFloat, {384}, 0.5, 1.5);
  Tensor bias = RandomTensor(rng, DataType::kFloat, {384}, -1, 1);
  ASSERT_TRUE(math::LayerNorm(x, scale, &bias, {}, &expected, nullptr, nullptr).ok());
  ExpectRunsTo(SingleOpModel("LayerNormalization", 17)
                   .AddInput(Input(x))
                   .AddInput(Initializer(scale))
                   .AddInput(Initializer(bias))
                   .AddOutput(DataType::kFloat),
               {expected}, "large LayerNormalization", options);

  Tensor images = RandomTensor(rng, DataType::kFloat, {16, 8, 32, 32}, -3, 3);
  Tensor channel = RandomTensor(rng, DataType::kFloat, {8}, 0.5, 1.5);
  expected = Tensor();
  ASSERT_TRUE(math::BatchNorm(images, channel, channel, channel, channel, 1e-5f, &expected).ok());
  ExpectRunsTo(SingleOpModel("BatchNormalization", 15)
                   .AddInput(Input(images))
                   .AddInput(Initializer(channel))
                   .AddInput(Initializer(channel))
                   .AddInput(Initializer(channel))
                   .AddInput(Initializer(channel))
                   .AddOutput(DataType::kFloat),
               {expected}, "large BatchNormalization", options);

  // InstanceNormalization's (n, channel) rows cut over 1 and 2 threads; an odd spatial size.
  Tensor planes = RandomTensor(rng, DataType::kFloat, {3, 7, 41, 43}, -3, 3);
  planes.mutable_data<float>()[5 * 41 * 43 + 17] = NAN;
  Tensor channel_scale = RandomTensor(rng, DataType::kFloat, {7}, 0.5, 1.5);
  Tensor channel_bias = RandomTensor(rng, DataType::kFloat, {7}, -1, 1);
  expected = Tensor();
  ASSERT_TRUE(math::InstanceNorm(planes, channel_scale, channel_bias, 1e-5f, &expected).ok());
  for (int threads : {1, 2}) {
    SessionOptions at;
    at.intra_op_threads = threads;
    ExpectRunsTo(SingleOpModel("InstanceNormalization", 6)
                     .AddInput(Input(planes))
                     .AddInput(Initializer(channel_scale))
                     .AddInput(Initializer(channel_bias))
                     .AddOutput(DataType::kFloat),
                 {expected}, "InstanceNormalization at " + std::to_string(threads) + " thread(s)",
                 at);
  }
}

// Float Softmax and LogSoftmax rows (math/normalization/softmax.cpp: AVX-512, or simd_map.h's
// AVX2 or baseline build) against the definition in double: odd row lengths around the 16-lane
// blocks, rows holding NaN (the row is NaN), +inf, -inf, and enough rows that two threads split
// them.
TEST(NormalizationKernelsTest, FloatSoftmaxRowsMatchDefinitionWithNanInfAtOneAndTwoThreads) {
  std::mt19937_64 rng(17);
  const float specials[] = {NAN, INFINITY, -INFINITY};
  for (int64_t d : {1, 3, 15, 16, 17, 33, 127, 128, 129, 1001}) {
    const int64_t rows = std::max<int64_t>(8, 40000 / d);
    Tensor x = RandomTensor(rng, DataType::kFloat, {rows, d}, -20, 20);
    float* xv = x.mutable_data<float>();
    for (int64_t r = 0; r < rows; r += 5) xv[r * d + rng() % d] = specials[(r / 5) % 3];
    for (const char* op : {"Softmax", "LogSoftmax"}) {
      const bool log = std::string(op) == "LogSoftmax";
      std::vector<double> want(static_cast<size_t>(rows * d));
      for (int64_t r = 0; r < rows; ++r) {
        const float* row = xv + r * d;
        double m = -INFINITY;
        bool nan = false;
        for (int64_t k = 0; k < d; ++k) {
          nan = nan || std::isnan(row[k]);
          m = std::max<double>(m, row[k]);
        }
        double sum = 0;
        for (int64_t k = 0; k < d; ++k) sum += std::exp(row[k] - m);
        for (int64_t k = 0; k < d; ++k) {
          const double v = log ? (row[k] - m) - std::log(sum) : std::exp(row[k] - m) / sum;
          want[r * d + k] = nan ? NAN : v;
        }
      }
      for (int threads : {1, 2}) {
        SessionOptions options;
        options.intra_op_threads = threads;
        Result<std::vector<Tensor>> y =
            SingleOpModel(op, 13).AddInput(Input(x)).AddOutput(DataType::kFloat).Run(options);
        ASSERT_TRUE(y.ok()) << y.status().ToString();
        const float* got = (*y)[0].data<float>();
        for (int64_t i = 0; i < rows * d; ++i) {
          SCOPED_TRACE(::testing::Message() << op << " d " << d << " element " << i << " at "
                                            << threads << " thread(s)");
          if (std::isnan(want[i])) {
            ASSERT_TRUE(std::isnan(got[i])) << got[i];
          } else if (std::isinf(want[i])) {
            ASSERT_EQ(got[i], want[i]);
          } else {
            ASSERT_NEAR(got[i], want[i], 2e-6 + 1e-5 * std::fabs(want[i]));
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace nxrt::cpu
