// optimizer/function_expansion.h: puts the ONNX function body of nodes no EP takes in their place,
// as ONNX Runtime 1.30's graph partitioner does before it asks its EPs again (its InlineNodes
// and Graph::InlineFunction): an op with a function body and no kernel on any EP (SequenceMap,
// NegativeLogLikelihoodLoss, ...) then runs through its expansion.
//
// Layer: nxrt_optimizer. The body comes from ir/function_body.h; the model pipeline
// (runtime/model_pipeline.cpp) calls this after a placement round left such nodes unplaced, then
// places the graph again (docs/architecture.md, docs/plugin_host.md).
#pragma once

#include <span>

#include "ir/graph.h"
#include "nxrt/status.h"

namespace nxrt::opt {

// Replaces each node of `nodes` (ids of `graph`, a graph of `model`; each must have a function
// body: ir::HasFunctionBody) by its body, in ORT's order (by ORT node index) and with ORT's
// names: the body's names get the prefix "_inlfunc_<op_type>" (with "_token_<n>" from the
// graph's counter, ir::Graph::ort_name_counter, when a node of the graph has that name or an
// earlier expansion took it); its nodes stand where the node stood, in the body's order, and
// take the graph's next ORT node indices (ir::Graph::ort_next_node_index); its Constant nodes
// become initializers. Types of the new values are those the body declares: the caller infers
// the others (ir::InferTypesAgain). Errors: those of ir::BuildFunctionBody, naming the node;
// kInternal when the graph would not be valid after the edit.
Status ExpandFunctionNodes(ir::Model& model, ir::Graph& graph, std::span<const ir::NodeId> nodes);

}  // namespace nxrt::opt
