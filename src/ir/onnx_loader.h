// ir/onnx_loader.h: ONNX ModelProto (protobuf) → nxrt IR.
//
// Layer: nxrt_ir; the only place besides ir/tensor_io.h that sees protobuf. Loads everything a
// model holds: nodes, values with types and shapes (fixed, symbolic, unknown dims), inputs and
// outputs, initializers (inline raw or typed data; external data mapped once with mmap, offsets
// and lengths checked against the file), sparse initializers (densified), value infos, opset
// imports, attributes of every kind including GRAPH/GRAPHS subgraphs with outer-scope references,
// metadata. Constant nodes stay nodes. Names from the file are kept as they are (opaque strings);
// unnamed nodes are named "<op_type>_<id>" (ir/graph_builder.h). Before anything reads the graph
// (libonnx's type inference included) the parsed proto passes ir/model_validator.h: tensor data
// sizes, names, operator schemas (arity, attributes), nesting and size limits; once types are
// known, each node's element types are checked against its schema. The result is validated with
// GraphView::Create on every graph, so a loaded model is well formed. Peak memory is about one
// copy of the inline weights: tensor data is released from the parsed proto as it is converted.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>

#include "ir/graph.h"
#include "nxrt/status.h"

namespace nxrt::ir {

struct LoadOptions {
  // Folder that external-data `location`s are relative to. Default: the model file's folder;
  // for LoadModelFromBytes, the current working directory.
  std::filesystem::path external_data_dir;
  // Run ONNX type and shape inference (libonnx, schemas up to opset 17; failures ignored) so
  // that values without value_info, or declared with an empty type (graph inputs, outputs and
  // value_info of any graph, subgraph bodies included), get the inferred element type and shape,
  // as ONNX Runtime does before showing a graph to EPs. Where ORT 1.30 types a node output
  // otherwise than libonnx 1.12 (no element shapes in an inferred sequence or map, no shape for
  // GreaterOrEqual-12/LessOrEqual-12, the rank of a Slice with computed starts or ends), the
  // inferred type is ORT's (docs/plugin_host.md). Inferred types are not listed in
  // Graph::value_infos.
  // Not run on models with Einsum nodes (libonnx 1.12's Einsum inference can abort), nor on
  // graphs whose nodes are not in topological order (libonnx reads them as missing types).
  bool infer_types = false;
};

// Errors: kIoError (file missing or unreadable, naming the path), kInvalidModel (not a
// ModelProto, truncated, bad references, cycle, unknown attribute type, external data missing or
// out of range, a node its operator schema refuses, subgraphs nested too deep; the message names
// the file, the node or value and the problem), kUnsupported
// (element types nxrt does not know: float8, int4, ...), kNotImplemented (segmented tensors).
// Except for kIoError ("cannot load model: cannot open '<path>': <reason>"), messages start with
// "file '<path>'" (or "model bytes") and follow the chain of nodes down to a subgraph: "file 'm.onnx': node 'If_3' (If) attribute 'then_branch': node 'Add_0' (Add): ...".
Result<Model> LoadModelFromFile(const std::filesystem::path& path, const LoadOptions& options = {});
Result<Model> LoadModelFromBytes(std::span<const std::byte> bytes, const LoadOptions& options = {});

// Type inference over `model` once more, as ONNX Runtime infers again after each graph rewrite:
// for a model loaded with LoadOptions::infer_types whose graph passes changed (a Reshape whose
// target became a constant now has a shape, and so has what it feeds). The model is written
// (ir/onnx_writer.h) without the values of initializers over 1 KiB (types and dims only:
// inference reads small shape-like constants, and the weights are not copied twice) and
// inferred as on load; a value only inference typed gains what is new
// (a missing shape, fixed sizes for unknown dims), a tensor graph output takes its declared type
// merged with the new inference, and ORT's types apply where they differ (LoadOptions). Leaves
// the model as it is when it cannot be written (model-local functions, 2 GiB or more without
// those values) or inference fails.
void InferTypesAgain(Model& model);

}  // namespace nxrt::ir
