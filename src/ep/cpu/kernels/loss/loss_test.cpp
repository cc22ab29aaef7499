// ep/cpu/kernels/loss/loss_test.cpp: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss run
// through the session as one-node models, against references written here from the ONNX
// definitions (plain loops in double), on random shapes with fixed seeds.
//
// Layer: tests of nxrt_ep_cpu (testing/single_op_model.h). Every reduction, with and without
// weights and ignore_index (also negative), int32 and int64 targets, float, double and float16,
// SoftmaxCrossEntropyLoss with and without its log_prob output, and a named out-of-range target.
// NegativeLogLikelihoodLoss also through its ONNX function body, which the session expands when
// an ORT-plugin-like EP is listed (runtime/model_pipeline.h, optimizer/function_expansion.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/testing/test_util.h"
#include "ep/cpu/testing/single_op_model.h"
#include "ep/graph_claimer.h"
#include "ir/graph_view.h"

namespace nxrt::cpu {
namespace {

using math::testing::GetDouble;
using math::testing::RandomTensor;
using math::testing::RoundTo;
using testing::Initializer;
using testing::Input;
using testing::Omitted;
using testing::SingleOpModel;

// Tolerance of a value computed in double and rounded once to `type`.
double Tolerance(DataType type, double value) {
  const double rel = type == DataType::kFloat16 ? 2e-3 : type == DataType::kFloat ? 1e-5 : 1e-12;
  return rel * (1 + std::fabs(value));
}

void ExpectNear(const std::vector<double>& expected, const Tensor& got, const Shape& shape,
                DataType type, const std::string& where) {
  ASSERT_EQ(DataTypeName(got.dtype()), DataTypeName(type)) << where;
  ASSERT_EQ(ShapeToString(got.shape()), ShapeToString(shape)) << where;
  for (size_t i = 0; i < expected.size(); ++i) {
    const double g = GetDouble(got, static_cast<int64_t>(i));
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(g)) << where << ", element " << i << ": got " << g;
      continue;
    }
    EXPECT_NEAR(g, expected[i], Tolerance(type, expected[i])) << where << ", element " << i;
  }
}

struct Case {
  Shape shape;  // [N, C, d...]
  DataType type = DataType::kFloat;
  DataType index_type = DataType::kInt64;
  std::string reduction = "mean";
  std::optional<int64_t> ignore_index;
  bool weighted = false;
};

Case RandomCase(std::mt19937_64& rng, int i) {
  Case c;
  const int rank = 2 + static_cast<int>(rng() % 3);
  for (int d = 0; d < rank; ++d) c.shape.push_back(1 + static_cast<int64_t>(rng() % 4));
  const DataType types[] = {DataType::kFloat, DataType::kDouble, DataType::kFloat16};
  c.type = types[i % 3];
  c.index_type = i % 2 ? DataType::kInt32 : DataType::kInt64;
  const char* reductions[] = {"none", "sum", "mean"};
  c.reduction = reductions[(i / 3) % 3];
  if (i % 4 == 1) c.ignore_index = 0;
  if (i % 4 == 2) c.ignore_index = -1;
  c.weighted = i % 5 < 3;
  return c;
}

// The NLL reference over log-probabilities `lp` (as doubles, [N, C, d...] row-major).
std::vector<double> NllReference(const Case& c, const std::vector<double>& lp,
                                 const std::vector<int64_t>& target,
                                 const std::vector<double>& weight) {
  const int64_t n = c.shape[0], classes = c.shape[1];
  int64_t inner = 1;
  for (size_t i = 2; i < c.shape.size(); ++i) inner *= c.shape[i];
  std::vector<double> losses;
  double sum = 0, weights = 0;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t d = 0; d < inner; ++d) {
      const int64_t t = target[static_cast<size_t>(b * inner + d)];
      double loss = 0;
      if (!(c.ignore_index && t == *c.ignore_index)) {
        const double w = c.weighted ? weight[static_cast<size_t>(t)] : 1.0;
        loss = -lp[static_cast<size_t>((b * classes + t) * inner + d)] * w;
        weights += w;
      }
      losses.push_back(loss);
      sum += loss;
    }
  }
  if (c.reduction == "none") return losses;
  return {c.reduction == "sum" ? sum : sum / weights};
}

// Targets in [0, C), some of them ignore_index when it is set.
Tensor RandomTargets(std::mt19937_64& rng, const Case& c) {
  Shape shape = {c.shape[0]};
  shape.insert(shape.end(), c.shape.begin() + 2, c.shape.end());
  Tensor t = RandomTensor(rng, c.index_type, shape, 0, static_cast<double>(c.shape[1] - 1));
  if (c.ignore_index && *c.ignore_index < 0) {
    math::testing::SetValue(&t, 0, 0, *c.ignore_index);
  }
  return t;
}

std::vector<double> Doubles(const Tensor& t) {
  std::vector<double> values;
  for (int64_t i = 0; i < t.element_count(); ++i) values.push_back(GetDouble(t, i));
  return values;
}

std::vector<int64_t> Int64s(const Tensor& t) {
  std::vector<int64_t> values;
  for (int64_t i = 0; i < t.element_count(); ++i) {
    values.push_back(static_cast<int64_t>(math::testing::GetInt(t, i)));
  }
  return values;
}

Shape LossShape(const Case& c) {
  if (c.reduction != "none") return {};
  Shape shape = {c.shape[0]};
  shape.insert(shape.end(), c.shape.begin() + 2, c.shape.end());
  return shape;
}

void AddLossAttributes(SingleOpModel& model, const Case& c) {
  model.AddAttribute(testing::StringAttr("reduction", c.reduction));
  if (c.ignore_index) model.AddAttribute(testing::IntAttr("ignore_index", *c.ignore_index));
}

std::string Describe(const Case& c) {
  return ShapeToString(c.shape) + " " + std::string(DataTypeName(c.type)) + " targets " +
         std::string(DataTypeName(c.index_type)) + " reduction " + c.reduction +
         (c.ignore_index ? " ignore " + std::to_string(*c.ignore_index) : "") +
         (c.weighted ? " weighted" : "");
}

TEST(LossKernelsTest, NegativeLogLikelihoodLossMatchesTheDefinition) {
  std::mt19937_64 rng(1212);
  for (int i = 0; i < 36; ++i) {
    const Case c = RandomCase(rng, i);
    Tensor input = RandomTensor(rng, c.type, c.shape, -3, 0);
    Tensor target = RandomTargets(rng, c);
    Tensor weight = RandomTensor(rng, c.type, {c.shape[1]}, 0.25, 2);
    const std::vector<double> expected =
        NllReference(c, Doubles(input), Int64s(target), Doubles(weight));
    for (int64_t opset : {12, 13}) {
      SingleOpModel model("NegativeLogLikelihoodLoss", opset);
      AddLossAttributes(model, c);
      model.AddInput(Input(input)).AddInput(Input(target));
      if (c.weighted) model.AddInput(Initializer(weight));
      model.AddOutput(c.type);
      Result<std::vector<Tensor>> outputs = model.Run();
      const std::string where = "NLL-" + std::to_string(opset) + " " + Describe(c);
      ASSERT_TRUE(outputs.ok()) << where << ": " << outputs.status().ToString();
      ExpectNear(expected, (*outputs)[0], LossShape(c), c.type, where);
    }
  }
}

// Claims nothing, like an ORT plugin EP that takes no node, and records the op types of every
// graph it is shown, in order.
class ClaimsNothingEp : public ExecutionProvider, public ep::GraphClaimer {
 public:
  ClaimsNothingEp() : ExecutionProvider("claims_nothing", Device{}) {}
  KernelMatch Supports(const NodeInfo&) const override {
    return KernelMatch::Unsupported("claims through ProposeClaims only");
  }
  Result<std::unique_ptr<Kernel>> CreateKernel(const NodeInfo& node) override {
    return node.Error(StatusCode::kNotImplemented, "no kernels");
  }
  EpExtension* QueryExtension(std::string_view name) override {
    return name == GraphClaimer::kExtensionName ? static_cast<GraphClaimer*>(this) : nullptr;
  }
  Result<ep::GraphClaims> ProposeClaims(const ir::GraphView& view, const std::vector<bool>&,
                                        const std::vector<std::string>&) override {
    std::vector<std::string> ops;
    for (const ir::Node& node : view.graph().nodes) ops.push_back(node.op_type);
    shown.push_back(std::move(ops));
    return ep::GraphClaims{};
  }
  Status CompileClaims(const ir::GraphView&, std::span<const ClaimToCompile>) override {
    return Status::Ok();
  }
  Result<std::unique_ptr<Kernel>> CreateNodeKernel(const ir::Graph&, ir::NodeId) override {
    return MakeStatus(StatusCode::kNotImplemented, "claims nothing");
  }
  Result<ControlFlowHelpers> ControlFlowHelpersFor(const ir::Graph&, ir::NodeId) override {
    return MakeStatus(StatusCode::kNotImplemented, "claims nothing");
  }

  std::vector<std::vector<std::string>> shown;
};

// With an ORT-plugin-like EP listed, the CPU EP leaves NegativeLogLikelihoodLoss (ORT's CPU EP has
// no kernel for it), so it runs through its ONNX function body (Unsqueeze, GatherElements, Neg,
// Slice, ..., built by libonnx for the node's attributes and inputs): the EP is shown the graph
// again with the expansion, and the CPU EP's kernels of those nodes give the definition's loss.
TEST(LossKernelsTest, NegativeLogLikelihoodLossRunsThroughItsFunctionBody) {
  std::mt19937_64 rng(1414);
  for (int i = 0; i < 24; ++i) {
    const Case c = RandomCase(rng, i);
    Tensor input = RandomTensor(rng, c.type, c.shape, -3, 0);
    Tensor target = RandomTargets(rng, c);
    Tensor weight = RandomTensor(rng, c.type, {c.shape[1]}, 0.25, 2);
    const std::vector<double> expected =
        NllReference(c, Doubles(input), Int64s(target), Doubles(weight));
    const int64_t opset = i % 2 ? 12 : 13;
    SingleOpModel model("NegativeLogLikelihoodLoss", opset);
    AddLossAttributes(model, c);
    model.AddInput(Input(input)).AddInput(Input(target));
    if (c.weighted) model.AddInput(Initializer(weight));
    model.AddOutput(c.type);
    auto ep = std::make_shared<ClaimsNothingEp>();
    SessionOptions options;
    options.providers.push_back(EpSpec{"claims_nothing", {}, {}, ep});
    Result<std::vector<Tensor>> outputs = model.Run(options);
    const std::string where = "NLL-" + std::to_string(opset) + " " + Describe(c);
    ASSERT_TRUE(outputs.ok()) << where << ": " << outputs.status().ToString();
    ExpectNear(expected, (*outputs)[0], LossShape(c), c.type, where);
    ASSERT_EQ(ep->shown.size(), 2u) << where;
    EXPECT_EQ(ep->shown[0], std::vector<std::string>{"NegativeLogLikelihoodLoss"}) << where;
    const std::vector<std::string>& expanded = ep->shown[1];
    EXPECT_NE(std::find(expanded.begin(), expanded.end(), "GatherElements"), expanded.end())
        << where;
    EXPECT_EQ(std::find(expanded.begin(), expanded.end(), "NegativeLogLikelihoodLoss"),
              expanded.end())
        << where;
  }
}

TEST(LossKernelsTest, SoftmaxCrossEntropyLossMatchesTheDefinition) {
  std::mt19937_64 rng(1313);
  for (int i = 0; i < 36; ++i) {
    const Case c = RandomCase(rng, i);
    Tensor scores = RandomTensor(rng, c.type, c.shape, -4, 4);
    Tensor labels = RandomTargets(rng, c);
    Tensor weights = RandomTensor(rng, c.type, {c.shape[1]}, 0.25, 2);
    // log_prob along axis 1, in double; the kernel rounds it to the type before the NLL step.
    const std::vector<double> x = Doubles(scores);
    std::vector<double> log_prob(x.size()), rounded(x.size());
    const int64_t classes = c.shape[1];
    const int64_t inner = scores.element_count() / (c.shape[0] * classes);
    for (int64_t b = 0; b < c.shape[0]; ++b) {
      for (int64_t d = 0; d < inner; ++d) {
        double sum = 0;
        for (int64_t k = 0; k < classes; ++k) {
          sum += std::exp(x[static_cast<size_t>((b * classes + k) * inner + d)]);
        }
        for (int64_t k = 0; k < classes; ++k) {
          const auto at = static_cast<size_t>((b * classes + k) * inner + d);
          log_prob[at] = x[at] - std::log(sum);
          rounded[at] = RoundTo(c.type, log_prob[at]);
        }
      }
    }
    const std::vector<double> expected =
        NllReference(c, rounded, Int64s(labels), Doubles(weights));
    const int64_t opset = i % 2 ? 12 : 13;
    const bool with_log_prob = i % 3 != 0;
    SingleOpModel model("SoftmaxCrossEntropyLoss", opset);
    AddLossAttributes(model, c);
    model.AddInput(Input(scores)).AddInput(Input(labels));
    model.AddInput(c.weighted ? Initializer(weights) : Omitted());
    model.AddOutput(c.type);
    if (with_log_prob) model.AddOutput(c.type);
    Result<std::vector<Tensor>> outputs = model.Run();
    const std::string where = "SCE-" + std::to_string(opset) + " " + Describe(c);
    ASSERT_TRUE(outputs.ok()) << where << ": " << outputs.status().ToString();
    ExpectNear(expected, (*outputs)[0], LossShape(c), c.type, where);
    if (with_log_prob) ExpectNear(log_prob, (*outputs)[1], c.shape, c.type, where + " log_prob");
  }
}

TEST(LossKernelsTest, MeanOverOnlyIgnoredTargetsIsNan) {
  Tensor input = Tensor::FromVector<float>({2, 3}, {-1, -2, -3, -4, -5, -6}).value();
  Tensor target = Tensor::FromVector<int64_t>({2}, {1, 1}).value();
  SingleOpModel model("NegativeLogLikelihoodLoss", 13);
  model.AddAttribute(testing::IntAttr("ignore_index", 1))
      .AddInput(Input(input))
      .AddInput(Input(target))
      .AddOutput(DataType::kFloat);
  Result<std::vector<Tensor>> outputs = model.Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  EXPECT_TRUE(std::isnan(GetDouble((*outputs)[0], 0)));
}

TEST(LossKernelsTest, TargetOutOfRangeIsNamed) {
  Tensor input = Tensor::FromVector<float>({2, 3}, {-1, -2, -3, -4, -5, -6}).value();
  Tensor target = Tensor::FromVector<int32_t>({2}, {0, 3}).value();
  SingleOpModel model("NegativeLogLikelihoodLoss", 13);
  model.AddInput(Input(input)).AddInput(Input(target)).AddOutput(DataType::kFloat);
  Result<std::vector<Tensor>> outputs = model.Run();
  ASSERT_FALSE(outputs.ok());
  EXPECT_NE(outputs.status().message().find(
                "input 1 'target' holds class 3 at element 1; classes are [0, 3)"),
            std::string::npos)
      << outputs.status().message();
}

TEST(LossKernelsTest, UnknownReductionIsNamed) {
  SingleOpModel model("SoftmaxCrossEntropyLoss", 13);
  model.AddAttribute(testing::StringAttr("reduction", "average"))
      .AddInput(Input(Tensor::FromVector<float>({1, 2}, {0, 1}).value()))
      .AddInput(Input(Tensor::FromVector<int64_t>({1}, {0}).value()))
      .AddOutput(DataType::kFloat);
  Result<std::vector<Tensor>> outputs = model.Run();
  ASSERT_FALSE(outputs.ok());
  EXPECT_NE(outputs.status().message().find("reduction is 'average'"), std::string::npos)
      << outputs.status().message();
}

}  // namespace
}  // namespace nxrt::cpu
