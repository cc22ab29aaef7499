// ir/function_body.h: an operator's ONNX function body, made for one node as ONNX Runtime 1.30
// makes it when it inlines a node no EP takes (its Graph::InlineFunction and function_utils'
// Specialize in onnxruntime/core/graph/, read to learn the naming; no code taken from them).
//
// Layer: nxrt_ir. libonnx gives the body: a fixed FunctionProto (OpSchema::GetFunction) or one
// built for the node from its attributes and input types (OpSchema::
// BuildContextDependentFunction: SequenceMap, NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss,
// ...). Debian's libonnx is ONNX 1.12, so ops with a function body at opsets 18+ only are not
// expanded. The graph rewrite that puts the body in place of the node is
// optimizer/function_expansion.h.
#pragma once

#include <memory>
#include <string_view>

#include "ir/graph.h"
#include "nxrt/status.h"

namespace nxrt::ir {

// True when libonnx's schema of `node`'s op at the model's opset of its domain has a function
// body (fixed or built per node). False for custom domains, unknown ops and model-local
// functions.
bool HasFunctionBody(const Model& model, const Node& node);

// The function body of `node` (a node of `graph`, which is `model`'s main graph or a subgraph of
// it), specialized for the node as ORT does:
//   - the function's formal inputs and outputs are the node's actual values (an omitted optional
//     input stays omitted; an omitted output is named as an inner value);
//   - every other name the body defines (node outputs, and in its subgraphs their inputs,
//     initializers and node outputs) and every non-empty node name becomes
//     `prefix` + "_" + name; names its subgraphs read from outside the function stay;
//   - an attribute referring to one of the function's (ref_attr_name) takes the node's attribute,
//     else the schema's default, else is dropped;
//   - the Constant nodes of the body's top level are initializers named by their output (ORT
//     makes them initializers; they take no node index).
// The result is a graph fragment: `nodes` the other nodes in the function's order (their
// subgraphs built, with `parent` the fragment), `initializers` the constants, `inputs` the values
// it reads from outside (named as in `graph` or its ancestors), `outputs` the node's outputs.
// Values have the types the body declares (subgraph inputs and outputs) only: the caller infers
// the others. Errors: kNotFound when the op has no function body (HasFunctionBody); kInvalidModel
// naming the node when libonnx refuses to build the body for it or the body does not build
// (GraphBuilder's errors), or a Constant of the body has no tensor value nxrt reads.
Result<std::shared_ptr<Graph>> BuildFunctionBody(const Model& model, const Graph& graph,
                                                 const Node& node, std::string_view prefix);

}  // namespace nxrt::ir
