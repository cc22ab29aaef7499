// ep/cpu/kernels/training/training_test.cpp: the training family run through the session as
// one-node models: Adagrad, Momentum (standard and nesterov) and Adam of the
// ai.onnx.preview.training domain on several tensors at once, and BatchNormalization-14/-15 with
// training_mode = 1, each against a reference written here from the ONNX definitions (plain
// double loops) on random shapes with fixed seeds.
//
// Layer: tests of nxrt_ep_cpu (testing/single_op_model.h).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/testing/test_util.h"
#include "ep/cpu/testing/single_op_model.h"

namespace nxrt::cpu {
namespace {

using math::testing::GetDouble;
using math::testing::RandomShape;
using math::testing::RandomTensor;
using testing::Initializer;
using testing::Input;
using testing::SingleOpModel;

constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

double Tolerance(DataType type, double value) {
  const double rel = type == DataType::kDouble   ? 1e-12
                     : type == DataType::kFloat16 ? 4e-3
                                                  : 2e-6;
  return rel * (1 + std::fabs(value));
}

void ExpectNear(const std::vector<double>& expected, const Tensor& got, DataType type,
                const std::string& where) {
  ASSERT_EQ(DataTypeName(got.dtype()), DataTypeName(type)) << where;
  ASSERT_EQ(got.element_count(), static_cast<int64_t>(expected.size())) << where;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(GetDouble(got, static_cast<int64_t>(i)), expected[i],
                Tolerance(type, expected[i]))
        << where << ", element " << i;
  }
}

enum class Optimizer { kAdagrad, kMomentum, kNesterov, kAdam };

struct OptimizerCase {
  Optimizer optimizer;
  double alpha = 0.9, beta = 0.8, epsilon = 1e-4, decay = 0.1, norm = 0.01, post = 0.02;
};

// The update of one element; states in and out: {v} / {h} / {v, h}.
double Update(const OptimizerCase& c, double r, int64_t t, double x, double g,
              std::vector<double>& states) {
  const double gr = c.norm * x + g;
  switch (c.optimizer) {
    case Optimizer::kAdagrad: {
      states[0] += gr * gr;
      return x - r / (1 + static_cast<double>(t) * c.decay) * gr / (std::sqrt(states[0]) +
                                                                    c.epsilon);
    }
    case Optimizer::kMomentum:
    case Optimizer::kNesterov: {
      states[0] = c.alpha * states[0] + (t > 0 ? c.beta : 1.0) * gr;
      return c.optimizer == Optimizer::kMomentum ? x - r * states[0]
                                                 : x - r * (gr + c.alpha * states[0]);
    }
    case Optimizer::kAdam: {
      states[0] = c.alpha * states[0] + (1 - c.alpha) * gr;
      states[1] = c.beta * states[1] + (1 - c.beta) * gr * gr;
      double rate = r;
      if (t > 0) {
        const auto td = static_cast<double>(t);
        rate = r * std::sqrt(1 - std::pow(c.beta, td)) / (1 - std::pow(c.alpha, td));
      }
      return (1 - c.post) * (x - rate * states[0] / (std::sqrt(states[1]) + c.epsilon));
    }
  }
  return 0;
}

TEST(TrainingKernelsTest, OptimizersMatchTheDefinitionOnSeveralTensors) {
  std::mt19937_64 rng(77);
  const std::pair<Optimizer, const char*> optimizers[] = {{Optimizer::kAdagrad, "Adagrad"},
                                                          {Optimizer::kMomentum, "Momentum"},
                                                          {Optimizer::kNesterov, "Momentum"},
                                                          {Optimizer::kAdam, "Adam"}};
  int round = 0;
  for (auto [optimizer, op] : optimizers) {
    for (DataType type : {DataType::kFloat, DataType::kDouble}) {
      for (int64_t t : {0, 3}) {
        OptimizerCase c{optimizer};
        const int tensors = 1 + round++ % 2;
        const int states = optimizer == Optimizer::kAdam ? 2 : 1;
        const double r = 0.05;
        SingleOpModel model(op, 1, kTrainingDomain);
        if (optimizer == Optimizer::kAdagrad) {
          model.AddAttribute(testing::FloatAttr("decay_factor", static_cast<float>(c.decay)))
              .AddAttribute(testing::FloatAttr("epsilon", static_cast<float>(c.epsilon)));
        } else if (optimizer == Optimizer::kAdam) {
          model.AddAttribute(testing::FloatAttr("alpha", static_cast<float>(c.alpha)))
              .AddAttribute(testing::FloatAttr("beta", static_cast<float>(c.beta)))
              .AddAttribute(testing::FloatAttr("epsilon", static_cast<float>(c.epsilon)))
              .AddAttribute(
                  testing::FloatAttr("norm_coefficient_post", static_cast<float>(c.post)));
        } else {
          model.AddAttribute(testing::FloatAttr("alpha", static_cast<float>(c.alpha)))
              .AddAttribute(testing::FloatAttr("beta", static_cast<float>(c.beta)))
              .AddAttribute(testing::StringAttr(
                  "mode", optimizer == Optimizer::kNesterov ? "nesterov" : "standard"));
        }
        model.AddAttribute(testing::FloatAttr("norm_coefficient", static_cast<float>(c.norm)));
        // Attributes are floats: the reference uses the same rounded values.
        c.alpha = static_cast<float>(c.alpha);
        c.beta = static_cast<float>(c.beta);
        c.epsilon = static_cast<float>(c.epsilon);
        c.decay = static_cast<float>(c.decay);
        c.norm = static_cast<float>(c.norm);
        c.post = static_cast<float>(c.post);
        const double r_rounded = static_cast<float>(r);
        model.AddInput(Initializer(Tensor::Scalar(static_cast<float>(r))))
            .AddInput(Input(Tensor::Scalar<int64_t>(t)));
        std::vector<Tensor> xs, gs, ss;
        for (int k = 0; k < tensors; ++k) {
          const Shape shape = RandomShape(rng, 0, 3, 1, 5);
          xs.push_back(RandomTensor(rng, type, shape, -2, 2));
          gs.push_back(RandomTensor(rng, type, shape, -1, 1));
        }
        for (int s = 0; s < states; ++s) {
          for (int k = 0; k < tensors; ++k) {
            // Adagrad's and Adam's H are sums of squares: non-negative.
            const bool squares = optimizer == Optimizer::kAdagrad || s == 1;
            ss.push_back(RandomTensor(rng, type, xs[k].shape(), squares ? 0 : -1, 1));
          }
        }
        for (const Tensor& x : xs) model.AddInput(Input(x));
        for (const Tensor& g : gs) model.AddInput(Input(g));
        for (const Tensor& s : ss) model.AddInput(Input(s));
        for (int o = 0; o < tensors * (1 + states); ++o) model.AddOutput(type);
        Result<std::vector<Tensor>> outputs = model.Run();
        const std::string where = std::string(op) + " case " + std::to_string(round) + " " +
                                  std::string(DataTypeName(type)) + " t " + std::to_string(t);
        ASSERT_TRUE(outputs.ok()) << where << ": " << outputs.status().ToString();
        for (int k = 0; k < tensors; ++k) {
          std::vector<double> x_new;
          std::vector<std::vector<double>> states_new(static_cast<size_t>(states));
          for (int64_t i = 0; i < xs[k].element_count(); ++i) {
            std::vector<double> state;
            for (int s = 0; s < states; ++s) state.push_back(GetDouble(ss[s * tensors + k], i));
            x_new.push_back(
                Update(c, r_rounded, t, GetDouble(xs[k], i), GetDouble(gs[k], i), state));
            for (int s = 0; s < states; ++s) states_new[s].push_back(state[s]);
          }
          ExpectNear(x_new, (*outputs)[k], type, where + " X" + std::to_string(k));
          for (int s = 0; s < states; ++s) {
            ExpectNear(states_new[s], (*outputs)[(1 + s) * tensors + k], type,
                       where + " state " + std::to_string(s) + " of X" + std::to_string(k));
          }
        }
      }
    }
  }
}

TEST(TrainingKernelsTest, BatchNormalizationTrainingModeMatchesTheDefinition) {
  std::mt19937_64 rng(15);
  for (int i = 0; i < 8; ++i) {
    const int64_t opset = i % 2 ? 14 : 15;
    Shape shape = RandomShape(rng, 2, 4, 1, 5);
    shape[0] = 1 + i % 3;
    const DataType type = i % 4 == 3 ? DataType::kDouble : DataType::kFloat;
    // BatchNormalization-15 lets scale/B and the statistics have their own float types.
    const DataType stats = opset == 15 && i % 4 == 0 ? DataType::kDouble : type;
    const DataType params = opset == 15 && i % 4 == 2 ? DataType::kFloat16 : type;
    const int64_t c = shape[1];
    Tensor x = RandomTensor(rng, type, shape, -3, 3);
    Tensor scale = RandomTensor(rng, params, {c}, 0.5, 1.5);
    Tensor bias = RandomTensor(rng, params, {c}, -1, 1);
    Tensor mean = RandomTensor(rng, stats, {c}, -1, 1);
    Tensor var = RandomTensor(rng, stats, {c}, 0.5, 2);
    const float epsilon = 1e-2f, momentum = 0.7f;
    SingleOpModel model("BatchNormalization", opset);
    model.AddAttribute(testing::IntAttr("training_mode", 1))
        .AddAttribute(testing::FloatAttr("epsilon", epsilon))
        .AddAttribute(testing::FloatAttr("momentum", momentum))
        .AddInput(Input(x))
        .AddInput(Initializer(scale))
        .AddInput(Initializer(bias))
        .AddInput(Input(mean))
        .AddInput(Input(var))
        .AddOutput(type)
        .AddOutput(stats)
        .AddOutput(stats);
    const std::string where = "BatchNormalization-" + std::to_string(opset) + " training " +
                              ShapeToString(shape);
    Result<std::vector<Tensor>> outputs = model.Run();
    ASSERT_TRUE(outputs.ok()) << where << ": " << outputs.status().ToString();
    const int64_t n = shape[0];
    const int64_t spatial = x.element_count() / (n * c);
    std::vector<double> y(static_cast<size_t>(x.element_count()));
    std::vector<double> running_mean, running_var;
    for (int64_t ch = 0; ch < c; ++ch) {
      double sum = 0, squares = 0;
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t s = 0; s < spatial; ++s) sum += GetDouble(x, (b * c + ch) * spatial + s);
      }
      const double m = sum / static_cast<double>(n * spatial);
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t s = 0; s < spatial; ++s) {
          const double d = GetDouble(x, (b * c + ch) * spatial + s) - m;
          squares += d * d;
        }
      }
      const double v = squares / static_cast<double>(n * spatial);
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t s = 0; s < spatial; ++s) {
          const int64_t at = (b * c + ch) * spatial + s;
          y[static_cast<size_t>(at)] =
              (GetDouble(x, at) - m) / std::sqrt(v + static_cast<double>(epsilon)) *
                  GetDouble(scale, ch) +
              GetDouble(bias, ch);
        }
      }
      const double mo = momentum;
      running_mean.push_back(GetDouble(mean, ch) * mo + m * (1 - mo));
      running_var.push_back(GetDouble(var, ch) * mo + v * (1 - mo));
    }
    ExpectNear(y, (*outputs)[0], type, where + " Y");
    ExpectNear(running_mean, (*outputs)[1], stats, where + " running_mean");
    ExpectNear(running_var, (*outputs)[2], stats, where + " running_var");
  }
}

TEST(TrainingKernelsTest, OptimizerWithMismatchedGradientIsNamed) {
  SingleOpModel model("Adagrad", 1, kTrainingDomain);
  model.AddInput(Initializer(Tensor::Scalar(0.1f)))
      .AddInput(Input(Tensor::Scalar<int64_t>(0)))
      .AddInput(Input(Tensor::Allocate(DataType::kFloat, {2}).value()))
      .AddInput(Input(Tensor::Allocate(DataType::kFloat, {3}).value()))
      .AddInput(Input(Tensor::Allocate(DataType::kFloat, {2}).value()))
      .AddOutput(DataType::kFloat)
      .AddOutput(DataType::kFloat);
  Result<std::vector<Tensor>> outputs = model.Run();
  ASSERT_FALSE(outputs.ok());
  EXPECT_NE(outputs.status().message().find("input 3 is float [3] but its tensor X (input 2) "
                                            "is float [2]"),
            std::string::npos)
      << outputs.status().message();
}

}  // namespace
}  // namespace nxrt::cpu
