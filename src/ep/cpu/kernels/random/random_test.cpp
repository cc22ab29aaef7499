// ep/cpu/kernels/random/random_test.cpp: the random family run through the session as one-node
// models: seeded reproducibility (same seed, same outputs in a new session; another seed, other
// outputs), output shapes and dtypes, value ranges, and distributions (sample mean and variance
// within five standard errors of the definition's), plus Dropout's training-mode identities.
//
// Layer: tests of nxrt_ep_cpu (testing/single_op_model.h). The seeds are fixed, so each check is
// deterministic; the bounds say what any correct generator must meet.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ep/cpu/math/testing/test_util.h"
#include "ep/cpu/testing/single_op_model.h"

namespace nxrt::cpu {
namespace {

using math::testing::GetDouble;
using testing::Initializer;
using testing::Input;
using testing::SingleOpModel;

std::vector<double> Doubles(const Tensor& t) {
  std::vector<double> values;
  for (int64_t i = 0; i < t.element_count(); ++i) values.push_back(GetDouble(t, i));
  return values;
}

Tensor RunOne(const SingleOpModel& model, const std::string& where) {
  Result<std::vector<Tensor>> outputs = model.Run();
  EXPECT_TRUE(outputs.ok()) << where << ": " << outputs.status().ToString();
  return outputs.ok() ? (*outputs)[0] : Tensor();
}

// Expects the sample mean and variance of `values` near `mean` and `variance`: within five
// standard errors (the variance's error taken for a distribution with kurtosis <= 3).
void ExpectMoments(const std::vector<double>& values, double mean, double variance,
                   const std::string& where) {
  const auto n = static_cast<double>(values.size());
  double sum = 0, squares = 0;
  for (double v : values) sum += v;
  const double m = sum / n;
  for (double v : values) squares += (v - m) * (v - m);
  EXPECT_NEAR(m, mean, 5 * std::sqrt(variance / n)) << where << " mean";
  EXPECT_NEAR(squares / n, variance, 5 * variance * std::sqrt(2 / n)) << where << " variance";
}

SingleOpModel Generator(const char* op, float seed, DataType type, const char* a, float a_value,
                        const char* b, float b_value) {
  SingleOpModel model(op, 17);
  model.AddAttribute(testing::IntsAttr("shape", {100, 200}))
      .AddAttribute(testing::FloatAttr("seed", seed))
      .AddAttribute(testing::FloatAttr(a, a_value))
      .AddAttribute(testing::FloatAttr(b, b_value))
      .AddAttribute(testing::IntAttr("dtype", type == DataType::kDouble ? 11 : 1))
      .AddOutput(type);
  return model;
}

TEST(RandomKernelsTest, RandomUniformIsSeededAndUniform) {
  for (DataType type : {DataType::kFloat, DataType::kDouble}) {
    const std::string where = "RandomUniform " + std::string(DataTypeName(type));
    Tensor first = RunOne(Generator("RandomUniform", 3, type, "low", -2, "high", 6), where);
    Tensor again = RunOne(Generator("RandomUniform", 3, type, "low", -2, "high", 6), where);
    Tensor other = RunOne(Generator("RandomUniform", 4, type, "low", -2, "high", 6), where);
    ASSERT_EQ(ShapeToString(first.shape()), "[100,200]");
    ASSERT_EQ(first.dtype(), type);
    const std::vector<double> values = Doubles(first);
    EXPECT_EQ(values, Doubles(again)) << where << ": the same seed gave other values";
    EXPECT_NE(values, Doubles(other)) << where << ": seeds 3 and 4 gave the same values";
    for (double v : values) ASSERT_TRUE(v >= -2 && v <= 6) << where << ": " << v;
    ExpectMoments(values, 2, 64.0 / 12, where);
  }
}

TEST(RandomKernelsTest, RandomNormalIsSeededAndNormal) {
  Tensor first = RunOne(Generator("RandomNormal", 5, DataType::kFloat, "mean", 1.5f, "scale", 3),
                        "RandomNormal");
  Tensor again = RunOne(Generator("RandomNormal", 5, DataType::kFloat, "mean", 1.5f, "scale", 3),
                        "RandomNormal");
  const std::vector<double> values = Doubles(first);
  EXPECT_EQ(values, Doubles(again));
  ExpectMoments(values, 1.5, 9, "RandomNormal");
  int64_t beyond_two_sigma = 0;
  for (double v : values) beyond_two_sigma += std::fabs(v - 1.5) > 6;
  // P(|z| > 2) = 0.0455: 910 of 20000, binomial standard deviation about 29.
  EXPECT_NEAR(static_cast<double>(beyond_two_sigma), 910, 5 * 29.5);
}

TEST(RandomKernelsTest, LikeFormsTakeTheInputShapeAndType) {
  Tensor x = Tensor::Allocate(DataType::kDouble, {3, 7, 5}).value();
  for (const char* op : {"RandomUniformLike", "RandomNormalLike"}) {
    SingleOpModel model(op, 17);
    model.AddAttribute(testing::FloatAttr("seed", 1)).AddInput(Input(x)).AddOutput(
        DataType::kDouble);
    Tensor y = RunOne(model, op);
    EXPECT_EQ(y.dtype(), DataType::kDouble) << op;
    EXPECT_EQ(ShapeToString(y.shape()), "[3,7,5]") << op;
    // An int input takes its output type from `dtype` (float16 here).
    SingleOpModel typed(op, 17);
    typed.AddAttribute(testing::IntAttr("dtype", 10))
        .AddInput(Input(Tensor::Allocate(DataType::kInt32, {4}).value()))
        .AddOutput(DataType::kFloat16);
    Tensor h = RunOne(typed, op);
    EXPECT_EQ(h.dtype(), DataType::kFloat16) << op;
    EXPECT_EQ(ShapeToString(h.shape()), "[4]") << op;
  }
}

TEST(RandomKernelsTest, BernoulliDrawsZeroOrOneWithTheGivenProbability) {
  const int64_t n = 20000;
  std::vector<float> p(n);
  for (int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i)] = i % 2 ? 0.3f : 0.8f;
  p[0] = 0;
  p[1] = 1;
  Tensor x = Tensor::FromVector<float>({n}, p).value();
  for (DataType out : {DataType::kFloat, DataType::kInt32, DataType::kBool}) {
    SingleOpModel model("Bernoulli", 15);
    model.AddAttribute(testing::FloatAttr("seed", 7)).AddInput(Input(x));
    if (out != DataType::kFloat) {
      model.AddAttribute(testing::IntAttr("dtype", out == DataType::kInt32 ? 6 : 9));
    }
    model.AddOutput(out);
    const std::string where = "Bernoulli to " + std::string(DataTypeName(out));
    Tensor y = RunOne(model, where);
    ASSERT_EQ(y.dtype(), out) << where;
    const std::vector<double> values = Doubles(y);
    EXPECT_EQ(values, Doubles(RunOne(model, where))) << where << ": not reproducible";
    EXPECT_EQ(values[0], 0) << where;
    EXPECT_EQ(values[1], 1) << where;
    double ones_03 = 0, ones_08 = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double v = values[static_cast<size_t>(i)];
      ASSERT_TRUE(v == 0 || v == 1) << where << ": " << v;
      (i % 2 ? ones_03 : ones_08) += v;
    }
    const double half = n / 2.0;
    EXPECT_NEAR(ones_03 / half, 0.3, 5 * std::sqrt(0.21 / half)) << where;
    EXPECT_NEAR(ones_08 / half, 0.8, 5 * std::sqrt(0.16 / half)) << where;
  }
}

TEST(RandomKernelsTest, MultinomialSamplesTheSoftmaxDistribution) {
  // Row 0: log-probabilities of [0.1, 0.2, 0.7]; row 1: one certain class.
  Tensor x = Tensor::FromVector<float>({2, 3}, {std::log(0.1f), std::log(0.2f), std::log(0.7f),
                                                -1e4f, 0.0f, -1e4f})
                 .value();
  const int64_t samples = 20000;
  for (DataType out : {DataType::kInt32, DataType::kInt64}) {
    SingleOpModel model("Multinomial", 7);
    model.AddAttribute(testing::IntAttr("sample_size", samples))
        .AddAttribute(testing::IntAttr("dtype", out == DataType::kInt32 ? 6 : 7))
        .AddAttribute(testing::FloatAttr("seed", 2))
        .AddInput(Input(x))
        .AddOutput(out);
    Tensor y = RunOne(model, "Multinomial");
    ASSERT_EQ(y.dtype(), out);
    ASSERT_EQ(ShapeToString(y.shape()), "[2,20000]");
    double counts[3] = {};
    for (int64_t i = 0; i < samples; ++i) {
      counts[static_cast<size_t>(GetDouble(y, i))] += 1;
      EXPECT_EQ(GetDouble(y, samples + i), 1);
    }
    const double probabilities[3] = {0.1, 0.2, 0.7};
    for (int k = 0; k < 3; ++k) {
      const double p = probabilities[k];
      EXPECT_NEAR(counts[k] / samples, p, 5 * std::sqrt(p * (1 - p) / samples)) << "class " << k;
    }
  }
}

TEST(RandomKernelsTest, DropoutTrainingKeepsScaledElementsWithProbabilityOneMinusRatio) {
  const int64_t n = 20000;
  std::vector<float> data(n);
  for (int64_t i = 0; i < n; ++i) data[static_cast<size_t>(i)] = 0.5f + static_cast<float>(i % 7);
  Tensor x = Tensor::FromVector<float>({n}, data).value();
  for (float ratio : {0.25f, 0.75f}) {
    SingleOpModel model("Dropout", 13);
    model.AddAttribute(testing::IntAttr("seed", 11))
        .AddInput(Input(x))
        .AddInput(Initializer(Tensor::Scalar(ratio)))
        .AddInput(Input(Tensor::Scalar(true)))
        .AddOutput(DataType::kFloat)
        .AddOutput(DataType::kBool);
    Result<std::vector<Tensor>> outputs = model.Run();
    ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
    const Tensor& y = (*outputs)[0];
    const Tensor& mask = (*outputs)[1];
    ASSERT_EQ(mask.dtype(), DataType::kBool);
    double kept = 0;
    for (int64_t i = 0; i < n; ++i) {
      const bool keep = mask.data<bool>()[i];
      const float want = keep ? data[static_cast<size_t>(i)] / (1 - ratio) : 0.0f;
      ASSERT_FLOAT_EQ(y.data<float>()[i], want) << "ratio " << ratio << ", element " << i;
      kept += keep;
    }
    const double p = 1 - ratio;
    EXPECT_NEAR(kept / n, p, 5 * std::sqrt(p * (1 - p) / n)) << "ratio " << ratio;
    Result<std::vector<Tensor>> again = model.Run();
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(Doubles((*again)[0]), Doubles(y)) << "seed 11 is not reproducible";
  }
}

TEST(RandomKernelsTest, DropoutInferenceCopiesAndRatioOneDropsEverything) {
  Tensor x = Tensor::FromVector<double>({3}, {1.5, -2, 4}).value();
  SingleOpModel inference("Dropout", 12);
  inference.AddInput(Input(x))
      .AddInput(Initializer(Tensor::Scalar(0.5)))
      .AddInput(Input(Tensor::Scalar(false)))
      .AddOutput(DataType::kDouble)
      .AddOutput(DataType::kBool);
  Result<std::vector<Tensor>> outputs = inference.Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  EXPECT_EQ(Doubles((*outputs)[0]), Doubles(x));
  EXPECT_EQ(Doubles((*outputs)[1]), (std::vector<double>{1, 1, 1}));

  SingleOpModel all("Dropout", 13);
  all.AddInput(Input(x))
      .AddInput(Initializer(Tensor::Scalar(1.0f)))
      .AddInput(Input(Tensor::Scalar(true)))
      .AddOutput(DataType::kDouble);
  EXPECT_EQ(Doubles(RunOne(all, "ratio 1")), (std::vector<double>{0, 0, 0}));

  SingleOpModel bad("Dropout", 13);
  bad.AddInput(Input(x))
      .AddInput(Initializer(Tensor::Scalar(1.5f)))
      .AddInput(Input(Tensor::Scalar(true)))
      .AddOutput(DataType::kDouble);
  Result<std::vector<Tensor>> refused = bad.Run();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("input 1 'ratio' is 1.5; a dropout ratio lies in "
                                            "[0, 1]"),
            std::string::npos)
      << refused.status().message();
}

}  // namespace
}  // namespace nxrt::cpu
