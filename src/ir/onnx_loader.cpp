// ir/onnx_loader.cpp: reads and parses an ONNX ModelProto, converts it with GraphBuilder and
// validates every graph with GraphView (see ir/onnx_loader.h).
//
// Layer: nxrt_ir. A model file is mapped, not read into a buffer, and parsed with protobuf's total
// size limit raised to its maximum, so models near protobuf's 2 GB ceiling load. The parser gets
// the mapping in blocks, and each block it has finished with is given back to the kernel, so the
// file's pages do not stay in the process's resident set next to the parsed copy. When parsing
// fails, ir/proto_diagnostics.h says where and why (a truncated file is the usual case).
#include "ir/onnx_loader.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "ir/external_data.h"
#include "ir/graph_builder.h"
#include "ir/graph_view.h"
#include "ir/model_validator.h"
#include "ir/onnx_writer.h"
#include "ir/op_schema.h"
#include "ir/proto_diagnostics.h"
#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

namespace nxrt::ir {
namespace {

// Message nesting protobuf parses: protobuf's default is 100; each subgraph level costs three
// (NodeProto, AttributeProto, GraphProto).
constexpr int kProtoRecursionLimit = 400;

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

// A ZeroCopyInputStream over a mapped file, handed out in blocks of kBlockBytes. Each call to
// Next drops the pages of the blocks before the one it returns (MappedFile::DropPages): protobuf
// has copied what it keeps from them by then. A dropped page read again is faulted in from the
// file, so dropping early is never wrong, only slower.
class ReleasingMappedInputStream final : public google::protobuf::io::ZeroCopyInputStream {
 public:
  static constexpr size_t kBlockBytes = size_t{4} << 20;

  explicit ReleasingMappedInputStream(const MappedFile& file) : file_(file) {}

  bool Next(const void** data, int* size) override {
    if (position_ >= file_.size) return false;
    file_.DropPages(dropped_, position_);
    dropped_ = position_;
    const size_t n = std::min(kBlockBytes, file_.size - position_);
    *data = file_.data + position_;
    *size = static_cast<int>(n);
    position_ += n;
    return true;
  }

  void BackUp(int count) override { position_ -= static_cast<size_t>(count); }

  bool Skip(int count) override {
    const size_t left = file_.size - position_;
    position_ += std::min(static_cast<size_t>(count), left);
    return static_cast<size_t>(count) <= left;
  }

  int64_t ByteCount() const override { return static_cast<int64_t>(position_); }

 private:
  const MappedFile& file_;
  size_t position_ = 0;
  size_t dropped_ = 0;  // DropPages has had [0, dropped_): block starts are page multiples
};

// Parses `bytes`, read through `stream`, or explains from `bytes` why they are not a model.
Result<onnx::ModelProto> ParseModel(std::span<const std::byte> bytes,
                                    google::protobuf::io::ZeroCopyInputStream& stream,
                                    const std::string& source) {
  if (bytes.empty()) {
    return Status(StatusCode::kInvalidModel, source + ": empty (0 bytes), not an ONNX model");
  }
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return Status(StatusCode::kInvalidModel,
                  source + ": " + std::to_string(bytes.size()) +
                      " bytes is over protobuf's 2 GB limit; store the weights as external data");
  }
  onnx::ModelProto proto;
  bool parsed = false;
  {
    google::protobuf::io::CodedInputStream coded(&stream);
    coded.SetTotalBytesLimit(INT_MAX);
    // Deep enough that subgraphs nested past kMaxSubgraphDepth (3 messages a level) parse and
    // get the validator's clear "nested too deep" rather than a bare parse failure.
    coded.SetRecursionLimit(kProtoRecursionLimit);
    parsed = proto.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  }
  if (parsed && proto.has_graph()) return proto;

  const std::string size = std::to_string(bytes.size());
  if (!parsed) {
    std::optional<ProtoProblem> problem =
        FindProtoProblem(onnx::ModelProto::default_instance(), bytes);
    const std::string detail =
        problem ? problem->message : "the wire format is intact but a value is invalid";
    const size_t after = problem ? problem->offset : bytes.size();
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
// Records, for `graph` and every subgraph below it, how many value_info entries it has.
void CountValueInfos(const onnx::GraphProto& graph,
                     std::unordered_map<const onnx::GraphProto*, int>& counts) {
  counts[&graph] = graph.value_info_size();
  for (const onnx::NodeProto& node : graph.node()) {
    for (const onnx::AttributeProto& attr : node.attribute()) {
      if (attr.has_g()) CountValueInfos(attr.g(), counts);
      for (const onnx::GraphProto& g : attr.graphs()) CountValueInfos(g, counts);
    }
  }
}

// True when `graph` or a subgraph below it has a node of `op_type` (any domain).
bool HasOp(const onnx::GraphProto& graph, std::string_view op_type) {
  for (const onnx::NodeProto& node : graph.node()) {
    if (node.op_type() == op_type) return true;
    for (const onnx::AttributeProto& attr : node.attribute()) {
      if (attr.has_g() && HasOp(attr.g(), op_type)) return true;
      for (const onnx::GraphProto& g : attr.graphs()) {
        if (HasOp(g, op_type)) return true;
      }
    }
  }
  return false;
}

// Every graph of `graph`'s tree, depth first in node and attribute order: the same order in a
// copy of the proto, so entries can be matched by position.
void CollectGraphs(onnx::GraphProto& graph, std::vector<onnx::GraphProto*>& out) {
  out.push_back(&graph);
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    for (onnx::AttributeProto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) CollectGraphs(*attr.mutable_g(), out);
      for (onnx::GraphProto& g : *attr.mutable_graphs()) CollectGraphs(g, out);
    }
  }
}

// libonnx's inference, run in a child process: libonnx 1.12's inference functions trust their
// inputs (a division by a zero stride, an index past a weight's rank, an Einsum equation that
// frees an invalid pointer, ...) and the validator cannot know every precondition of every one.
// The child infers on its copy-on-write copy of `proto` and writes back, per graph in
// CollectGraphs order, each length-delimited after a count: the value_info entries inference
// added, every graph output's type after inference, then the types it filled into graph inputs
// and value_info entries the model declared with an empty type (libonnx writes the types of a
// body's inputs and outputs there, not into value_info; without them values of nested If bodies
// and Loop-carried values stay untyped). The parent appends them all to the graph's value_info, after the declared
// entries, so they count as inferred. A child that crashes, aborts or runs past
// kInferenceSeconds leaves `proto` as it was.
constexpr int kInferenceSeconds = 60;

// True when `info` was declared with an empty type (no tensor, sequence, map, ... type at all).
bool Untyped(const onnx::ValueInfoProto& info) {
  return info.type().value_case() == onnx::TypeProto::VALUE_NOT_SET;
}

// The entries of `graph` after inference that the parent lacks: value_info from index `declared`
// on (added), every typed graph output (libonnx merges what it infers into a declared output's
// type as ORT does: a fixed dim replaces a symbolic or missing one), and the inputs and value_info
// entries named in `untyped` (declared with an empty type) that inference gave a type.
std::vector<const onnx::ValueInfoProto*> InferredEntries(
    const onnx::GraphProto& graph, int declared, const std::unordered_set<std::string>& untyped) {
  std::vector<const onnx::ValueInfoProto*> entries;
  for (int i = declared; i < graph.value_info_size(); ++i) entries.push_back(&graph.value_info(i));
  for (const onnx::ValueInfoProto& info : graph.output()) {
    if (!Untyped(info)) entries.push_back(&info);
  }
  if (untyped.empty()) return entries;
  for (const onnx::ValueInfoProto& info : graph.input()) {
    if (untyped.contains(info.name()) && !Untyped(info)) entries.push_back(&info);
  }
  for (int i = 0; i < std::min(declared, graph.value_info_size()); ++i) {
    const onnx::ValueInfoProto& info = graph.value_info(i);
    if (untyped.contains(info.name()) && !Untyped(info)) entries.push_back(&info);
  }
  return entries;
}

bool InferInChild(onnx::ModelProto& proto, const std::vector<int>& declared) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return false;
  }
  if (child == 0) {
    ::close(fds[0]);
    std::vector<std::unordered_set<std::string>> untyped;
    {
      std::vector<onnx::GraphProto*> graphs;
      CollectGraphs(*proto.mutable_graph(), graphs);
      for (const onnx::GraphProto* graph : graphs) {
        std::unordered_set<std::string>& names = untyped.emplace_back();
        for (const auto* list : {&graph->input(), &graph->output(), &graph->value_info()}) {
          for (const onnx::ValueInfoProto& info : *list) {
            if (Untyped(info)) names.insert(info.name());
          }
        }
      }
    }
    try {
      onnx::shape_inference::InferShapes(proto, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(false, 0, false));
    } catch (const std::exception&) {
      // Partial results stay.
    }
    std::string out;
    {
      google::protobuf::io::StringOutputStream stream(&out);
      google::protobuf::io::CodedOutputStream coded(&stream);
      std::vector<onnx::GraphProto*> graphs;
      CollectGraphs(*proto.mutable_graph(), graphs);
      for (size_t g = 0; g < graphs.size(); ++g) {
        const int from = g < declared.size() ? declared[g] : graphs[g]->value_info_size();
        const std::vector<const onnx::ValueInfoProto*> entries = InferredEntries(
            *graphs[g], from, g < untyped.size() ? untyped[g] : std::unordered_set<std::string>{});
        coded.WriteVarint32(static_cast<uint32_t>(entries.size()));
        for (const onnx::ValueInfoProto* info : entries) {
          coded.WriteVarint32(static_cast<uint32_t>(info->ByteSizeLong()));
          info->SerializeWithCachedSizes(&coded);
        }
      }
    }
    for (size_t done = 0; done < out.size();) {
      const ssize_t n = ::write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0 && errno != EINTR) ::_exit(1);
      if (n > 0) done += static_cast<size_t>(n);
    }
    ::_exit(0);  // no destructors, no atexit handlers of the parent's state
  }
  ::close(fds[1]);
  std::string in;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kInferenceSeconds);
  bool timed_out = false;
  char chunk[1 << 16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
    if (ready == 0) {
      timed_out = true;
      break;
    }
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    in.append(chunk, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return false;

  std::vector<onnx::GraphProto*> graphs;
  CollectGraphs(*proto.mutable_graph(), graphs);
  google::protobuf::io::CodedInputStream coded(reinterpret_cast<const uint8_t*>(in.data()),
                                               static_cast<int>(in.size()));
  std::vector<std::vector<onnx::ValueInfoProto>> inferred(graphs.size());
  for (size_t g = 0; g < graphs.size(); ++g) {
    uint32_t count = 0;
    if (!coded.ReadVarint32(&count)) return false;
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t size = 0;
      if (!coded.ReadVarint32(&size)) return false;
      const auto limit = coded.PushLimit(static_cast<int>(size));
      onnx::ValueInfoProto info;
      if (!info.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) return false;
      coded.PopLimit(limit);
      inferred[g].push_back(std::move(info));
    }
  }
  for (size_t g = 0; g < graphs.size(); ++g) {
    for (onnx::ValueInfoProto& info : inferred[g]) *graphs[g]->add_value_info() = std::move(info);
  }
  return true;
}

// ONNX type and shape inference over `proto` in place (in a child process, see InferInChild);
// node-level failures are skipped and any other failure, a crash of libonnx included, leaves the
// types as the model gave them (inference is a help, not a check). Skipped for models with
// Einsum: libonnx 1.12's Einsum rank inference frees an invalid pointer on some equations the
// ONNX spec allows, and would fail every time. Returns the value_info counts from before
// inference (see GraphBuilder).
std::unordered_map<const onnx::GraphProto*, int> InferTypes(onnx::ModelProto& proto) {
  std::unordered_map<const onnx::GraphProto*, int> counts;
  CountValueInfos(proto.graph(), counts);
  if (HasOp(proto.graph(), "Einsum")) return counts;
  std::vector<onnx::GraphProto*> graphs;
  CollectGraphs(*proto.mutable_graph(), graphs);
  std::vector<int> declared;
  for (onnx::GraphProto* g : graphs) declared.push_back(g->value_info_size());
  InferInChild(proto, declared);
  return counts;
}

// The dim symbols libonnx's inference made up ("unk__N" for a dim it could not tell): those in
// the value_info entries it added (from `declared`'s count on, per graph) that no graph input,
// output or declared value_info of the model uses.
std::unordered_set<std::string> InferredSymbols(
    onnx::ModelProto& proto, const std::unordered_map<const onnx::GraphProto*, int>& declared) {
  std::unordered_set<std::string> written;
  std::unordered_set<std::string> inferred;
  std::function<void(const onnx::TypeProto&, std::unordered_set<std::string>&)> collect =
      [&](const onnx::TypeProto& type, std::unordered_set<std::string>& into) {
        const onnx::TensorShapeProto* shape = nullptr;
        if (type.has_tensor_type() && type.tensor_type().has_shape()) {
          shape = &type.tensor_type().shape();
        } else if (type.has_sparse_tensor_type() && type.sparse_tensor_type().has_shape()) {
          shape = &type.sparse_tensor_type().shape();
        } else if (type.has_sequence_type()) {
          collect(type.sequence_type().elem_type(), into);
        } else if (type.has_optional_type()) {
          collect(type.optional_type().elem_type(), into);
        } else if (type.has_map_type()) {
          collect(type.map_type().value_type(), into);
        }
        if (shape == nullptr) return;
        for (const onnx::TensorShapeProto::Dimension& dim : shape->dim()) {
          if (dim.has_dim_param()) into.insert(dim.dim_param());
        }
      };
  std::vector<onnx::GraphProto*> graphs;
  CollectGraphs(*proto.mutable_graph(), graphs);
  for (const onnx::GraphProto* graph : graphs) {
    auto count = declared.find(graph);
    const int from = count != declared.end() ? count->second : graph->value_info_size();
    for (const onnx::ValueInfoProto& info : graph->input()) collect(info.type(), written);
    for (const onnx::ValueInfoProto& info : graph->output()) collect(info.type(), written);
    for (int i = 0; i < graph->value_info_size(); ++i) {
      collect(graph->value_info(i).type(), i < from ? written : inferred);
    }
  }
  for (const std::string& symbol : written) inferred.erase(symbol);
  return inferred;
}

// The type ONNX Runtime 1.30 gives a node output whose type only inference gave, where its
// inference and ORT's own handling differ from libonnx 1.12's (found with the recording EP,
// tests/plugin_host/recording_ep_test.cpp); nullopt keeps libonnx's `inferred`:
// - ORT sets an inferred type through its type string (NodeArg::SetType) and then adds the shape
//   only of a tensor, sparse tensor or optional tensor, so a sequence or map (or an optional
//   of either) keeps no element shape.
// - GreaterOrEqual-12 and LessOrEqual-12 have no inference function in the ONNX ORT ships (only a
//   function body, which ORT does not infer through): the output is bool without a shape.
// - Slice-10 and later with starts or ends that are not constants: the rank of `data` with every
//   dim unknown (newer ONNX), where libonnx 1.12 gives no shape.
std::optional<TypeInfo> OrtInferredType(const Graph& graph, const Node& node, int since,
                                        const TypeInfo& inferred) {
  using Kind = TypeInfo::Kind;
  std::function<TypeInfo(const TypeInfo&)> without_shapes = [&](const TypeInfo& type) {
    TypeInfo out = type;
    out.shape.reset();
    if (type.element) out.element = std::make_shared<const TypeInfo>(without_shapes(*type.element));
    return out;
  };
  const bool keeps_shape =
      inferred.kind == Kind::kTensor || inferred.kind == Kind::kSparseTensor ||
      (inferred.kind == Kind::kOptional && inferred.element &&
       inferred.element->kind == Kind::kTensor);
  if (inferred.element && !keeps_shape) return without_shapes(inferred);
  if (!node.domain.empty()) return std::nullopt;
  if ((node.op_type == "GreaterOrEqual" || node.op_type == "LessOrEqual") && since == 12) {
    return TypeInfo::Tensor(DataType::kBool);
  }
  if (node.op_type == "Slice" && since >= 10 && inferred.kind == Kind::kTensor &&
      !inferred.shape && !node.inputs.empty() && node.inputs[0] != kNoValue) {
    const TypeInfo& data = graph.values[node.inputs[0]].type;
    if (data.kind != Kind::kTensor || !data.shape) return std::nullopt;
    return TypeInfo::Tensor(inferred.elem_type, std::vector<Dim>(data.shape->size()));
  }
  return std::nullopt;
}

// Gives every value of `graph` and its bodies whose type only inference gave (a node output
// that is no graph output and has no value_info of the model) the type ONNX Runtime shows; a
// body's copies of outer-scope values follow the values they copy.
void AlignInferredTypesWithOrt(const Model& model, Graph& graph) {
  std::unordered_set<ValueId> declared(graph.outputs.begin(), graph.outputs.end());
  declared.insert(graph.value_infos.begin(), graph.value_infos.end());
  for (const Node& node : graph.nodes) {
    const int since =
        SinceVersion(node.domain, node.op_type, model.OpsetFor(node.domain).value_or(0));
    for (ValueId v : node.outputs) {
      if (v == kNoValue || declared.count(v) != 0 || !graph.values[v].type.known()) continue;
      std::optional<TypeInfo> type = OrtInferredType(graph, node, since, graph.values[v].type);
      if (type) graph.values[v].type = std::move(*type);
    }
  }
  auto align_body = [&](Graph& body) {
    for (Value& value : body.values) {
      if (!value.outer_scope) continue;
      const ValueId outer = graph.FindValue(value.name);
      if (outer != kNoValue) value.type = graph.values[outer].type;
    }
    AlignInferredTypesWithOrt(model, body);
  };
  for (Node& node : graph.nodes) {
    for (Attribute& attr : node.attributes) {
      if (attr.g) align_body(*attr.g);
      for (const std::shared_ptr<Graph>& body : attr.graphs) align_body(*body);
    }
  }
}

Result<Model> BuildModel(onnx::ModelProto& proto, const std::string& source,
                         const std::filesystem::path& external_data_dir,
                         std::vector<std::filesystem::path> external_data_roots, std::string path,
                         bool infer_types) {
  Model model;
  model.ir_version = proto.ir_version();
  model.producer_name = proto.producer_name();
  model.producer_version = proto.producer_version();
  model.domain = proto.domain();
  // ONNX Runtime reports a model without a version as INT64_MAX (its kNoVersion); so does nxrt.
  model.model_version =
      proto.has_model_version() ? proto.model_version() : std::numeric_limits<int64_t>::max();
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

  // Before anything reads the graph, libonnx's inference included (ir/model_validator.h).
  Result<ProtoFacts> facts = ValidateModelProto(proto);
  if (!facts.ok()) return facts.status().WithContext(source);

  ExternalDataResolver external(external_data_dir, std::move(external_data_roots));
  GraphBuilder builder(&external);
  if (infer_types && facts->topologically_sorted) {
    std::unordered_map<const onnx::GraphProto*, int> declared = InferTypes(proto);
    model.inferred_symbols = InferredSymbols(proto, declared);
    builder.SetDeclaredValueInfoCounts(std::move(declared));
  }
  Result<std::shared_ptr<Graph>> graph = builder.Build(*proto.mutable_graph());
  if (!graph.ok()) return graph.status().WithContext(source);
  model.graph = std::move(graph).value();
  model.external_files = external.files();
  if (infer_types && facts->topologically_sorted) AlignInferredTypesWithOrt(model, *model.graph);

  status = ValidateGraph(model, *model.graph);
  if (status.ok()) status = ValidateNodeTypes(model);
  if (!status.ok()) return status.WithContext(source);
  return model;
}

// `type`, a value's inferred type, with what a new inference found, as ORT merges a new inference
// into a value it typed before: an unknown type or a missing shape is taken whole; of a shape of
// the same rank, each dim that was unknown or a symbol inference made up takes a fixed size.
void MergeInferred(const Model& model, const TypeInfo& found, TypeInfo& type) {
  if (!type.known()) {
    type = found;
    return;
  }
  if (type.kind != TypeInfo::Kind::kTensor || found.kind != TypeInfo::Kind::kTensor ||
      !found.shape) {
    return;
  }
  if (!type.shape) {
    type.shape = found.shape;
    return;
  }
  if (type.shape->size() != found.shape->size()) return;
  for (size_t i = 0; i < type.shape->size(); ++i) {
    Dim& dim = (*type.shape)[i];
    const bool open =
        dim.kind == Dim::Kind::kUnknown ||
        (dim.kind == Dim::Kind::kSymbolic && model.inferred_symbols.count(dim.symbol) != 0);
    if (open && (*found.shape)[i].is_fixed()) dim = (*found.shape)[i];
  }
}

// Applies the entries a new inference gave `proto` (value_info from `declared`'s count on:
// InferInChild's added entries and merged graph outputs) to `graph`, written from it, and to its
// bodies, matched node by node.
void ApplyInferred(Model& model, const onnx::GraphProto& proto, Graph& graph,
                   const std::unordered_map<const onnx::GraphProto*, int>& declared) {
  std::unordered_set<ValueId> kept(graph.value_infos.begin(), graph.value_infos.end());
  const auto count = declared.find(&proto);
  const int from = count != declared.end() ? count->second : proto.value_info_size();
  for (int i = from; i < proto.value_info_size(); ++i) {
    const onnx::ValueInfoProto& info = proto.value_info(i);
    const ValueId id = graph.FindValue(info.name());
    if (id == kNoValue || graph.values[id].outer_scope || kept.count(id) != 0) continue;
    Result<TypeInfo> found = TypeFromProto(info.type());
    if (!found.ok()) continue;
    TypeInfo& type = graph.values[id].type;
    const bool output = std::find(graph.outputs.begin(), graph.outputs.end(), id) !=
                        graph.outputs.end();
    if (!output) {
      MergeInferred(model, *found, type);
    } else if (type.kind == TypeInfo::Kind::kTensor && found->kind == TypeInfo::Kind::kTensor) {
      type = std::move(found).value();  // declared and found, merged by libonnx as by ORT
    }
  }
  for (int n = 0; n < proto.node_size() && n < static_cast<int>(graph.nodes.size()); ++n) {
    for (const onnx::AttributeProto& attr : proto.node(n).attribute()) {
      for (Attribute& ir_attr : graph.nodes[n].attributes) {
        if (ir_attr.name != attr.name()) continue;
        if (attr.has_g() && ir_attr.g) ApplyInferred(model, attr.g(), *ir_attr.g, declared);
        for (int g = 0; g < attr.graphs_size() && g < static_cast<int>(ir_attr.graphs.size());
             ++g) {
          ApplyInferred(model, attr.graphs(g), *ir_attr.graphs[g], declared);
        }
      }
    }
  }
}

}  // namespace

void InferTypesAgain(Model& model) {
  // Without the values of large initializers (weights): inference reads small shape-like tensors
  // only, and a model's weights written whole and parsed again would be held three times.
  WriteOptions options;
  options.inline_bytes_limit = 1024;
  Result<std::string> bytes = SerializeModel(model, options);
  if (!bytes.ok()) return;
  const std::span<const std::byte> view(reinterpret_cast<const std::byte*>(bytes->data()),
                                        bytes->size());
  google::protobuf::io::ArrayInputStream stream(bytes->data(), static_cast<int>(bytes->size()));
  Result<onnx::ModelProto> proto = ParseModel(view, stream, "optimized model");
  if (!proto.ok()) return;
  const std::unordered_map<const onnx::GraphProto*, int> declared = InferTypes(*proto);
  for (const std::string& symbol : InferredSymbols(*proto, declared)) {
    model.inferred_symbols.insert(symbol);
  }
  ApplyInferred(model, proto->graph(), *model.graph, declared);
  AlignInferredTypesWithOrt(model, *model.graph);
}

Result<Model> LoadModelFromFile(const std::filesystem::path& path, const LoadOptions& options) {
  const std::string source = "file '" + path.string() + "'";
  Result<onnx::ModelProto> proto = Status(StatusCode::kInternal, "not parsed");
  {
    // Unmapped right after parsing: the proto holds its own copy of everything.
    Result<std::shared_ptr<MappedFile>> file = MappedFile::Open(path);
    if (!file.ok()) return file.status().WithContext("cannot load model");
    ReleasingMappedInputStream stream(**file);
    proto = ParseModel({(*file)->data, (*file)->size}, stream, source);
  }
  if (!proto.ok()) return proto.status();
  std::filesystem::path dir = options.external_data_dir;
  std::vector<std::filesystem::path> roots;
  if (dir.empty()) {
    dir = path.has_parent_path() ? path.parent_path() : ".";
    // A model reached through a link (the Hugging Face cache layout) may also keep its data
    // beside the file the link points to, as ONNX Runtime allows.
    std::error_code ec;
    const std::filesystem::path real = std::filesystem::canonical(path, ec);
    if (!ec) roots.push_back(real.parent_path());
  }
  return BuildModel(*proto, source, dir, std::move(roots), path.string(), options.infer_types);
}

Result<Model> LoadModelFromBytes(std::span<const std::byte> bytes, const LoadOptions& options) {
  const std::string source = "model bytes";
  // ParseModel rejects more than INT_MAX bytes before reading the stream.
  const int size = static_cast<int>(std::min<size_t>(bytes.size(), INT_MAX));
  google::protobuf::io::ArrayInputStream stream(bytes.data(), size);
  Result<onnx::ModelProto> proto = ParseModel(bytes, stream, source);
  if (!proto.ok()) return proto.status();
  std::filesystem::path dir = options.external_data_dir;
  if (dir.empty()) dir = ".";
  return BuildModel(*proto, source, dir, {}, "", options.infer_types);
}

}  // namespace nxrt::ir
