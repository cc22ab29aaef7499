// ir/graph_view.cpp: validation, producers, consumers and the deterministic topological order
// of one Graph (see ir/graph_view.h).
//
// Layer: nxrt_ir. Linear in nodes + edges, except the min-heap of Kahn's algorithm
// (O(N log N)) and the sorted node-name table.
#include "ir/graph_view.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <string>
#include <unordered_map>

#include "ir/op_schema.h"

namespace nxrt::ir {
namespace {

// "'name' (Op)", or "'name' (domain:Op)" for other domains.
std::string Describe(const Node& node) {
  std::string out = "'" + node.name + "' (";
  if (!node.domain.empty()) out += node.domain + ":";
  out += node.op_type + ")";
  return out;
}

Status Invalid(const std::string& message) { return Status(StatusCode::kInvalidModel, message); }

// True when `name` is a value of some graph enclosing `graph`.
bool DefinedInAncestor(const Graph& graph, std::string_view name) {
  for (const Graph* g = graph.parent; g != nullptr; g = g->parent) {
    if (g->FindValue(name) != kNoValue) return true;
  }
  return false;
}

// Calls `fn(subgraph)` for every GRAPH/GRAPHS attribute of `node`.
void ForEachSubgraph(const Node& node, const std::function<void(const Graph&)>& fn) {
  for (const Attribute& attr : node.attributes) {
    if (attr.g) fn(*attr.g);
    for (const std::shared_ptr<Graph>& g : attr.graphs) {
      if (g) fn(*g);
    }
  }
}

}  // namespace

Result<GraphView> GraphView::Create(const Model& model, const Graph& graph) {
  GraphView view;
  view.model_ = &model;
  view.graph_ = &graph;
  const size_t num_nodes = graph.nodes.size();
  const size_t num_values = graph.values.size();

  // Value table: unique, non-empty, indexed names.
  for (size_t v = 0; v < num_values; ++v) {
    const std::string& name = graph.values[v].name;
    if (name.empty()) return Invalid("value " + std::to_string(v) + " has an empty name");
    if (graph.FindValue(name) != static_cast<ValueId>(v)) {
      return Invalid("value name '" + name + "' is used by two values (" +
                     std::to_string(graph.FindValue(name)) + " and " + std::to_string(v) +
                     ") or the graph's name index is stale (call Graph::Reindex)");
    }
  }
  auto in_range = [&](ValueId v) { return v >= 0 && static_cast<size_t>(v) < num_values; };
  for (const Node& node : graph.nodes) {
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i] != kNoValue && !in_range(node.inputs[i])) {
        return Invalid("node " + Describe(node) + ": input " + std::to_string(i) +
                       " refers to value id " + std::to_string(node.inputs[i]) +
                       ", but the graph has " + std::to_string(num_values) + " values");
      }
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i] != kNoValue && !in_range(node.outputs[i])) {
        return Invalid("node " + Describe(node) + ": output " + std::to_string(i) +
                       " refers to value id " + std::to_string(node.outputs[i]) +
                       ", but the graph has " + std::to_string(num_values) + " values");
      }
    }
  }
  for (ValueId v : graph.inputs) {
    if (!in_range(v)) return Invalid("graph input id " + std::to_string(v) + " is out of range");
  }
  for (const Initializer& init : graph.initializers) {
    if (!in_range(init.value)) {
      return Invalid("initializer value id " + std::to_string(init.value) + " is out of range");
    }
  }

  std::vector<bool> is_input(num_values, false);
  for (ValueId v : graph.inputs) is_input[v] = true;

  // Producers.
  view.producer_.assign(num_values, kNoNode);
  view.producer_slot_.assign(num_values, -1);
  for (size_t n = 0; n < num_nodes; ++n) {
    const Node& node = graph.nodes[n];
    for (size_t slot = 0; slot < node.outputs.size(); ++slot) {
      const ValueId v = node.outputs[slot];
      if (v == kNoValue) continue;
      const std::string& name = graph.values[v].name;
      if (view.producer_[v] != kNoNode) {
        const Node& first = graph.nodes[view.producer_[v]];
        return Invalid("value '" + name + "' is produced twice: by node " + Describe(first) +
                       " (output " + std::to_string(view.producer_slot_[v]) + ") and by node " +
                       Describe(node) + " (output " + std::to_string(slot) + ")");
      }
      if (is_input[v]) {
        return Invalid("value '" + name + "' is produced by node " + Describe(node) +
                       " but is also a graph input");
      }
      if (graph.FindInitializer(v) != nullptr) {
        return Invalid("value '" + name + "' is produced by node " + Describe(node) +
                       " but is also an initializer");
      }
      if (graph.values[v].outer_scope) {
        return Invalid("value '" + name + "' is produced by node " + Describe(node) +
                       " but is marked as an outer-scope value");
      }
      view.producer_[v] = static_cast<NodeId>(n);
      view.producer_slot_[v] = static_cast<int>(slot);
    }
  }

  // Where each value comes from; "" when it is defined.
  auto undefined_reason = [&](ValueId v) -> std::string {
    const Value& value = graph.values[v];
    if (view.producer_[v] != kNoNode || is_input[v] || graph.FindInitializer(v) != nullptr) {
      return "";
    }
    if (value.outer_scope) {
      if (DefinedInAncestor(graph, value.name)) return "";
      return graph.parent == nullptr
                 ? "is marked outer-scope, but this is the main graph"
                 : "is marked outer-scope, but no enclosing graph defines it";
    }
    return "is not produced by any node and is not a graph input, initializer or outer-scope "
           "value";
  };

  for (const Node& node : graph.nodes) {
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i] == kNoValue) continue;
      std::string reason = undefined_reason(node.inputs[i]);
      if (!reason.empty()) {
        return Invalid("node " + Describe(node) + ": input " + std::to_string(i) + " '" +
                       graph.values[node.inputs[i]].name + "' " + reason);
      }
    }
  }
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    const ValueId v = graph.outputs[i];
    if (!in_range(v)) {
      return Invalid("graph output " + std::to_string(i) + " refers to value id " +
                     std::to_string(v) + ", but the graph has " + std::to_string(num_values) +
                     " values");
    }
    std::string reason = undefined_reason(v);
    if (!reason.empty()) {
      return Invalid("graph output '" + graph.values[v].name + "' " + reason);
    }
  }

  // Implicit inputs: outer-scope values of a node's subgraphs that this graph holds.
  view.implicit_offsets_.assign(num_nodes + 1, 0);
  for (size_t n = 0; n < num_nodes; ++n) {
    const Node& node = graph.nodes[n];
    std::vector<ValueId> used;
    Status status;
    ForEachSubgraph(node, [&](const Graph& sub) {
      for (const Value& value : sub.values) {
        if (!value.outer_scope || !status.ok()) continue;
        const ValueId v = graph.FindValue(value.name);
        if (v == kNoValue) {
          if (!DefinedInAncestor(graph, value.name)) {
            status = Invalid("node " + Describe(node) + ": subgraph '" + sub.name +
                             "' reads outer-scope value '" + value.name +
                             "', which no enclosing graph defines");
          }
          continue;
        }
        std::string reason = undefined_reason(v);
        if (!reason.empty()) {
          status = Invalid("node " + Describe(node) + ": subgraph '" + sub.name +
                           "' reads outer-scope value '" + value.name + "', which " + reason);
          continue;
        }
        used.push_back(v);
      }
    });
    NXRT_RETURN_IF_ERROR(status);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    view.implicit_list_.insert(view.implicit_list_.end(), used.begin(), used.end());
    view.implicit_offsets_[n + 1] = static_cast<uint32_t>(view.implicit_list_.size());
  }

  // Consumers as CSR. Filling node by node, implicit uses before explicit slots, yields the
  // (node, slot) order without a sort.
  view.consumer_offsets_.assign(num_values + 1, 0);
  for (size_t n = 0; n < num_nodes; ++n) {
    for (ValueId v : view.implicit_inputs(static_cast<NodeId>(n))) ++view.consumer_offsets_[v + 1];
    for (ValueId v : graph.nodes[n].inputs) {
      if (v != kNoValue) ++view.consumer_offsets_[v + 1];
    }
  }
  for (size_t v = 0; v < num_values; ++v) {
    view.consumer_offsets_[v + 1] += view.consumer_offsets_[v];
  }
  view.consumer_list_.resize(view.consumer_offsets_[num_values]);
  std::vector<uint32_t> fill(view.consumer_offsets_.begin(), view.consumer_offsets_.end() - 1);
  for (size_t n = 0; n < num_nodes; ++n) {
    const auto node_id = static_cast<NodeId>(n);
    for (ValueId v : view.implicit_inputs(node_id)) {
      view.consumer_list_[fill[v]++] = {node_id, kImplicitSlot};
    }
    const Node& node = graph.nodes[n];
    for (size_t slot = 0; slot < node.inputs.size(); ++slot) {
      const ValueId v = node.inputs[slot];
      if (v != kNoValue) view.consumer_list_[fill[v]++] = {node_id, static_cast<int>(slot)};
    }
  }

  // Opsets and schema versions.
  view.opset_.resize(num_nodes);
  view.since_version_.resize(num_nodes);
  for (size_t n = 0; n < num_nodes; ++n) {
    const Node& node = graph.nodes[n];
    std::optional<int64_t> opset = model.OpsetFor(node.domain);
    if (!opset) {
      return Invalid("node " + Describe(node) + " uses domain '" +
                     (node.domain.empty() ? std::string("ai.onnx") : node.domain) +
                     "', which the model does not import (add it to opset_import)");
    }
    view.opset_[n] = *opset;
    view.since_version_[n] = SinceVersion(node.domain, node.op_type, *opset);
  }

  // Kahn's algorithm, smallest ready id first.
  std::vector<int> indegree(num_nodes, 0);
  for (size_t v = 0; v < num_values; ++v) {
    if (view.producer_[v] == kNoNode) continue;
    for (const Consumer& c : view.consumers(static_cast<ValueId>(v))) ++indegree[c.node];
  }
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
  for (size_t n = 0; n < num_nodes; ++n) {
    if (indegree[n] == 0) ready.push(static_cast<NodeId>(n));
  }
  view.topo_.reserve(num_nodes);
  while (!ready.empty()) {
    const NodeId n = ready.top();
    ready.pop();
    view.topo_.push_back(n);
    for (ValueId v : graph.nodes[n].outputs) {
      if (v == kNoValue) continue;
      for (const Consumer& c : view.consumers(v)) {
        if (--indegree[c.node] == 0) ready.push(c.node);
      }
    }
  }
  if (view.topo_.size() != num_nodes) {
    return Invalid("the graph has a cycle: " + view.DescribeCycle());
  }

  view.node_names_.reserve(num_nodes);
  for (size_t n = 0; n < num_nodes; ++n) {
    view.node_names_.emplace_back(graph.nodes[n].name, static_cast<NodeId>(n));
  }
  std::sort(view.node_names_.begin(), view.node_names_.end());
  return view;
}

std::string GraphView::DescribeCycle() const {
  const Graph& graph = *graph_;
  std::vector<bool> emitted(graph.nodes.size(), false);
  for (NodeId n : topo_) emitted[n] = true;
  // Walk backwards from the smallest unemitted node along inputs whose producer is unemitted:
  // every unemitted node has such an input, so the walk must revisit a node, which is on a cycle.
  NodeId start = 0;
  while (emitted[start]) ++start;
  auto unemitted_predecessor = [&](NodeId n) {
    for (ValueId v : implicit_inputs(n)) {
      if (producer_[v] != kNoNode && !emitted[producer_[v]]) return producer_[v];
    }
    for (ValueId v : graph.nodes[n].inputs) {
      if (v != kNoValue && producer_[v] != kNoNode && !emitted[producer_[v]]) return producer_[v];
    }
    return kNoNode;
  };
  std::vector<int> position(graph.nodes.size(), -1);
  std::vector<NodeId> path;
  NodeId n = start;
  while (n != kNoNode && position[n] < 0) {
    position[n] = static_cast<int>(path.size());
    path.push_back(n);
    n = unemitted_predecessor(n);
  }
  if (n == kNoNode) return "node " + Describe(graph.nodes[start]);
  // path[position[n]..] walks against the data flow; print it along the data flow.
  std::vector<NodeId> cycle(path.begin() + position[n], path.end());
  std::reverse(cycle.begin(), cycle.end());
  std::string out;
  for (NodeId c : cycle) out += "node " + Describe(graph.nodes[c]) + " -> ";
  return out + "node " + Describe(graph.nodes[cycle.front()]);
}

std::span<const Consumer> GraphView::consumers(ValueId value) const {
  const uint32_t begin = consumer_offsets_[value];
  const uint32_t end = consumer_offsets_[value + 1];
  return {consumer_list_.data() + begin, end - begin};
}

std::span<const ValueId> GraphView::implicit_inputs(NodeId node) const {
  const uint32_t begin = implicit_offsets_[node];
  const uint32_t end = implicit_offsets_[node + 1];
  return {implicit_list_.data() + begin, end - begin};
}

NodeId GraphView::FindNode(std::string_view node_name) const {
  auto it = std::lower_bound(
      node_names_.begin(), node_names_.end(), node_name,
      [](const std::pair<std::string_view, NodeId>& e, std::string_view n) { return e.first < n; });
  return it != node_names_.end() && it->first == node_name ? it->second : kNoNode;
}

}  // namespace nxrt::ir
