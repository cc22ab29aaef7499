// ir/onnx_loader.cpp: reads and parses an ONNX ModelProto, converts it with GraphBuilder and
// validates every graph with GraphView (see ir/onnx_loader.h).
//
// Layer: nxrt_ir. A model file is mapped, not read into a buffer, and parsed with protobuf's total
// size limit raised to its maximum, so models near protobuf's 2 GB ceiling load. When parsing
// fails, the top level of the file is walked by hand to say where and why (a truncated file is
// the usual case).
#include "ir/onnx_loader.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "ir/external_data.h"
#include "ir/graph_builder.h"
#include "ir/graph_view.h"
#include "onnx/onnx_pb.h"

namespace nxrt::ir {
namespace {

// ModelProto field names by number (onnx.proto), for diagnostics.
std::string ModelFieldName(uint64_t number) {
  switch (number) {
    case 1: return "ir_version";
    case 2: return "producer_name";
    case 3: return "producer_version";
    case 4: return "domain";
    case 5: return "model_version";
    case 6: return "doc_string";
    case 7: return "graph";
    case 8: return "opset_import";
    case 14: return "metadata_props";
    case 20: return "training_info";
    case 25: return "functions";
    default: return "unknown field " + std::to_string(number);
  }
}

// Reads a base-128 varint at `pos`; nullopt when it runs past the end or over 10 bytes.
std::optional<uint64_t> ReadVarint(std::span<const std::byte> bytes, size_t& pos) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64 && pos < bytes.size(); shift += 7) {
    const auto b = static_cast<uint8_t>(bytes[pos++]);
    value |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return value;
  }
  return std::nullopt;
}

struct WireProblem {
  size_t offset = 0;     // where the offending top-level field starts
  std::string message;   // "" when the top level is well formed
};

// Why `bytes` is not a well-formed sequence of top-level protobuf fields. When the top level is
// well formed, the problem (if any) is inside a field.
WireProblem FindTopLevelProblem(std::span<const std::byte> bytes) {
  size_t pos = 0;
  while (pos < bytes.size()) {
    const size_t start = pos;
    std::optional<uint64_t> tag = ReadVarint(bytes, pos);
    const std::string at = " at byte " + std::to_string(start);
    if (!tag) return {start, "the field tag" + at + " is cut off or malformed"};
    const uint64_t number = *tag >> 3;
    const uint64_t wire = *tag & 7;
    if (number == 0) return {start, "field number 0" + at + " is invalid"};
    const std::string field =
        "field " + std::to_string(number) + " (" + ModelFieldName(number) + ")" + at;
    uint64_t skip = 0;
    switch (wire) {
      case 0:
        if (!ReadVarint(bytes, pos)) return {start, field + " has a cut-off or malformed varint"};
        continue;
      case 1:
        skip = 8;
        break;
      case 5:
        skip = 4;
        break;
      case 2: {
        std::optional<uint64_t> length = ReadVarint(bytes, pos);
        if (!length) return {start, field + " has a cut-off or malformed length"};
        skip = *length;
        break;
      }
      default:
        return {start, field + " has wire type " + std::to_string(wire) +
                           ", which ONNX models do not use"};
    }
    if (skip > bytes.size() - pos) {
      return {start, field + " needs " + std::to_string(skip) + " bytes but only " +
                         std::to_string(bytes.size() - pos) + " remain: the file is truncated"};
    }
    pos += skip;
  }
  return {};
}

// A hint for data that is plainly not protobuf: a Git LFS pointer or other text.
std::string TextHint(std::span<const std::byte> bytes) {
  const std::string_view head(reinterpret_cast<const char*>(bytes.data()),
                              std::min<size_t>(bytes.size(), 64));
  if (head.starts_with("version https://git-lfs")) {
    return "; it is a Git LFS pointer, not the model: fetch the file with `git lfs pull`";
  }
  for (char c : head) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isprint(u) && !std::isspace(u)) return "";
  }
  return "; it looks like a text file";
}

Result<onnx::ModelProto> ParseModel(std::span<const std::byte> bytes, const std::string& source) {
  if (bytes.empty()) {
    return Status(StatusCode::kInvalidModel, source + ": empty (0 bytes), not an ONNX model");
  }
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return Status(StatusCode::kInvalidModel,
                  source + ": " + std::to_string(bytes.size()) +
                      " bytes is over protobuf's 2 GB limit; store the weights as external data");
  }
  google::protobuf::io::ArrayInputStream array(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&array);
  coded.SetTotalBytesLimit(INT_MAX);
  onnx::ModelProto proto;
  const bool parsed = proto.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  if (parsed && proto.has_graph()) return proto;

  const std::string size = std::to_string(bytes.size());
  if (!parsed) {
    const WireProblem problem = FindTopLevelProblem(bytes);
    const std::string detail = problem.message.empty()
                                   ? "the contents of a field are malformed"
                                   : problem.message;
    const size_t after = problem.message.empty() ? bytes.size() : problem.offset;
    return Status(StatusCode::kInvalidModel,
                  source + ": not an ONNX model (protobuf parse failed after " +
                      std::to_string(after) + " of " + size + " bytes): " + detail +
                      TextHint(bytes));
  }
  return Status(StatusCode::kInvalidModel, source + ": not an ONNX model (" + size +
                                               " bytes parse as protobuf but hold no graph)" +
                                               TextHint(bytes));
}

// Validates `graph` and, depth first, each subgraph; errors carry the chain of nodes that lead to
// the subgraph.
Status ValidateGraph(const Model& model, const Graph& graph) {
  NXRT_ASSIGN_OR_RETURN(GraphView view, GraphView::Create(model, graph));
  for (const Node& node : graph.nodes) {
    for (const Attribute& attr : node.attributes) {
      std::vector<const Graph*> subgraphs;
      if (attr.g) subgraphs.push_back(attr.g.get());
      for (const auto& g : attr.graphs) subgraphs.push_back(g.get());
      for (const Graph* sub : subgraphs) {
        Status status = ValidateGraph(model, *sub);
        if (!status.ok()) {
          return status.WithContext("node '" + node.name + "' (" + node.op_type +
                                    ") attribute '" + attr.name + "'");
        }
      }
    }
  }
  return Status::Ok();
}

Status ReadOpsetImports(const onnx::ModelProto& proto, Model& model) {
  for (const onnx::OperatorSetIdProto& import : proto.opset_import()) {
    const std::string domain = CanonicalDomain(import.domain());
    std::optional<int64_t> existing = model.OpsetFor(domain);
    if (existing) {
      if (*existing != import.version()) {
        return MakeStatus(StatusCode::kInvalidModel, "opset_import lists domain '",
                          domain.empty() ? "ai.onnx" : domain, "' twice, with versions ",
                          *existing, " and ", import.version());
      }
      continue;
    }
    model.opset_imports.push_back({domain, import.version()});
  }
  if (proto.opset_import_size() == 0) {
    // IR versions 1 and 2 predate opset_import and mean the default domain at opset 1.
    if (proto.ir_version() >= 3) {
      return MakeStatus(StatusCode::kInvalidModel, "opset_import is empty, but a model of IR "
                        "version ", proto.ir_version(), " must import at least one operator set "
                        "(is the file truncated?)");
    }
    model.opset_imports.push_back({"", 1});
  }
  return Status::Ok();
}

// The model `proto` (consumed: tensor data is released as it is converted) as IR.
Result<Model> BuildModel(onnx::ModelProto& proto, const std::string& source,
                         const std::filesystem::path& external_data_dir, std::string path) {
  Model model;
  model.ir_version = proto.ir_version();
  model.producer_name = proto.producer_name();
  model.producer_version = proto.producer_version();
  model.domain = proto.domain();
  model.model_version = proto.model_version();
  model.doc_string = proto.doc_string();
  model.path = std::move(path);
  for (const onnx::StringStringEntryProto& entry : proto.metadata_props()) {
    model.metadata.emplace_back(entry.key(), entry.value());
  }
  for (const onnx::FunctionProto& function : proto.functions()) {
    model.local_functions.push_back(CanonicalDomain(function.domain()) + ":" + function.name());
  }
  Status status = ReadOpsetImports(proto, model);
  if (!status.ok()) return status.WithContext(source);

  ExternalDataResolver external(external_data_dir);
  GraphBuilder builder(&external);
  Result<std::shared_ptr<Graph>> graph = builder.Build(*proto.mutable_graph());
  if (!graph.ok()) return graph.status().WithContext(source);
  model.graph = std::move(graph).value();
  model.external_files = external.files();

  status = ValidateGraph(model, *model.graph);
  if (!status.ok()) return status.WithContext(source);
  return model;
}

}  // namespace

Result<Model> LoadModelFromFile(const std::filesystem::path& path, const LoadOptions& options) {
  const std::string source = "file '" + path.string() + "'";
  Result<onnx::ModelProto> proto = Status(StatusCode::kInternal, "not parsed");
  {
    // Unmapped right after parsing: the proto holds its own copy of everything.
    Result<std::shared_ptr<MappedFile>> file = MappedFile::Open(path);
    if (!file.ok()) return file.status().WithContext("cannot load model");
    proto = ParseModel({(*file)->data, (*file)->size}, source);
  }
  if (!proto.ok()) return proto.status();
  std::filesystem::path dir = options.external_data_dir;
  if (dir.empty()) dir = path.has_parent_path() ? path.parent_path() : ".";
  return BuildModel(*proto, source, dir, path.string());
}

Result<Model> LoadModelFromBytes(std::span<const std::byte> bytes, const LoadOptions& options) {
  const std::string source = "model bytes";
  Result<onnx::ModelProto> proto = ParseModel(bytes, source);
  if (!proto.ok()) return proto.status();
  std::filesystem::path dir = options.external_data_dir;
  if (dir.empty()) dir = ".";
  return BuildModel(*proto, source, dir, "");
}

}  // namespace nxrt::ir
