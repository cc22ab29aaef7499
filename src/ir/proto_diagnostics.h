// ir/proto_diagnostics.h: explains why bytes do not parse as a protobuf message.
//
// Layer: nxrt_ir, internal. protobuf's parser says only "failed"; for an error a user can act on
// the ONNX loader walks the wire format itself, guided by the message's descriptor, and names the
// innermost field at fault ("graph.node[3].attribute[0] at byte 1234 needs 5000 bytes but only 20
// remain in graph.node[3]"). Cheap: it runs only after a parse failed.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include <google/protobuf/message.h>

namespace nxrt::ir {

struct ProtoProblem {
  size_t offset = 0;    // byte where the offending field starts
  std::string message;  // the field's path and what is wrong with it
};

// The first wire-format problem of `bytes` read as a `prototype` message, descending into
// message fields: a cut-off or malformed tag, varint or length, field number 0, a length past the
// end of the data or of the enclosing message (at the top level: "the file is truncated"), a
// group or unknown wire type, a packed scalar field whose bytes do not divide into values.
// nullopt when the wire format checks out (the parse failed for another reason).
std::optional<ProtoProblem> FindProtoProblem(const google::protobuf::Message& prototype,
                                             std::span<const std::byte> bytes);

}  // namespace nxrt::ir
