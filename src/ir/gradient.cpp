// ir/gradient.cpp: see gradient.h.
#include "ir/gradient.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace nxrt::ir {
namespace {

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

// Builds the backward nodes of one Gradient node into `graph`.
class GradientExpander {
 public:
  GradientExpander(Graph& graph, const Node& gradient) : graph_(graph), gradient_(gradient) {}

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

  // Propagates the gradient of n's output to its inputs. `n` is a copy: Emit appends nodes.
  Status Backward(Node n) {
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

  // Appends a node `op_type`(inputs) with one new output (ConstantOfShape gets `value`).
  ValueId Emit(const std::string& op_type, std::vector<ValueId> inputs,
               std::optional<Tensor> value = std::nullopt) {
    Value out;
    do {
      out.name = gradient_.name + "/grad_" + std::to_string(counter_++);
    } while (graph_.FindValue(out.name) != kNoValue);
    const ValueId id = graph_.AddValue(std::move(out));
    Node n;
    n.id = static_cast<NodeId>(graph_.nodes.size());
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
    graph_.nodes.push_back(std::move(n));
    return id;
  }

  Graph& graph_;
  const Node gradient_;  // a copy: emitting nodes may move the graph's node storage
  DataType dtype_ = DataType::kUndefined;
  std::map<ValueId, ValueId> grads_;
  int counter_ = 0;
};

const Attribute* FindTyped(const Node& n, const char* name, Attribute::Type type) {
  const Attribute* a = n.FindAttribute(name);
  return a != nullptr && a->type == type ? a : nullptr;
}

// Replaces Gradient node `id` by its expansion.
Status ExpandOne(Graph& graph, NodeId id) {
  const Node node = graph.nodes[static_cast<size_t>(id)];
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
  GradientExpander expander(graph, node);
  NXRT_ASSIGN_OR_RETURN(std::vector<ValueId> grads, expander.Expand(y, xs, leaves));
  // The Gradient node becomes an Identity onto its first output; the others get their own.
  for (size_t i = 0; i < grads.size(); ++i) {
    Node identity;
    identity.name = node.name + (i == 0 ? "" : "/output_" + std::to_string(i));
    identity.op_type = "Identity";
    identity.inputs = {grads[i]};
    identity.outputs = {node.outputs[i]};
    if (i == 0) {
      identity.id = id;
      graph.nodes[static_cast<size_t>(id)] = std::move(identity);
    } else {
      identity.id = static_cast<NodeId>(graph.nodes.size());
      graph.nodes.push_back(std::move(identity));
    }
  }
  return Status::Ok();
}

}  // namespace

Status ExpandGradients(Model& model) {
  Graph& graph = *model.graph;
  std::vector<NodeId> gradients;
  for (const Node& n : graph.nodes) {
    if (n.op_type == "Gradient" && n.domain == kTrainingDomain) gradients.push_back(n.id);
  }
  if (gradients.empty()) return Status::Ok();
  const std::optional<int64_t> opset = model.OpsetFor("");
  if (!opset || *opset < 9) {
    return MakeStatus(StatusCode::kUnsupported, "node '", graph.nodes[gradients[0]].name,
                      "' (Gradient): its expansion needs the default ONNX domain at opset 9 or "
                      "later (ConstantOfShape); the model imports ",
                      opset ? "opset " + std::to_string(*opset) : std::string("none"));
  }
  for (NodeId id : gradients) NXRT_RETURN_IF_ERROR(ExpandOne(graph, id));
  return Status::Ok();
}

}  // namespace nxrt::ir
