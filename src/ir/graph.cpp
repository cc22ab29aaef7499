// ir/graph.cpp: small helpers of the graph IR: printing dims and types, attribute lookup, the
// value and initializer indexes of a Graph, and opset lookup on a Model.
//
// Layer: nxrt_ir. No protobuf here; see ir/onnx_loader.cpp for how the IR is filled.
#include "ir/graph.h"

#include <cassert>
#include <string>

namespace nxrt::ir {

std::string Dim::ToString() const {
  switch (kind) {
    case Kind::kFixed:
      return std::to_string(value);
    case Kind::kSymbolic:
      return symbol;
    case Kind::kUnknown:
      break;
  }
  return "?";
}

namespace {

std::string ShapeSuffix(const std::optional<std::vector<Dim>>& shape) {
  if (!shape) return "";
  std::string out = "[";
  for (size_t i = 0; i < shape->size(); ++i) {
    if (i > 0) out += ",";
    out += (*shape)[i].ToString();
  }
  out += "]";
  return out;
}

std::string ElementToString(const std::shared_ptr<const TypeInfo>& element) {
  return element ? element->ToString() : "unknown";
}

}  // namespace

std::string TypeInfo::ToString() const {
  switch (kind) {
    case Kind::kTensor:
      return "tensor(" + std::string(DataTypeName(elem_type)) + ")" + ShapeSuffix(shape);
    case Kind::kSparseTensor:
      return "sparse_tensor(" + std::string(DataTypeName(elem_type)) + ")" + ShapeSuffix(shape);
    case Kind::kSequence:
      return "seq(" + ElementToString(element) + ")";
    case Kind::kOptional:
      return "optional(" + ElementToString(element) + ")";
    case Kind::kMap:
      return "map(" + std::string(DataTypeName(map_key)) + "," + ElementToString(element) + ")";
    case Kind::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view AttributeTypeName(Attribute::Type type) {
  switch (type) {
    case Attribute::Type::kUndefined: return "undefined";
    case Attribute::Type::kFloat: return "float";
    case Attribute::Type::kInt: return "int";
    case Attribute::Type::kString: return "string";
    case Attribute::Type::kTensor: return "tensor";
    case Attribute::Type::kGraph: return "graph";
    case Attribute::Type::kFloats: return "floats";
    case Attribute::Type::kInts: return "ints";
    case Attribute::Type::kStrings: return "strings";
    case Attribute::Type::kTensors: return "tensors";
    case Attribute::Type::kGraphs: return "graphs";
    case Attribute::Type::kSparseTensor: return "sparse_tensor";
    case Attribute::Type::kSparseTensors: return "sparse_tensors";
    case Attribute::Type::kTypeProto: return "type_proto";
    case Attribute::Type::kTypeProtos: return "type_protos";
  }
  return "unknown";
}

const Attribute* Node::FindAttribute(std::string_view attr_name) const {
  for (const Attribute& attr : attributes) {
    if (attr.name == attr_name) return &attr;
  }
  return nullptr;
}

bool Node::HasSubgraphs() const {
  for (const Attribute& attr : attributes) {
    if (attr.g != nullptr || !attr.graphs.empty()) return true;
  }
  return false;
}

ValueId Graph::FindValue(std::string_view value_name) const {
  auto it = value_index_.find(value_name);
  return it == value_index_.end() ? kNoValue : it->second;
}

ValueId Graph::AddValue(Value v) {
  const auto id = static_cast<ValueId>(values.size());
  const bool inserted = value_index_.emplace(v.name, id).second;
  assert(inserted && "Graph::AddValue: the caller must check that the name is new");
  (void)inserted;
  values.push_back(std::move(v));
  return id;
}

void Graph::AddInitializer(Initializer init) {
  assert(init.value >= 0 && static_cast<size_t>(init.value) < values.size());
  const bool inserted = initializer_index_.emplace(init.value, initializers.size()).second;
  assert(inserted && "Graph::AddInitializer: the value already has an initializer");
  (void)inserted;
  initializers.push_back(std::move(init));
}

const Initializer* Graph::FindInitializer(ValueId id) const {
  auto it = initializer_index_.find(id);
  return it == initializer_index_.end() ? nullptr : &initializers[it->second];
}

void Graph::Reindex() {
  value_index_.clear();
  initializer_index_.clear();
  for (size_t i = 0; i < values.size(); ++i) {
    value_index_.emplace(values[i].name, static_cast<ValueId>(i));
  }
  for (size_t i = 0; i < initializers.size(); ++i) {
    initializer_index_.emplace(initializers[i].value, i);
  }
}

std::optional<int64_t> Model::OpsetFor(std::string_view domain) const {
  const std::string canonical = CanonicalDomain(domain);
  for (const OpsetImport& import : opset_imports) {
    if (import.domain == canonical) return import.version;
  }
  return std::nullopt;
}

std::string CanonicalDomain(std::string_view domain) {
  if (domain == "ai.onnx") return "";
  return std::string(domain);
}

}  // namespace nxrt::ir
