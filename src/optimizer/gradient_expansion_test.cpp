// optimizer/gradient_expansion_test.cpp: the gradient_expansion pass
// (optimizer/passes/gradient_expansion.cpp) on random expression graphs over scalar inputs,
// checked by evaluating the expanded graph here (a small interpreter over the IR's topological
// order) against derivatives computed independently by forward-mode dual numbers, plus named
// refusals, and that it runs at level 0 and cannot be switched off.
//
// Layer: tests of nxrt_optimizer (onnx_test_models.h builds the ModelProtos).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ir/graph_view.h"
#include "ir/onnx_loader.h"
#include "ir/onnx_test_models.h"
#include "optimizer/optimizer.h"

namespace nxrt::opt {
namespace {

using ir::Graph;
using ir::GraphView;
using ir::LoadModelFromBytes;
using ir::Model;
using ir::Node;
using ir::NodeId;
using ir::testing::AddNode;
using ir::testing::Contains;
using ir::testing::FillValueInfo;
using ir::testing::MakeModel;
using ir::testing::Serialize;

// Runs the passes of level 0 only: what every session does whatever its level.
Result<std::vector<PassReport>> ExpandGradients(Model& model) {
  return OptimizeModel(model, {0, {}});
}

// A value and its derivatives with respect to the inputs a and b.
struct Dual {
  double v = 0, da = 0, db = 0;
};

Dual Apply(const std::string& op, Dual x, Dual y) {
  if (op == "Add") return {x.v + y.v, x.da + y.da, x.db + y.db};
  if (op == "Sub") return {x.v - y.v, x.da - y.da, x.db - y.db};
  if (op == "Mul") return {x.v * y.v, x.da * y.v + x.v * y.da, x.db * y.v + x.v * y.db};
  if (op == "Div") {
    return {x.v / y.v, (x.da * y.v - x.v * y.da) / (y.v * y.v),
            (x.db * y.v - x.v * y.db) / (y.v * y.v)};
  }
  if (op == "Neg") return {-x.v, -x.da, -x.db};
  return x;  // Identity
}

// Evaluates the scalar graph `graph` with `inputs` by name; values by name.
std::map<std::string, double> Evaluate(const Model& model, const Graph& graph,
                                       const std::map<std::string, double>& inputs) {
  std::map<std::string, double> values = inputs;
  Result<GraphView> view = GraphView::Create(model, graph);
  EXPECT_TRUE(view.ok()) << view.status().ToString();
  if (!view.ok()) return values;
  for (NodeId id : view->topological_order()) {
    const Node& n = graph.nodes[static_cast<size_t>(id)];
    auto in = [&](size_t i) { return values.at(graph.values[n.inputs[i]].name); };
    double out = 0;
    if (n.op_type == "Shape") {
      out = 0;  // scalars: an empty shape, which ConstantOfShape turns into a scalar
    } else if (n.op_type == "ConstantOfShape") {
      out = n.FindAttribute("value")->t.data<float>()[0];
    } else {
      Dual x{in(0)}, y{n.inputs.size() > 1 ? in(1) : 0};
      out = Apply(n.op_type, x, y).v;
    }
    values[graph.values[n.outputs[0]].name] = out;
  }
  return values;
}

TEST(GradientTest, RandomExpressionsMatchForwardModeDerivatives) {
  std::mt19937_64 rng(2024);
  const char* ops[] = {"Add", "Sub", "Mul", "Div", "Neg", "Identity"};
  for (int round = 0; round < 40; ++round) {
    onnx::ModelProto proto = MakeModel(12);
    proto.add_opset_import()->set_domain("ai.onnx.preview.training");
    proto.mutable_opset_import(1)->set_version(1);
    onnx::GraphProto* g = proto.mutable_graph();
    std::uniform_real_distribution<double> value(0.5, 2.0);
    std::map<std::string, double> inputs;
    std::map<std::string, Dual> duals;
    std::vector<std::string> names = {"a", "b", "c"};  // c is a constant input (zs)
    for (const std::string& name : names) {
      FillValueInfo(g->add_input(), name);
      inputs[name] = static_cast<float>(value(rng));
      duals[name] = {inputs[name], name == "a" ? 1.0 : 0.0, name == "b" ? 1.0 : 0.0};
    }
    const int steps = 1 + static_cast<int>(rng() % 6);
    for (int s = 0; s < steps; ++s) {
      std::string op = ops[rng() % 6];
      const std::string x = names[rng() % names.size()];
      const std::string y = names[rng() % names.size()];
      // Keep away from division by (nearly) zero, where both sides would be inf or NaN.
      if (op == "Div" && std::fabs(duals[y].v) < 0.1) op = "Mul";
      const std::string out = "t" + std::to_string(s);
      const bool unary = op == "Neg" || op == "Identity";
      if (unary) {
        AddNode(g, op, {x}, {out});
      } else {
        AddNode(g, op, {x, y}, {out});
      }
      duals[out] = Apply(op, duals[x], duals[y]);
      names.push_back(out);
    }
    const std::string y = names.back();
    FillValueInfo(g->add_output(), y);
    onnx::NodeProto* grad = AddNode(g, "Gradient", {"a", "b"}, {"dy_da", "dy_db"}, "grad",
                                    "ai.onnx.preview.training");
    onnx::AttributeProto* xs = grad->add_attribute();
    xs->set_name("xs");
    xs->set_type(onnx::AttributeProto::STRINGS);
    xs->add_strings("a");
    xs->add_strings("b");
    onnx::AttributeProto* zs = grad->add_attribute();
    zs->set_name("zs");
    zs->set_type(onnx::AttributeProto::STRINGS);
    zs->add_strings("c");
    onnx::AttributeProto* ya = grad->add_attribute();
    ya->set_name("y");
    ya->set_type(onnx::AttributeProto::STRING);
    ya->set_s(y);
    FillValueInfo(g->add_output(), "dy_da");
    FillValueInfo(g->add_output(), "dy_db");

    const std::vector<std::byte> bytes = Serialize(proto);
    Result<Model> model = LoadModelFromBytes(bytes);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    ASSERT_TRUE(ExpandGradients(*model).ok());
    const std::map<std::string, double> values = Evaluate(*model, *model->graph, inputs);
    const Dual want = duals[y];
    const std::string where = "round " + std::to_string(round) + ", y = " + y;
    EXPECT_NEAR(values.at("dy_da"), want.da, 1e-9 * (1 + std::fabs(want.da))) << where;
    EXPECT_NEAR(values.at("dy_db"), want.db, 1e-9 * (1 + std::fabs(want.db))) << where;
  }
}

TEST(GradientTest, UndifferentiableNodeIsNamed) {
  onnx::ModelProto proto = MakeModel(12);
  proto.add_opset_import()->set_domain("ai.onnx.preview.training");
  proto.mutable_opset_import(1)->set_version(1);
  onnx::GraphProto* g = proto.mutable_graph();
  FillValueInfo(g->add_input(), "a");
  AddNode(g, "Exp", {"a"}, {"e"}, "exp");
  FillValueInfo(g->add_output(), "e");
  onnx::NodeProto* grad =
      AddNode(g, "Gradient", {"a"}, {"de_da"}, "grad", "ai.onnx.preview.training");
  onnx::AttributeProto* xs = grad->add_attribute();
  xs->set_name("xs");
  xs->set_type(onnx::AttributeProto::STRINGS);
  xs->add_strings("a");
  onnx::AttributeProto* y = grad->add_attribute();
  y->set_name("y");
  y->set_type(onnx::AttributeProto::STRING);
  y->set_s("e");
  FillValueInfo(g->add_output(), "de_da");
  const std::vector<std::byte> bytes = Serialize(proto);
  Result<Model> model = LoadModelFromBytes(bytes);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Result<std::vector<PassReport>> expanded = ExpandGradients(*model);
  ASSERT_FALSE(expanded.ok());
  EXPECT_EQ(expanded.status().code(), StatusCode::kUnsupported);
  EXPECT_TRUE(Contains(expanded.status().message(),
                       "optimizer pass 'gradient_expansion': node 'grad' (Gradient): cannot "
                       "differentiate node 'exp' (Exp)"))
      << expanded.status().message();
}

TEST(GradientTest, RunsAtEveryLevelIsReportedAndCannotBeSwitchedOff) {
  onnx::ModelProto proto = MakeModel(12);
  proto.add_opset_import()->set_domain("ai.onnx.preview.training");
  proto.mutable_opset_import(1)->set_version(1);
  onnx::GraphProto* g = proto.mutable_graph();
  FillValueInfo(g->add_input(), "a");
  AddNode(g, "Mul", {"a", "a"}, {"sq"}, "square");
  FillValueInfo(g->add_output(), "sq");
  onnx::NodeProto* grad =
      AddNode(g, "Gradient", {"a"}, {"dsq_da"}, "grad", "ai.onnx.preview.training");
  onnx::AttributeProto* xs = grad->add_attribute();
  xs->set_name("xs");
  xs->set_type(onnx::AttributeProto::STRINGS);
  xs->add_strings("a");
  onnx::AttributeProto* y = grad->add_attribute();
  y->set_name("y");
  y->set_type(onnx::AttributeProto::STRING);
  y->set_s("sq");
  FillValueInfo(g->add_output(), "dsq_da");
  const std::vector<std::byte> bytes = Serialize(proto);
  for (int level = 0; level <= kMaxOptimizationLevel; ++level) {
    Result<Model> model = LoadModelFromBytes(bytes);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    Result<std::vector<PassReport>> passes = OptimizeModel(*model, {level, {}});
    ASSERT_TRUE(passes.ok()) << passes.status().ToString();
    ASSERT_FALSE(passes->empty());
    EXPECT_EQ(passes->front().pass, "gradient_expansion");
    EXPECT_EQ(passes->front().rewrites, 1) << "level " << level;
    for (const Node& n : model->graph->nodes) EXPECT_NE(n.op_type, "Gradient") << "level " << level;
    if (level > 0) continue;  // later passes fold what the interpreter here reads by name
    // d(a*a)/da = 2a at a = 1.5.
    const std::map<std::string, double> values = Evaluate(*model, *model->graph, {{"a", 1.5}});
    EXPECT_NEAR(values.at("dsq_da"), 3.0, 1e-12);
  }
  Result<Model> model = LoadModelFromBytes(bytes);
  ASSERT_TRUE(model.ok());
  Result<std::vector<PassReport>> refused = OptimizeModel(*model, {2, {"gradient_expansion"}});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(refused.status().message(),
                       "optimizer pass 'gradient_expansion' always runs"))
      << refused.status().message();
}

}  // namespace
}  // namespace nxrt::opt
