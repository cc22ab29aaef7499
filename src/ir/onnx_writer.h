// ir/onnx_writer.h: nxrt IR → ONNX ModelProto (protobuf), the reverse of ir/onnx_loader.h.
//
// Layer: nxrt_ir. Writes what the IR holds: opset imports, model fields and metadata, and for
// the main graph and every subgraph the nodes (model order, names, domains, attributes of every
// kind, subgraphs included), graph inputs and outputs with their types, the value_info entries
// the model had (Graph::value_infos), and the initializers with their data inline (external data
// and sparse initializers, densified on load, are written as ordinary inline initializers).
// Outer-scope values are referred to by name, as in ONNX. Types libonnx inferred on load are not
// written, so the file carries what the source model declared plus what passes declared. Used
// for SessionOptions::optimized_model_path (`nxrt optimize`).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "ir/graph.h"
#include "nxrt/status.h"

namespace nxrt::ir {

// The external-data location of the initializers WriteOptions::inline_bytes_limit leaves out: no
// file has this name, so a reader that needs their values fails, naming it.
inline constexpr std::string_view kOmittedDataLocation = "<nxrt: values not written>";

struct WriteOptions {
  // Initializers of more bytes are written with their name, element type and dims only, as
  // external data at kOmittedDataLocation: a copy of the model for type inference, which reads
  // the values of small shape-like tensors only (libonnx does not parse external data: a node
  // whose inference would read one of these values stays uninferred). 0: every initializer whole.
  size_t inline_bytes_limit = 0;
  // Nodes the model left unnamed (Node::unnamed) are written with the name the loader made up;
  // false writes them unnamed, as the model had them.
  bool write_made_up_names = true;
};

// The serialized ModelProto of `model`. Errors: kNotImplemented for a model with model-local
// functions (their bodies are not kept in the IR) and for a model of 2 GiB or more (protobuf's
// limit; external data is not written); kInvalidArgument for an undefined initializer.
Result<std::string> SerializeModel(const Model& model, const WriteOptions& options = {});

// SerializeModel written to `path` (replaced if it exists). Errors: those of SerializeModel;
// kIoError naming the path when it cannot be written.
Status SaveModel(const Model& model, const std::filesystem::path& path);

}  // namespace nxrt::ir
