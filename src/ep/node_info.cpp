// ep/node_info.cpp: NodeInfo's accessors and attribute getters (nxrt/node_info.h).
//
// Layer: nxrt_ep. Building a NodeInfo from the IR is in ep/node_info_builder.cpp.
#include "nxrt/node_info.h"

namespace nxrt {
namespace {

// "an int", "a float", "an ints"... for messages.
std::string WithArticle(AttributeType type) {
  std::string_view name = AttributeTypeName(type);
  bool vowel = !name.empty() && std::string_view("aeiou").find(name[0]) != std::string_view::npos;
  return std::string(vowel ? "an " : "a ") + std::string(name);
}

}  // namespace

std::string DimInfo::ToString() const {
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

std::string_view ValueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kAbsent:
      return "absent";
    case ValueKind::kUnknown:
      return "unknown";
    case ValueKind::kTensor:
      return "tensor";
    case ValueKind::kSparseTensor:
      return "sparse_tensor";
    case ValueKind::kSequence:
      return "sequence";
    case ValueKind::kOptional:
      return "optional";
    case ValueKind::kMap:
      return "map";
  }
  return "unknown";
}

std::optional<size_t> ValueInfo::rank() const {
  if (!shape) return std::nullopt;
  return shape->size();
}

bool ValueInfo::has_static_shape() const {
  if (!shape) return false;
  for (const DimInfo& d : *shape) {
    if (!d.is_fixed()) return false;
  }
  return true;
}

std::optional<Shape> ValueInfo::static_shape() const {
  if (!has_static_shape()) return std::nullopt;
  Shape dims;
  dims.reserve(shape->size());
  for (const DimInfo& d : *shape) dims.push_back(d.value);
  return dims;
}

std::string ValueInfo::ToString() const {
  if (kind == ValueKind::kAbsent) return "<absent>";
  std::string out = name + ": " + std::string(ValueKindName(kind));
  if (map_key != DataType::kUndefined) {
    const std::string map = "map(" + std::string(DataTypeName(map_key)) + "," +
                            std::string(DataTypeName(dtype)) + ")";
    out = name + ": " + (kind == ValueKind::kMap ? map : "sequence(" + map + ")");
  } else if (dtype != DataType::kUndefined) {
    out += '(';
    out += DataTypeName(dtype);
    out += ')';
  }
  if (kind == ValueKind::kTensor || kind == ValueKind::kSparseTensor) {
    if (!shape) {
      out += "[rank ?]";
    } else {
      out += "[";
      for (size_t i = 0; i < shape->size(); ++i) {
        if (i) out += ",";
        out += (*shape)[i].ToString();
      }
      out += "]";
    }
  }
  if (is_constant) out += " (constant)";
  return out;
}

std::string_view AttributeTypeName(AttributeType type) {
  switch (type) {
    case AttributeType::kUndefined:
      return "undefined";
    case AttributeType::kFloat:
      return "float";
    case AttributeType::kInt:
      return "int";
    case AttributeType::kString:
      return "string";
    case AttributeType::kTensor:
      return "tensor";
    case AttributeType::kGraph:
      return "graph";
    case AttributeType::kFloats:
      return "floats";
    case AttributeType::kInts:
      return "ints";
    case AttributeType::kStrings:
      return "strings";
    case AttributeType::kTensors:
      return "tensors";
    case AttributeType::kGraphs:
      return "graphs";
    case AttributeType::kSparseTensor:
      return "sparse_tensor";
    case AttributeType::kSparseTensors:
      return "sparse_tensors";
    case AttributeType::kTypeProto:
      return "type_proto";
    case AttributeType::kTypeProtos:
      return "type_protos";
  }
  return "undefined";
}

const AttributeValue* NodeInfo::FindAttribute(std::string_view name) const {
  for (const AttributeValue& attr : data_.attributes) {
    if (attr.name == name) return &attr;
  }
  return nullptr;
}

Result<const AttributeValue*> NodeInfo::Typed(std::string_view name, AttributeType type) const {
  const AttributeValue* attr = FindAttribute(name);
  if (attr == nullptr) return static_cast<const AttributeValue*>(nullptr);
  // Sparse tensors are densified, so they read as tensors.
  AttributeType actual = attr->type;
  if (actual == AttributeType::kSparseTensor) actual = AttributeType::kTensor;
  if (actual == AttributeType::kSparseTensors) actual = AttributeType::kTensors;
  if (actual != type) {
    return Error(StatusCode::kInvalidModel, "attribute '", name, "' is ", WithArticle(attr->type),
                 ", expected ", WithArticle(type));
  }
  return attr;
}

Status NodeInfo::Missing(std::string_view name) const {
  return Error(StatusCode::kInvalidModel, "required attribute '", name, "' is missing");
}

Result<int64_t> NodeInfo::GetInt(std::string_view name) const {
  NXRT_ASSIGN_OR_RETURN(const AttributeValue* attr, Typed(name, AttributeType::kInt));
  if (attr == nullptr) return Missing(name);
  return attr->i;
}

Result<int64_t> NodeInfo::GetInt(std::string_view name, int64_t default_value) const {
  NXRT_ASSIGN_OR_RETURN(const AttributeValue* attr, Typed(name, AttributeType::kInt));
  return attr == nullptr ? default_value : attr->i;
}

Result<float> NodeInfo::GetFloat(std::string_view name) const {
  NXRT_ASSIGN_OR_RETURN(const AttributeValue* attr, Typed(name, AttributeType::kFloat));
  if (attr == nullptr) return Missing(name);
  return attr->f;
}

Result<float> NodeInfo::GetFloat(std::string_view name, float default_value) const {
  NXRT_ASSIGN_OR_RETURN(const AttributeValue* attr, Typed(name, AttributeType::kFloat));
  return attr == nullptr ? default_value : attr->f;
}

Result<std::string> NodeInfo::GetString(std::string_view name) const {
  NXRT_ASSIGN_OR_RETURN(const AttributeValue* attr, Typed(name, AttributeType::kString));
  if (attr == nullptr) return Missing(name);
  return attr->s;
}

Result<std::string> NodeInfo::GetString(std::string_view name,
                                        std::string_view default_value) const {
  NXRT_ASSIGN_OR_RETURN(const AttributeValue* attr, Typed(name, AttributeType::kString));
  return attr == nullptr ? std::string(default_value) : attr->s;
}

Result<std::vector<int64_t>> NodeInfo::GetInts(std::string_view name) const {
  NXRT_ASSIGN_OR_RETURN(const AttributeValue* attr, Typed(name, AttributeType::kInts));
  if (attr == nullptr) return Missing(name);
  return attr->ints;
}

Result<std::vector<int64_t>> NodeInfo::GetInts(std::string_view name,
                                               std::vector<int64_t> default_value) const {
  NXRT_ASSIGN_OR_RETURN(const AttributeValue* attr, Typed(name, AttributeType::kInts));
  return attr == nullptr ? std::move(default_value) : attr->ints;
}

Result<std::vector<float>> NodeInfo::GetFloats(std::string_view name) const {
  NXRT_ASSIGN_OR_RETURN(const AttributeValue* attr, Typed(name, AttributeType::kFloats));
  if (attr == nullptr) return Missing(name);
  return attr->floats;
}

Result<std::vector<float>> NodeInfo::GetFloats(std::string_view name,
                                               std::vector<float> default_value) const {
  NXRT_ASSIGN_OR_RETURN(const AttributeValue* attr, Typed(name, AttributeType::kFloats));
  return attr == nullptr ? std::move(default_value) : attr->floats;
}

Result<std::vector<std::string>> NodeInfo::GetStrings(std::string_view name) const {
  NXRT_ASSIGN_OR_RETURN(const AttributeValue* attr, Typed(name, AttributeType::kStrings));
  if (attr == nullptr) return Missing(name);
  return attr->strings;
}

Result<Tensor> NodeInfo::GetTensor(std::string_view name) const {
  NXRT_ASSIGN_OR_RETURN(const AttributeValue* attr, Typed(name, AttributeType::kTensor));
  if (attr == nullptr) return Missing(name);
  return attr->tensor;
}

bool NodeInfo::has_subgraphs() const {
  for (const AttributeValue& attr : data_.attributes) {
    if (attr.graph_count > 0) return true;
  }
  return false;
}

std::vector<std::string> NodeInfo::subgraph_attribute_names() const {
  std::vector<std::string> names;
  for (const AttributeValue& attr : data_.attributes) {
    if (attr.graph_count > 0) names.push_back(attr.name);
  }
  return names;
}

std::string NodeInfo::Description() const {
  std::string out = "node '" + data_.name + "' (";
  if (!data_.domain.empty()) out += data_.domain + ":";
  out += data_.op_type + ", opset " + std::to_string(data_.opset) + ")";
  return out;
}

std::string NodeInfo::ShortName() const {
  std::string out = "#";
  out += std::to_string(data_.id);
  out += ":" + data_.op_type + ":" + data_.name;
  return out;
}

}  // namespace nxrt
