// optimizer/fusion_nan_test.cpp: issue 20's NaN case. An activation fused into a Conv, MatMul or
// Gemm (conv_activation_fusion, matmul_activation_fusion) must give what the ONNX definitions
// give, NaN and infinities included: Relu, Clip, HardSigmoid, and Max/Min with a constant keep a
// NaN (ONNX Runtime 1.30 does). oneDNN's relu and clip post-ops turned NaN into 0 or the bound:
// [NaN, -20, 20] gave [0, 0, 20] after a fused Relu.
//
// Layer: tests of nxrt_optimizer through the public Session. The expected values are the ONNX
// definitions evaluated here in double; the product is x times a weight of 1 (exact), so each
// output is the activation of its input element.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "optimizer/activation_test_util.h"

namespace nxrt::opt {
namespace {

using testing::AddFloatAttribute;
using testing::AddFloatConstant;
using testing::AddFloatOutput;
using testing::AddNode;
using testing::FillFloatInfo;
using testing::MakeModel;
using testing::Rewrites;
using testing::Serialize;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct ActivationCase {
  std::string name;
  std::function<double(double)> reference;  // the ONNX definition
};

// Relu: max(0, x); Clip(-1, 1); HardSigmoid(0.2, 0.5): max(0, min(1, 0.2 x + 0.5)); Max(x, 0.5);
// Min(x, 0.5); LeakyRelu(0.01); Sigmoid; Tanh; HardSwish: x * HardSigmoid(1/6, 1/2). Each gives
// NaN for NaN.
std::vector<ActivationCase> Activations() {
  auto keep_nan = [](std::function<double(double)> f) {
    return [f](double x) { return std::isnan(x) ? kNaN : f(x); };
  };
  return {
      {"Relu", keep_nan([](double x) { return x > 0 ? x : 0.0; })},
      {"Clip", keep_nan([](double x) { return std::min(1.0, std::max(-1.0, x)); })},
      {"HardSigmoid", keep_nan([](double x) { return std::min(1.0, std::max(0.0, 0.2 * x + 0.5)); })},
      {"Max", keep_nan([](double x) { return std::max(x, 0.5); })},
      {"Min", keep_nan([](double x) { return std::min(x, 0.5); })},
      {"LeakyRelu", keep_nan([](double x) { return x >= 0 ? x : 0.01 * x; })},
      {"Sigmoid", keep_nan([](double x) { return 1 / (1 + std::exp(-x)); })},
      {"Tanh", keep_nan([](double x) { return std::tanh(x); })},
      {"HardSwish",
       keep_nan([](double x) { return x * std::min(1.0, std::max(0.0, x / 6 + 0.5)); })},
  };
}

// [NaN, -20, 20, inf, -inf, 0.3, -0.3, 7] repeated to `n` elements: enough to fill vector
// registers and their tails.
std::vector<float> Inputs(int64_t n) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> pattern = {std::numeric_limits<float>::quiet_NaN(), -20, 20, inf, -inf,
                                      0.3f, -0.3f, 7};
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = pattern[i % pattern.size()];
  return x;
}

// x → op(x, w = 1) → activation → y, x of shape `x_dims` (the product keeps x's values).
onnx::ModelProto Model(const std::string& op, const std::string& activation,
                       const std::vector<int64_t>& x_dims) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillFloatInfo(g->add_input(), "x", x_dims);
  AddFloatOutput(g, "y");
  AddFloatConstant(g, "w", op == "Conv" ? std::vector<int64_t>{1, 1, 1, 1} : std::vector<int64_t>{1, 1},
                   {1.0f});
  AddNode(g, op, {"x", "w"}, {"p"}, "product");
  if (activation == "Clip") {
    AddFloatConstant(g, "lo", {}, {-1.0f});
    AddFloatConstant(g, "hi", {}, {1.0f});
    AddNode(g, "Clip", {"p", "lo", "hi"}, {"y"}, "activation");
  } else if (activation == "Max" || activation == "Min") {
    AddFloatConstant(g, "c", {}, {0.5f});
    AddNode(g, activation, {"p", "c"}, {"y"}, "activation");
  } else {
    onnx::NodeProto* n = AddNode(g, activation, {"p"}, {"y"}, "activation");
    if (activation == "HardSigmoid") {
      AddFloatAttribute(n, "alpha", 0.2f);
      AddFloatAttribute(n, "beta", 0.5f);
    }
  }
  return m;
}

TEST(FusionNaN, FusedActivationsKeepNaNAndInfinitiesAsTheOnnxDefinitions) {
  constexpr int64_t kCount = 1003;
  const std::vector<float> x = Inputs(kCount);
  for (const std::string op : {"Conv", "MatMul", "Gemm"}) {
    const std::vector<int64_t> x_dims =
        op == "Conv" ? std::vector<int64_t>{1, 1, 1, kCount} : std::vector<int64_t>{kCount, 1};
    const std::string pass = op == "Conv" ? "conv_activation_fusion" : "matmul_activation_fusion";
    for (const ActivationCase& act : Activations()) {
      SCOPED_TRACE(op + " + " + act.name);
      SessionOptions options;
      options.intra_op_threads = 2;
      auto session = Session::CreateFromBytes(Serialize(Model(op, act.name, x_dims)), options);
      ASSERT_TRUE(session.ok()) << session.status().ToString();
      // MatMul and Gemm take no HardSigmoid or HardSwish epilogue; every other pair is fused.
      if (op == "Conv" || (act.name != "HardSigmoid" && act.name != "HardSwish")) {
        EXPECT_EQ(Rewrites((*session)->OptimizerPasses(), pass), 1);
      }
      auto out = (*session)->Run(
          {{"x", Tensor::FromVector<float>(std::vector<int64_t>(x_dims), x).value()}});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      const Tensor& y = (*out)[0].tensor;
      ASSERT_EQ(y.element_count(), kCount);
      int bad = 0;
      for (int64_t i = 0; i < kCount && bad < 5; ++i) {
        const double want = act.reference(x[i]);
        const float got = y.data<float>()[i];
        const bool same = std::isnan(want) ? std::isnan(got)
                                           : (std::isinf(want) ? got == want
                                                               : std::fabs(got - want) <=
                                                                     1e-6 + 1e-5 * std::fabs(want));
        EXPECT_TRUE(same) << "x[" << i << "] = " << x[i] << ": got " << got << ", the ONNX "
                          << "definition gives " << want;
        bad += same ? 0 : 1;
      }
    }
  }
}

}  // namespace
}  // namespace nxrt::opt
