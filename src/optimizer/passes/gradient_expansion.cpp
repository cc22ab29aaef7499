// optimizer/passes/gradient_expansion.cpp: expands ai.onnx.preview.training Gradient nodes into
// ordinary ONNX nodes that compute the gradient by reverse-mode differentiation of the graph
// around them.
//
// A Gradient node (ONNX onnx/defs/training/defs.cc, version 1) names, by attribute, the tensors
// `xs` to differentiate with respect to, optional constant inputs `zs`, and the tensor `y`; its
// outputs are dY/dX for each X in xs, each of X's shape. No kernel can compute this: it needs the
// nodes between xs and y, which only the graph knows. So this pass, which runs at every
// optimisation level and cannot be switched off, rewrites each Gradient node, before placement,
// into the backward nodes of the path from xs to y (seeded with dY = ones of Y's shape, so a
// non-scalar Y is differentiated as if summed), accumulating the gradient of a tensor used twice
// with Add; an X that Y does not depend on gets zeros. The first gradient takes the Gradient
// node's place as an Identity of its name; the backward nodes and the other outputs' Identities
// follow the graph's last node.
//
// Differentiable ops (default domain): Add, Sub, Mul, Div, Neg, Identity, with operands of one
// known shape (broadcasting would need a reduction back to each operand's shape, which is not
// written yet). Anything else on the path fails with kUnsupported naming the node, the op and
// what is supported. The generated ops (Shape, ConstantOfShape and the ops above) exist from
// opset 9; a model importing the default domain below 9 is refused. Errors: kInvalidModel for a
// Gradient node whose attributes name no tensor of its graph or whose outputs do not match `xs`.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "optimizer/passes.h"

namespace nxrt::opt {
namespace {

using ir::Attribute;
using ir::Graph;
using ir::Initializer;
using ir::Node;
using ir::NodeId;
using ir::TypeInfo;
using ir::ValueId;
using ir::kNoValue;

constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

// A one-element tensor of `dtype` (float16, float or double) holding `value`, for
// ConstantOfShape's `value` attribute.
Result<Tensor> ScalarTensor(DataType dtype, double value) {
  NXRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, {1}));
  switch (dtype) {
    case DataType::kFloat: *t.mutable_data<float>() = static_cast<float>(value); break;
    case DataType::kDouble: *t.mutable_data<double>() = value; break;
    case DataType::kFloat16: *t.mutable_data<Float16>() = Float16(static_cast<float>(value)); break;
    default:
      return MakeStatus(StatusCode::kUnsupported, "gradients of ", DataTypeName(dtype),
                        " tensors; Gradient differentiates float16, float and double");
  }
  return t;
}

// Stages the backward nodes of one Gradient node in `editor` (appended after the last node).
class GradientExpander {
 public:
  GradientExpander(GraphEditor& editor, const Node& gradient)
      : editor_(editor), graph_(editor.graph()), gradient_(gradient) {}

  // The gradient of `y` with respect to each of `xs` (value ids), or an error.
  Result<std::vector<ValueId>> Expand(ValueId y, const std::vector<ValueId>& xs,
                                      const std::set<ValueId>& leaves) {
    NXRT_ASSIGN_OR_RETURN(std::vector<NodeId> order, PathNodes(y, leaves));
    dtype_ = graph_.values[y].type.elem_type;
    NXRT_ASSIGN_OR_RETURN(Tensor one, ScalarTensor(dtype_, 1));
    grads_[y] = Emit("ConstantOfShape", {Emit("Shape", {y})}, one);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      NXRT_RETURN_IF_ERROR(Backward(graph_.nodes[static_cast<size_t>(*it)]));
    }
    std::vector<ValueId> result;
    for (ValueId x : xs) {
      auto found = grads_.find(x);
      if (found != grads_.end()) {
        result.push_back(found->second);
        continue;
      }
      NXRT_ASSIGN_OR_RETURN(Tensor zero, ScalarTensor(dtype_, 0));
      result.push_back(Emit("ConstantOfShape", {Emit("Shape", {x})}, zero));
    }
    return result;
  }

 private:
  // The nodes on paths into `y` that stop at `leaves` (xs, zs, graph inputs, initializers), in
  // a topological order. Errors: kUnsupported for a node that cannot be differentiated.
  Result<std::vector<NodeId>> PathNodes(ValueId y, const std::set<ValueId>& leaves) {
    std::map<ValueId, NodeId> producer;
    for (const Node& n : graph_.nodes) {
      for (ValueId v : n.outputs) {
        if (v != kNoValue) producer[v] = n.id;
      }
    }
    std::vector<NodeId> order;
    std::set<NodeId> visited;
    // Iterative post-order DFS: a node is listed after the producers of its inputs.
    std::vector<std::pair<NodeId, size_t>> stack;
    auto push = [&](ValueId v) {
      auto p = producer.find(v);
      if (leaves.count(v) || p == producer.end() || visited.count(p->second)) return;
      visited.insert(p->second);
      stack.emplace_back(p->second, 0);
    };
    push(y);
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      const Node& n = graph_.nodes[static_cast<size_t>(id)];
      if (next < n.inputs.size()) {
        push(n.inputs[next++]);
        continue;
      }
      order.push_back(id);
      stack.pop_back();
    }
    for (NodeId id : order) NXRT_RETURN_IF_ERROR(CheckDifferentiable(graph_.nodes[id]));
    return order;
  }

  Status CheckDifferentiable(const Node& n) const {
    static const std::set<std::string> kOps = {"Add", "Sub", "Mul", "Div", "Neg", "Identity"};
    if (!n.domain.empty() || !kOps.count(n.op_type) || n.outputs.size() != 1) {
      return MakeStatus(StatusCode::kUnsupported, "node '", gradient_.name,
                        "' (Gradient): cannot differentiate node '", n.name, "' (", n.op_type,
                        "); nxrt differentiates Add, Sub, Mul, Div, Neg and Identity");
    }
    // Without broadcasting, both operands have the output's shape; check it when it is known.
    if (n.inputs.size() == 2) {
      const TypeInfo& a = graph_.values[n.inputs[0]].type;
      const TypeInfo& b = graph_.values[n.inputs[1]].type;
      const bool known = a.shape && b.shape;
      if (known && *a.shape != *b.shape) {
        return MakeStatus(StatusCode::kUnsupported, "node '", gradient_.name,
                          "' (Gradient): node '", n.name, "' (", n.op_type, ") broadcasts ",
                          a.ToString(), " with ", b.ToString(),
                          "; nxrt differentiates operands of one shape only");
      }
    }
    return Status::Ok();
  }

  // Adds `contribution` to the gradient of `v`.
  void Accumulate(ValueId v, ValueId contribution) {
    auto it = grads_.find(v);
    if (it == grads_.end()) {
      grads_[v] = contribution;
    } else {
      it->second = Emit("Add", {it->second, contribution});
    }
  }

  // Propagates the gradient of n's output to its inputs.
  Status Backward(const Node& n) {
    auto it = grads_.find(n.outputs[0]);
    if (it == grads_.end()) return Status::Ok();
    const ValueId g = it->second;
    const ValueId a = n.inputs[0];
    const ValueId b = n.inputs.size() > 1 ? n.inputs[1] : kNoValue;
    if (n.op_type == "Identity") {
      Accumulate(a, g);
    } else if (n.op_type == "Neg") {
      Accumulate(a, Emit("Neg", {g}));
    } else if (n.op_type == "Add") {
      Accumulate(a, g);
      Accumulate(b, g);
    } else if (n.op_type == "Sub") {
      Accumulate(a, g);
      Accumulate(b, Emit("Neg", {g}));
    } else if (n.op_type == "Mul") {
      Accumulate(a, Emit("Mul", {g, b}));
      Accumulate(b, Emit("Mul", {g, a}));
    } else {  // Div: d(a/b)/da = 1/b, d(a/b)/db = -a/b^2
      Accumulate(a, Emit("Div", {g, b}));
      Accumulate(b, Emit("Neg", {Emit("Div", {Emit("Mul", {g, a}), Emit("Mul", {b, b})})}));
    }
    return Status::Ok();
  }

  // Stages a node `op_type`(inputs) with one new output (ConstantOfShape gets `value`).
  ValueId Emit(const std::string& op_type, std::vector<ValueId> inputs,
               std::optional<Tensor> value = std::nullopt) {
    const ValueId id =
        editor_.AddValue(gradient_.name + "/grad_" + std::to_string(counter_++), TypeInfo{});
    Node n;
    n.name = graph_.values[id].name + "_" + op_type;
    n.op_type = op_type;
    n.inputs = std::move(inputs);
    n.outputs = {id};
    if (value) {
      Attribute attr;
      attr.name = "value";
      attr.type = Attribute::Type::kTensor;
      attr.t = std::move(*value);
      n.attributes.push_back(std::move(attr));
    }
    editor_.AddNode(std::move(n), ir::kNoNode);
    return id;
  }

  GraphEditor& editor_;
  const Graph& graph_;
  const Node& gradient_;
  DataType dtype_ = DataType::kUndefined;
  std::map<ValueId, ValueId> grads_;
  int counter_ = 0;
};

const Attribute* FindTyped(const Node& n, const char* name, Attribute::Type type) {
  const Attribute* a = n.FindAttribute(name);
  return a != nullptr && a->type == type ? a : nullptr;
}

// Stages the replacement of Gradient node `id` by its expansion.
Status ExpandOne(GraphEditor& editor, NodeId id) {
  const Graph& graph = editor.graph();
  const Node& node = editor.node(id);
  const auto invalid = [&](const std::string& what) {
    return MakeStatus(StatusCode::kInvalidModel, "node '", node.name, "' (Gradient): ", what);
  };
  const Attribute* xs_attr = FindTyped(node, "xs", Attribute::Type::kStrings);
  const Attribute* y_attr = FindTyped(node, "y", Attribute::Type::kString);
  if (xs_attr == nullptr || y_attr == nullptr) {
    return invalid("needs the attributes 'xs' (strings) and 'y' (string)");
  }
  const ValueId y = graph.FindValue(y_attr->s);
  if (y == kNoValue) return invalid("attribute 'y' names '" + y_attr->s + "', no tensor here");
  std::vector<ValueId> xs;
  std::set<ValueId> leaves;
  for (const std::string& name : xs_attr->strings) {
    const ValueId x = graph.FindValue(name);
    if (x == kNoValue) return invalid("attribute 'xs' names '" + name + "', no tensor here");
    xs.push_back(x);
    leaves.insert(x);
  }
  if (const Attribute* zs = FindTyped(node, "zs", Attribute::Type::kStrings)) {
    for (const std::string& name : zs->strings) leaves.insert(graph.FindValue(name));
  }
  for (ValueId v : graph.inputs) leaves.insert(v);
  for (const Initializer& init : graph.initializers) leaves.insert(init.value);
  const bool all_present = std::none_of(node.outputs.begin(), node.outputs.end(),
                                        [](ValueId v) { return v == kNoValue; });
  if (xs.empty() || node.outputs.size() != xs.size() || !all_present) {
    return invalid("has " + std::to_string(node.outputs.size()) + " outputs for " +
                   std::to_string(xs.size()) + " tensors in 'xs'; each needs its output");
  }
  GradientExpander expander(editor, node);
  NXRT_ASSIGN_OR_RETURN(std::vector<ValueId> grads, expander.Expand(y, xs, leaves));
  // The Gradient node becomes an Identity onto its first output; the others get their own.
  editor.RemoveNode(id);
  for (size_t i = 0; i < grads.size(); ++i) {
    Node identity;
    identity.name = node.name + (i == 0 ? "" : "/output_" + std::to_string(i));
    identity.op_type = "Identity";
    identity.inputs = {grads[i]};
    identity.outputs = {node.outputs[i]};
    editor.AddNode(std::move(identity), i == 0 ? id : ir::kNoNode);
  }
  return Status::Ok();
}

class GradientExpansion final : public GraphPass {
 public:
  std::string_view name() const override { return "gradient_expansion"; }
  int level() const override { return 0; }

  // One Gradient node per commit, so that a later one sees the nodes an earlier one became.
  Result<int> Apply(GraphEditor& editor) const override {
    int expanded = 0;
    for (;;) {
      const std::vector<Node>& nodes = editor.graph().nodes;
      auto gradient = std::find_if(nodes.begin(), nodes.end(), [](const Node& n) {
        return n.op_type == "Gradient" && n.domain == kTrainingDomain;
      });
      if (gradient == nodes.end()) return expanded;
      const std::optional<int64_t> opset = editor.model().OpsetFor("");
      if (!opset || *opset < 9) {
        return MakeStatus(StatusCode::kUnsupported, "node '", gradient->name,
                          "' (Gradient): its expansion needs the default ONNX domain at opset 9 "
                          "or later (ConstantOfShape); the model imports ",
                          opset ? "opset " + std::to_string(*opset) : std::string("none"));
      }
      NXRT_RETURN_IF_ERROR(ExpandOne(editor, gradient->id));
      NXRT_RETURN_IF_ERROR(editor.Commit());
      ++expanded;
    }
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeGradientExpansionPass() {
  return std::make_unique<GradientExpansion>();
}

}  // namespace nxrt::opt
