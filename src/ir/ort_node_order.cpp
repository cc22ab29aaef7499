// ir/ort_node_order.cpp: see ort_node_order.h.
#include "ir/ort_node_order.h"

#include <algorithm>
#include <utility>

namespace nxrt::ir {

std::vector<size_t> OrtNodeIndices(const GraphView& view) {
  const std::vector<Node>& nodes = view.graph().nodes;
  size_t next = 0;
  for (const Node& node : nodes) {
    if (node.model_index != kNoNode) next = std::max(next, static_cast<size_t>(node.model_index) + 1);
  }
  std::vector<size_t> index(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    index[i] = nodes[i].model_index != kNoNode ? static_cast<size_t>(nodes[i].model_index)
                                               : next++;
  }
  return index;
}

std::vector<NodeId> OrtTopologicalOrder(const GraphView& view,
                                        const std::vector<size_t>& ort_index) {
  const Graph& graph = view.graph();
  const size_t n = graph.nodes.size();
  std::vector<std::vector<NodeId>> producers(n);
  std::vector<bool> read(n, false);
  auto add_edge = [&](NodeId to, ValueId v) {
    if (v == kNoValue) return;
    const NodeId from = view.producer(v);
    if (from == kNoNode) return;
    producers[to].push_back(from);
    read[from] = true;
  };
  for (NodeId id = 0; id < static_cast<NodeId>(n); ++id) {
    for (ValueId v : graph.nodes[id].inputs) add_edge(id, v);
    for (ValueId v : view.implicit_inputs(id)) add_edge(id, v);
  }
  auto by_index = [&](NodeId a, NodeId b) { return ort_index[a] < ort_index[b]; };
  std::vector<NodeId> leaves;
  for (NodeId id = 0; id < static_cast<NodeId>(n); ++id) {
    if (!read[id]) leaves.push_back(id);
  }
  std::sort(leaves.begin(), leaves.end(), by_index);
  std::vector<std::pair<NodeId, bool>> stack;  // (node, leaving)
  for (NodeId id : leaves) stack.emplace_back(id, false);
  std::vector<bool> visited(n, false);
  std::vector<NodeId> order;
  order.reserve(n);
  while (!stack.empty()) {
    const auto [id, leaving] = stack.back();
    stack.pop_back();
    if (leaving) {
      order.push_back(id);
      continue;
    }
    if (visited[id]) continue;
    visited[id] = true;
    stack.emplace_back(id, true);
    std::vector<NodeId> inputs = producers[id];
    std::sort(inputs.begin(), inputs.end(), by_index);
    for (NodeId in : inputs) {
      if (!visited[in]) stack.emplace_back(in, false);
    }
  }
  return order;
}

}  // namespace nxrt::ir
