// ep/test_graph.h: a small builder of ir::Model graphs for the EP tests (not part of nxrt_ep).
//
// Values are created by name on first mention; every node input must be a graph input, an
// initializer or an earlier or later node's output (GraphView checks). The model imports the
// default domain at opset 17 unless told otherwise, and any other domain a node uses at
// version 1. Example, the three-node case of the partitioner tests:
//   TestGraph g;
//   g.Input("x");
//   g.Node("Add", {"x", "x"}, {"a"}, "A");
//   g.Node("Custom", {"a", "a"}, {"u"}, "U", "com.example");
//   g.Node("Add", {"a", "u"}, {"b"}, "B");
//   g.Output("b");
//   ir::GraphView view = g.View();
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/graph_view.h"

namespace nxrt::ep::testing {

class TestGraph {
 public:
  explicit TestGraph(int64_t opset = 17) : graph_(std::make_shared<ir::Graph>()) {
    graph_->name = "test";
    model_.ir_version = 8;
    model_.opset_imports.push_back({"", opset});
    model_.graph = graph_;
  }
  // Views point into the model, so it must stay where it is.
  TestGraph(const TestGraph&) = delete;
  TestGraph& operator=(const TestGraph&) = delete;

  ir::Graph& graph() { return *graph_; }
  ir::Model& model() { return model_; }

  // The value named `name`, created as a float tensor of unknown shape when new.
  ir::ValueId Value(const std::string& name) {
    ir::ValueId id = graph_->FindValue(name);
    if (id != ir::kNoValue) return id;
    ir::Value v;
    v.name = name;
    v.type = ir::TypeInfo::Tensor(DataType::kFloat);
    return graph_->AddValue(std::move(v));
  }

  ir::ValueId Input(const std::string& name, DataType dtype = DataType::kFloat,
                    std::optional<std::vector<ir::Dim>> shape = std::nullopt) {
    ir::ValueId id = Value(name);
    graph_->values[id].type = ir::TypeInfo::Tensor(dtype, std::move(shape));
    graph_->inputs.push_back(id);
    return id;
  }

  ir::ValueId Initializer(const std::string& name, Tensor tensor) {
    ir::ValueId id = Value(name);
    graph_->values[id].type = ir::TypeInfo::Tensor(tensor.dtype());
    ir::Initializer init;
    init.value = id;
    init.tensor = std::move(tensor);
    graph_->AddInitializer(std::move(init));
    return id;
  }

  void Output(const std::string& name) { graph_->outputs.push_back(Value(name)); }

  // Adds a node; "" in `inputs`/`outputs` is an omitted optional slot. Returns its id.
  ir::NodeId Node(const std::string& op_type, const std::vector<std::string>& inputs,
                  const std::vector<std::string>& outputs, std::string name = "",
                  const std::string& domain = "") {
    ir::Node node;
    node.id = static_cast<ir::NodeId>(graph_->nodes.size());
    node.name = name.empty() ? op_type + "_" + std::to_string(node.id) : std::move(name);
    node.op_type = op_type;
    node.domain = domain;
    for (const std::string& in : inputs)
      node.inputs.push_back(in.empty() ? ir::kNoValue : Value(in));
    for (const std::string& out : outputs) {
      node.outputs.push_back(out.empty() ? ir::kNoValue : Value(out));
    }
    if (!domain.empty() && !model_.OpsetFor(domain)) model_.opset_imports.push_back({domain, 1});
    graph_->nodes.push_back(std::move(node));
    return graph_->nodes.back().id;
  }

  // Gives the last node a subgraph attribute whose body reads `outer` from this graph.
  void AddSubgraph(ir::NodeId node, const std::string& attr_name,
                   const std::vector<std::string>& outer) {
    auto body = std::make_shared<ir::Graph>();
    body->name = attr_name;
    body->parent = graph_.get();
    for (const std::string& name : outer) {
      ir::Value v;
      v.name = name;
      v.outer_scope = true;
      v.type = ir::TypeInfo::Tensor(DataType::kFloat);
      body->outputs.push_back(body->AddValue(std::move(v)));
    }
    ir::Attribute attr;
    attr.name = attr_name;
    attr.type = ir::Attribute::Type::kGraph;
    attr.g = body;
    graph_->nodes[node].attributes.push_back(std::move(attr));
  }

  // The validated view; fails the current test when the graph is invalid.
  ir::GraphView View() {
    Result<ir::GraphView> view = ir::GraphView::Create(model_, *graph_);
    EXPECT_TRUE(view.ok()) << view.status().ToString();
    return std::move(view).value();
  }

 private:
  ir::Model model_;
  std::shared_ptr<ir::Graph> graph_;
};

}  // namespace nxrt::ep::testing
