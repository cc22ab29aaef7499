// ir/ort_node_order.h: how ONNX Runtime 1.30 numbers and orders the nodes of a graph, for the
// places that must show or rewrite a graph as ORT does (the ORT plugin host's graph projection,
// src/ep/ort_plugin/graph_projection.h; the common_subexpression_elimination pass, which keeps
// the first of equal nodes in this order, as ORT's does).
//
// Layer: nxrt_ir (internal).
#pragma once

#include <cstddef>
#include <vector>

#include "ir/graph_view.h"

namespace nxrt::ir {

// ORT's node index of each node of `view`'s graph, by node id: ir::Node::model_index (the
// node's position in the model without the Constant nodes before it, which ORT makes
// initializers, or the index a pass gave a node it made); the other nodes a pass made follow,
// in graph order, as ORT appends the nodes its rewrites add.
std::vector<size_t> OrtNodeIndices(const GraphView& view);

// The node ids of `view`'s graph in ORT 1.30's order (GraphViewer's default topological order,
// which Graph_GetNodes gives and ORT's graph passes walk): a depth-first walk against the edges
// from the leaves (nodes no node reads from, by ascending `ort_index`), visiting a node's
// producers (inputs and implicit inputs) highest index first, each node emitted once all its
// producers are.
std::vector<NodeId> OrtTopologicalOrder(const GraphView& view,
                                        const std::vector<size_t>& ort_index);

}  // namespace nxrt::ir
