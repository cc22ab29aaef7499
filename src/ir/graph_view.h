// ir/graph_view.h: a read-only, validated view of one Graph: deterministic topological order,
// producer and consumers of every value, effective opset and schema since_version of every node.
//
// Layer: nxrt_ir. GraphView::Create builds a view and validates the graph. A view describes its
// graph as it was when built: an edit to the graph, or to a subgraph (whose outer-scope reads are
// implicit inputs here), needs a new one. So a model's views are built at three points: the
// loader builds one per graph to validate it; the optimizer keeps one per graph through all its
// passes and rebuilds it only after an edit (optimizer/optimizer.h); the model pipeline builds
// one per graph it places, after optimisation, and keeps it for placement, plans and the
// session's metadata (runtime/model_pipeline.h). A plugin EP's projection keeps its own
// (ep/ort_plugin). Every later stage (partitioner, planner, plugin projection) reads the graph
// through a GraphView, never by walking Node lists itself.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "nxrt/status.h"

namespace nxrt::ir {

// A Consumer slot for an implicit use: a node whose subgraph (If/Loop/Scan body) reads the value
// as an outer-scope value.
inline constexpr int kImplicitSlot = -1;

// One use of a value: input `slot` of node `node`, or kImplicitSlot when a subgraph of `node`
// reads it.
struct Consumer {
  NodeId node;
  int slot;
  bool operator==(const Consumer&) const = default;
};

class GraphView {
 public:
  // Validates `graph` under `model`'s opset imports and builds the view. `graph` is the model's
  // main graph or one of its subgraphs; both must outlive the view. Subgraphs are not validated
  // by this call (make a GraphView for each), but the outer-scope values they use count as
  // implicit inputs of their node here, so a node runs after the producers of what its subgraphs
  // read.
  // Errors (kInvalidModel, each naming the node/value): a cycle (names the nodes on it), a value
  // produced by two nodes or by a node and also a graph input/initializer, a node input that no
  // node, graph input, initializer or enclosing scope defines, a graph output nobody defines, a
  // node whose domain has no opset import, a value id out of range.
  static Result<GraphView> Create(const Model& model, const Graph& graph);

  const Graph& graph() const { return *graph_; }
  const Model& model() const { return *model_; }

  // All node ids in a deterministic topological order: Kahn's algorithm, ready nodes taken
  // smallest id first.
  const std::vector<NodeId>& topological_order() const { return topo_; }

  // The node producing `value`, or kNoNode for graph inputs, initializers, outer-scope values.
  NodeId producer(ValueId value) const { return producer_[value]; }
  // The output slot of `producer(value)` that is `value`, or -1.
  int producer_slot(ValueId value) const { return producer_slot_[value]; }
  // Uses of `value` in this graph, sorted by (node, slot); implicit uses (slot kImplicitSlot)
  // come first for their node.
  std::span<const Consumer> consumers(ValueId value) const;

  // Values of this graph that the subgraphs of `node` read as outer-scope values, ascending by
  // id, each once. Empty for nodes without subgraphs.
  std::span<const ValueId> implicit_inputs(NodeId node) const;

  // The effective opset of `node`: its domain's import version.
  int64_t opset(NodeId node) const { return opset_[node]; }
  // The operator schema's since_version for `node` at its opset, or -1 when no schema is known
  // (custom domains). Source: libonnx's schema registry plus nxrt's table for opsets 18-21.
  int since_version(NodeId node) const { return since_version_[node]; }

  // Lookup by name within this graph: kNoNode / kNoValue when absent. Node names need not be
  // unique in ONNX; FindNode gives the smallest id among equal names.
  NodeId FindNode(std::string_view node_name) const;
  ValueId FindValue(std::string_view value_name) const { return graph_->FindValue(value_name); }

 private:
  // For a graph Kahn's algorithm could not finish: "node 'a' (Op) -> node 'b' (Op) -> node 'a'
  // (Op)", a cycle among the nodes left over.
  std::string DescribeCycle() const;

  const Model* model_ = nullptr;
  const Graph* graph_ = nullptr;
  std::vector<NodeId> topo_;
  std::vector<NodeId> producer_;
  std::vector<int> producer_slot_;
  std::vector<uint32_t> consumer_offsets_;  // CSR: consumers of value v are
  std::vector<Consumer> consumer_list_;     // consumer_list_[offsets[v], offsets[v+1])
  std::vector<uint32_t> implicit_offsets_;  // CSR like the consumers, by node
  std::vector<ValueId> implicit_list_;
  std::vector<int64_t> opset_;
  std::vector<int> since_version_;
  std::vector<std::pair<std::string_view, NodeId>> node_names_;  // sorted for FindNode
};

}  // namespace nxrt::ir
