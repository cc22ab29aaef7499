// ir/model_validator.h: the checks a ModelProto passes before anything reads its graph.
//
// Layer: nxrt_ir, internal to the ONNX loader (ir/onnx_loader.cpp). A model from an untrusted
// place must not reach code that trusts it: libonnx's shape inference (which dereferences a
// missing Scan body, overflows its buffer on an int64 raw_data of 11 bytes, and follows names
// that exist nowhere), the graph builder, the optimizer and the kernels. So the loader runs
// ValidateModelProto on the parsed proto first, and ValidateNodeTypes on the built IR once types
// are known. What is checked, per graph and for every subgraph (If/Loop/Scan bodies, ...):
//   - limits: subgraphs nest at most kMaxSubgraphDepth deep; the model holds at most
//     kMaxModelNodes nodes in all its graphs;
//   - every tensor (initializers, sparse initializers, tensor attributes, Constant values):
//     a known data_type, dims >= 0 whose element and byte counts fit 64 bits, and raw_data or
//     its typed field holding exactly dims x element size (ir/tensor_proto.h
//     CheckTensorProtoData);
//   - names: every node input and graph output names a value defined in the graph (input,
//     initializer, node output) or in an enclosing graph;
//   - each node against its operator schema (libonnx's OpSchema::Verify, the ONNX checker's
//     node check, which ONNX Runtime runs too): input and output counts within the schema's
//     min/max, required inputs present, every attribute known with the declared type and a
//     value, required attributes (Scan's body, If's branches) present; then the value ranges the
//     spec states in words, which libonnx's inference functions divide and index by unchecked:
//     strides, dilations, kernel_shape and blocksize >= 1 (blocksize below 2^31), pads and
//     output_padding of convolutions and pools >= 0, an 'axis' within [-r - 1, r] when input 0
//     declares rank r (the widest range of any op, OneHot's), and the ranks convolutions and
//     pools need of their declared inputs (X rank 2 or more, the weight of X's rank). Nodes of ops libonnx has
//     no schema for at the model's opset (custom domains, model-local functions, ops changed
//     after ONNX 1.12 at opsets 18+) are checked for names only;
//   - ValidateNodeTypes: each node's input element types against the schema's type constraints,
//     as ONNX Runtime checks them: every type in the allowed list, and all inputs bound to one
//     type parameter ("T") of one type (Add(double, float) is refused). Output types are the
//     op's to decide and are not checked.
// Errors are kInvalidModel, and name the node (its name, op type and opset), the chain of
// subgraph attributes that leads to it, the value or attribute, and what was expected.
#pragma once

#include <cstdint>

#include "ir/graph.h"
#include "nxrt/status.h"
#include "onnx/onnx_pb.h"

namespace nxrt::ir {

// Deepest nesting of subgraphs: the main graph is depth 0, an If branch inside it depth 1.
inline constexpr int kMaxSubgraphDepth = 16;
// Most nodes in one model, counting every subgraph's.
inline constexpr int64_t kMaxModelNodes = int64_t{1} << 22;

// What ValidateModelProto learnt about the model on the way.
struct ProtoFacts {
  // Every graph lists each node after the producers of its inputs (the ONNX IR requires it;
  // nxrt sorts graphs itself and accepts any order). libonnx's shape inference runs only on
  // sorted graphs: it reads a not yet produced input as a missing type.
  bool topologically_sorted = true;
};

// Checks `model` (see the file comment). `model.opset_import` gives each node's opset; the
// loader has checked it.
Result<ProtoFacts> ValidateModelProto(const onnx::ModelProto& model);

// Checks each node's input element types against its schema's type constraints (file comment), over
// `model`'s main graph and every subgraph. Values whose type is unknown are skipped.
Status ValidateNodeTypes(const Model& model);

}  // namespace nxrt::ir
