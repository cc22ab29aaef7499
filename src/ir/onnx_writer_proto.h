// ir/onnx_writer_proto.h: single IR pieces as ONNX protobuf messages, for the parts of nxrt_ir that
// hand a node to libonnx (ir/function_body.cpp builds an operator's function body from the node).
//
// Layer: nxrt_ir (internal: protobuf types do not leave this layer). Written as
// ir/onnx_writer.h writes them inside a model.
#pragma once

#include "ir/graph.h"
#include "nxrt/status.h"
#include "onnx/onnx_pb.h"

namespace nxrt::ir {

// `node` of `graph` as a NodeProto: names (none for a node the model left unnamed), op, domain,
// value names (outer-scope ones by name), attributes with their subgraphs and tensors inline.
// Errors: those of TensorToProto for a tensor attribute it cannot write, naming the node and
// attribute.
Status WriteNodeProto(const Graph& graph, const Node& node, onnx::NodeProto* out);

// `type` as a TypeProto (nothing set for an unknown type).
void WriteTypeProto(const TypeInfo& type, onnx::TypeProto* out);

}  // namespace nxrt::ir
