// optimizer/layer_norm_fusion_test.cpp: the decomposed LayerNormalization of transformer
// exporters → com.nxrt:LayerNormalization, before and after, results against the unfused graph,
// and the cases it must leave alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "optimizer/optimizer_test_util.h"

namespace nxrt::opt {
namespace {

using testing::AddIntAttribute;
using testing::AddNode;
using testing::ExpectSameResults;
using testing::FillFloatTensor;
using testing::FillValueInfo;
using testing::MakeModel;
using testing::Optimize;
using testing::OpTypes;
using testing::RandomFloats;
using testing::Rewrites;

constexpr int64_t kHidden = 8;

// How the decomposition is written (the defaults are bench/make_bench_models.py's layer_norm).
struct LnForm {
  int64_t opset = 17;
  bool mul_square = false;  // Mul(d, d) instead of Pow(d, 2)
  bool reciprocal = false;  // Mul(d, Reciprocal(std)) instead of Div(d, std)
  bool gamma = true;
  bool beta = true;
  bool swap_operands = false;  // Mul(gamma, y), Add(beta, .), Add(eps, var)
  std::vector<int64_t> gamma_dims = {kHidden};
  int64_t axis = -1;
  int64_t keepdims = 1;
  float exponent = 2;
  bool gamma_is_input = false;  // gamma a graph input instead of an initializer
  bool d_is_output = false;     // d = x - mean also a graph output
  bool var_read_twice = false;  // the variance also feeds a second output
  bool through_relu = false;    // normalise Relu(x), a value without a type in the model
};

std::vector<float> Values(size_t n, float base, float step) {
  std::vector<float> v;
  for (size_t i = 0; i < n; ++i) v.push_back(base + step * static_cast<float>(i));
  return v;
}

// x [batch, 3, 8] -> the LayerNorm of `form` -> y.
onnx::ModelProto LnModel(const LnForm& form) {
  onnx::ModelProto m = MakeModel(form.opset);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {"batch", 3, kHidden});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {"batch", 3, kHidden});
  const auto mean = [&](const std::string& in, const std::string& out) {
    if (form.opset >= 18) {
      onnx::NodeProto* n = AddNode(g, "ReduceMean", {in, "axes"}, {out});
      AddIntAttribute(n, "keepdims", form.keepdims);
    } else {
      onnx::NodeProto* n = AddNode(g, "ReduceMean", {in}, {out});
      onnx::AttributeProto* axes = n->add_attribute();
      axes->set_name("axes");
      axes->set_type(onnx::AttributeProto::INTS);
      axes->add_ints(form.axis);
      AddIntAttribute(n, "keepdims", form.keepdims);
    }
  };
  if (form.opset >= 18) {
    onnx::TensorProto* axes = g->add_initializer();
    axes->set_name("axes");
    axes->set_data_type(onnx::TensorProto::INT64);
    axes->add_dims(1);
    axes->add_int64_data(form.axis);
  }
  if (form.through_relu) AddNode(g, "Relu", {"x"}, {"xr"});
  const std::string x = form.through_relu ? "xr" : "x";
  FillFloatTensor(g->add_initializer(), "two", {}, {form.exponent});
  FillFloatTensor(g->add_initializer(), "eps", {}, {1e-5f});
  mean(x, "mean");
  AddNode(g, "Sub", {x, "mean"}, {"d"});
  if (form.mul_square) {
    AddNode(g, "Mul", {"d", "d"}, {"sq"});
  } else {
    AddNode(g, "Pow", {"d", "two"}, {"sq"});
  }
  mean("sq", "var");
  if (form.swap_operands) {
    AddNode(g, "Add", {"eps", "var"}, {"var_eps"});
  } else {
    AddNode(g, "Add", {"var", "eps"}, {"var_eps"});
  }
  AddNode(g, "Sqrt", {"var_eps"}, {"std"});
  std::string y = form.gamma || form.beta ? "normed" : "y";
  if (form.reciprocal) {
    AddNode(g, "Reciprocal", {"std"}, {"inv_std"});
    AddNode(g, "Mul", {"d", "inv_std"}, {y});
  } else {
    AddNode(g, "Div", {"d", "std"}, {y});
  }
  if (form.gamma) {
    const std::string out = form.beta ? "scaled" : "y";
    if (form.gamma_is_input) {
      FillValueInfo(g->add_input(), "gamma", onnx::TensorProto::FLOAT, {kHidden});
    } else {
      onnx::TensorProto* t = g->add_initializer();
      FillFloatTensor(t, "gamma", {}, Values(kHidden, 0.5f, 0.125f));
      for (int64_t d : form.gamma_dims) t->add_dims(d);
    }
    if (form.swap_operands) {
      AddNode(g, "Mul", {"gamma", y}, {out});
    } else {
      AddNode(g, "Mul", {y, "gamma"}, {out});
    }
    y = out;
  }
  if (form.beta) {
    FillFloatTensor(g->add_initializer(), "beta", {kHidden}, Values(kHidden, -0.25f, 0.0625f));
    if (form.swap_operands) {
      AddNode(g, "Add", {"beta", y}, {"y"});
    } else {
      AddNode(g, "Add", {y, "beta"}, {"y"});
    }
  }
  if (form.d_is_output) {
    FillValueInfo(g->add_output(), "d", onnx::TensorProto::FLOAT, {"batch", 3, kHidden});
  }
  if (form.var_read_twice) {
    AddNode(g, "Neg", {"var"}, {"neg_var"});
    FillValueInfo(g->add_output(), "neg_var", onnx::TensorProto::FLOAT, {"batch", 3, 1});
  }
  return m;
}

std::vector<NamedTensor> LnInputs(const LnForm& form) {
  // Values off zero mean and of varied spread, so a wrong mean or variance shows.
  std::vector<NamedTensor> inputs = {{"x", RandomFloats({2, 3, kHidden}, 7, -2.0f, 3.0f)}};
  if (form.gamma_is_input) inputs.push_back({"gamma", RandomFloats({kHidden}, 8)});
  return inputs;
}

const ir::Attribute* Attr(const ir::Node& n, const char* name) { return n.FindAttribute(name); }

TEST(LayerNormFusion, FusesTheExporterPatternWithScaleAndBias) {
  const LnForm form;
  ir::Model model = Optimize(LnModel(form), {"layer_norm_fusion"});
  ASSERT_EQ(OpTypes(*model.graph), std::vector<std::string>{"com.nxrt:LayerNormalization"});
  const ir::Node& ln = model.graph->nodes[0];
  ASSERT_EQ(ln.inputs.size(), 3u);
  EXPECT_EQ(model.graph->values[ln.inputs[0]].name, "x");
  EXPECT_EQ(model.graph->values[ln.inputs[1]].name, "gamma");
  EXPECT_EQ(model.graph->values[ln.inputs[2]].name, "beta");
  EXPECT_EQ(model.graph->values[ln.outputs[0]].name, "y");
  ASSERT_NE(Attr(ln, "axis"), nullptr);
  EXPECT_EQ(Attr(ln, "axis")->i, -1);
  ASSERT_NE(Attr(ln, "epsilon"), nullptr);
  EXPECT_FLOAT_EQ(Attr(ln, "epsilon")->f, 1e-5f);
  // Only the two parameters stay as initializers; the exponent and epsilon constants go.
  EXPECT_EQ(model.graph->initializers.size(), 2u);
  EXPECT_EQ(model.OpsetFor("com.nxrt"), 1);
  const auto stats = ExpectSameResults(LnModel(form), LnInputs(form), {"layer_norm_fusion"});
  EXPECT_EQ(Rewrites(stats, "layer_norm_fusion"), 1);
}

TEST(LayerNormFusion, FusesTheOtherSpellings) {
  LnForm mul_reciprocal;
  mul_reciprocal.mul_square = true;
  mul_reciprocal.reciprocal = true;
  mul_reciprocal.swap_operands = true;
  LnForm opset18;
  opset18.opset = 18;
  opset18.axis = 2;
  LnForm rank3_gamma;
  rank3_gamma.gamma_dims = {1, 1, kHidden};
  LnForm bare;
  bare.gamma = false;
  bare.beta = false;
  LnForm gamma_only;
  gamma_only.beta = false;
  for (const LnForm& form : {mul_reciprocal, opset18, rank3_gamma, bare, gamma_only}) {
    ir::Model model = Optimize(LnModel(form), {"layer_norm_fusion"});
    ASSERT_EQ(OpTypes(*model.graph), std::vector<std::string>{"com.nxrt:LayerNormalization"});
    const ir::Node& ln = model.graph->nodes[0];
    EXPECT_EQ(ln.inputs.size(), form.beta ? 3u : 2u);
    // Scale is always [H]: the constant, a flattened copy, or ones.
    const Tensor* scale = model.graph->FindInitializer(ln.inputs[1]) != nullptr
                              ? &model.graph->FindInitializer(ln.inputs[1])->tensor
                              : nullptr;
    ASSERT_NE(scale, nullptr);
    EXPECT_EQ(std::vector<int64_t>(scale->shape().begin(), scale->shape().end()),
              std::vector<int64_t>{kHidden});
    if (!form.gamma) {
      for (int64_t i = 0; i < kHidden; ++i) EXPECT_EQ(scale->data<float>()[i], 1.0f);
    }
    const auto stats = ExpectSameResults(LnModel(form), LnInputs(form), {"layer_norm_fusion"});
    EXPECT_EQ(Rewrites(stats, "layer_norm_fusion"), 1);
  }
}

TEST(LayerNormFusion, LeavesPatternsItCannotReplace) {
  const std::vector<std::string> unfused = {"ReduceMean", "Sub", "Pow", "ReduceMean", "Add",
                                            "Sqrt",       "Div", "Mul", "Add"};
  LnForm first_axis;  // a mean over axis 0 is no LayerNormalization over the last axis
  first_axis.axis = 0;
  LnForm dropped_dims;
  dropped_dims.keepdims = 0;
  LnForm cube;
  cube.exponent = 3;
  LnForm d_output;
  d_output.d_is_output = true;
  LnForm var_twice;
  var_twice.var_read_twice = true;
  for (const LnForm& form : {first_axis, dropped_dims, cube, d_output, var_twice}) {
    ir::Model model = Optimize(LnModel(form), {"layer_norm_fusion"});
    std::vector<std::string> ops = OpTypes(*model.graph);
    if (form.var_read_twice) ops.pop_back();  // the extra Neg
    EXPECT_EQ(ops, unfused);
  }
  const auto stats =
      ExpectSameResults(LnModel(var_twice), LnInputs(var_twice), {"layer_norm_fusion"});
  EXPECT_EQ(Rewrites(stats, "layer_norm_fusion"), 0);
}

TEST(LayerNormFusion, AScaleFedAtRunTimeStaysOutside) {
  LnForm form;
  form.gamma_is_input = true;
  ir::Model model = Optimize(LnModel(form), {"layer_norm_fusion"});
  EXPECT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"com.nxrt:LayerNormalization", "Mul", "Add"}));
  const auto stats = ExpectSameResults(LnModel(form), LnInputs(form), {"layer_norm_fusion"});
  EXPECT_EQ(Rewrites(stats, "layer_norm_fusion"), 1);
}

TEST(LayerNormFusion, TakesHFromTheScaleWhenTheInputHasNoType) {
  LnForm with_scale;
  with_scale.through_relu = true;
  ir::Model model = Optimize(LnModel(with_scale), {"layer_norm_fusion"});
  EXPECT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"Relu", "com.nxrt:LayerNormalization"}));
  const auto stats =
      ExpectSameResults(LnModel(with_scale), LnInputs(with_scale), {"layer_norm_fusion"});
  EXPECT_EQ(Rewrites(stats, "layer_norm_fusion"), 1);
  // Without gamma and beta nothing tells H, which the ones of Scale need.
  LnForm bare = with_scale;
  bare.gamma = false;
  bare.beta = false;
  model = Optimize(LnModel(bare), {"layer_norm_fusion"});
  EXPECT_EQ(model.graph->nodes.size(), 8u);
}

TEST(LayerNormFusion, ChainedNormsBothFuse) {
  // y1 = LN(x); y = LN(y1): the second pattern reads the first one's output.
  onnx::ModelProto m = LnModel(LnForm{});
  onnx::GraphProto* g = m.mutable_graph();
  const int nodes = g->node_size();
  for (int i = 0; i < nodes; ++i) {
    onnx::NodeProto* copy = g->add_node();
    *copy = g->node(i);
    for (auto& in : *copy->mutable_input()) {
      if (in == "x") {
        in = "y1";
      } else if (in != "two" && in != "eps" && in != "gamma" && in != "beta") {
        in += "_2";
      }
    }
    for (auto& out : *copy->mutable_output()) out += "_2";
  }
  for (int i = 0; i < nodes; ++i) {
    for (auto& in : *g->mutable_node(i)->mutable_input()) {
      if (in == "y") in = "y1";
    }
    for (auto& out : *g->mutable_node(i)->mutable_output()) {
      if (out == "y") out = "y1";
    }
  }
  for (auto& out : *g->mutable_node(g->node_size() - 1)->mutable_output()) out = "y";
  ir::Model model = Optimize(m, {"layer_norm_fusion"});
  EXPECT_EQ(OpTypes(*model.graph), (std::vector<std::string>{"com.nxrt:LayerNormalization",
                                                             "com.nxrt:LayerNormalization"}));
  const auto stats = ExpectSameResults(m, LnInputs(LnForm{}), {"layer_norm_fusion"});
  EXPECT_EQ(Rewrites(stats, "layer_norm_fusion"), 2);
}

}  // namespace
}  // namespace nxrt::opt
