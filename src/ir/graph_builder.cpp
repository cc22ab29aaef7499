// ir/graph_builder.cpp: ONNX GraphProto → ir::Graph (see ir/graph_builder.h).
//
// Layer: nxrt_ir. A graph is built in passes so that every name is known before it is looked up:
//   1. graph inputs and initializers (dense, then sparse);
//   2. node outputs (nodes may be listed out of order: GraphView sorts and finds cycles);
//   3. graph outputs (which may be outer-scope values) and value_info types;
//   4. node inputs and attributes, where subgraphs are built with this graph as a scope.
#include "ir/graph_builder.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <unordered_set>
#include <utility>

namespace nxrt::ir {
namespace {

// AttributeProto's field number of `type` (onnx.proto). An enum number this libonnx does not
// know is kept by protobuf as an unknown field with this number.
constexpr int kAttributeTypeField = 20;

std::string NodeLabel(const Node& node) {
  std::string out = "node '" + node.name + "' (";
  if (!node.domain.empty()) out += node.domain + ":";
  return out + node.op_type + ")";
}

Status Invalid(const std::string& message) { return Status(StatusCode::kInvalidModel, message); }

Result<DataType> ElementType(int32_t onnx_type) {
  if (onnx_type == 0) return DataType::kUndefined;
  std::optional<DataType> dtype = DataTypeFromOnnx(onnx_type);
  if (!dtype) {
    return Status(StatusCode::kUnsupported,
                  "element type " + std::to_string(onnx_type) +
                      " is not supported by nxrt (it knows ONNX types 1-16)");
  }
  return *dtype;
}

std::vector<Dim> DimsFromProto(const onnx::TensorShapeProto& shape) {
  std::vector<Dim> dims;
  dims.reserve(shape.dim_size());
  for (const onnx::TensorShapeProto::Dimension& d : shape.dim()) {
    if (d.has_dim_value() && d.dim_value() >= 0) {
      dims.push_back(Dim::Fixed(d.dim_value()));
    } else if (d.has_dim_param() && !d.dim_param().empty()) {
      dims.push_back(Dim::Symbolic(d.dim_param()));
    } else {
      dims.push_back(Dim::Unknown());
    }
  }
  return dims;
}

// The element type of a sequence/optional/map, or nullptr when the proto leaves it out.
Result<std::shared_ptr<const TypeInfo>> ElementFromProto(bool present,
                                                         const onnx::TypeProto& proto) {
  if (!present) return std::shared_ptr<const TypeInfo>();
  NXRT_ASSIGN_OR_RETURN(TypeInfo element, TypeFromProto(proto));
  return std::make_shared<const TypeInfo>(std::move(element));
}

TypeInfo TensorTypeOf(const Tensor& tensor) {
  std::vector<Dim> dims;
  for (int64_t d : tensor.shape()) dims.push_back(Dim::Fixed(d));
  return TypeInfo::Tensor(tensor.dtype(), std::move(dims));
}

// ONNX before IR version 3 could leave AttributeProto.type unset; the field that holds a value
// tells the type then.
Attribute::Type InferAttributeType(const onnx::AttributeProto& a) {
  using T = Attribute::Type;
  if (a.has_f()) return T::kFloat;
  if (a.has_i()) return T::kInt;
  if (a.has_s()) return T::kString;
  if (a.has_t()) return T::kTensor;
  if (a.has_g()) return T::kGraph;
  if (a.has_sparse_tensor()) return T::kSparseTensor;
  if (a.has_tp()) return T::kTypeProto;
  if (a.floats_size() > 0) return T::kFloats;
  if (a.ints_size() > 0) return T::kInts;
  if (a.strings_size() > 0) return T::kStrings;
  if (a.tensors_size() > 0) return T::kTensors;
  if (a.graphs_size() > 0) return T::kGraphs;
  if (a.sparse_tensors_size() > 0) return T::kSparseTensors;
  if (a.type_protos_size() > 0) return T::kTypeProtos;
  return T::kUndefined;
}

// "<op_type>_<id>", or "<op_type>_<id>_<k>" with the smallest k >= 1 that is free.
std::string UniqueNodeName(const std::string& op_type, size_t id,
                           std::unordered_set<std::string>& taken) {
  const std::string base = op_type + "_" + std::to_string(id);
  std::string name = base;
  for (int k = 1; taken.count(name) > 0; ++k) name = base + "_" + std::to_string(k);
  taken.insert(name);
  return name;
}

// A graph output's declared type merged with inference (`inferred`, libonnx's merge) as ORT 1.30
// shows it: fixed sizes inference found replace unknown or symbolic declared dims, but a symbol
// inference made up ("unk__54") does not name a dim the declaration left unknown (ORT's session
// and graph API report such a dim with no name).
TypeInfo MergedOutputType(const TypeInfo& declared, TypeInfo inferred) {
  const bool optional = inferred.kind == TypeInfo::Kind::kOptional;
  const TypeInfo& declared_tensor =
      optional && declared.element ? *declared.element : declared;
  TypeInfo tensor = optional && inferred.element ? *inferred.element : inferred;
  if (!tensor.shape) return inferred;
  for (size_t d = 0; d < tensor.shape->size(); ++d) {
    Dim& dim = (*tensor.shape)[d];
    if (dim.kind != Dim::Kind::kSymbolic) continue;
    const bool declared_same = declared_tensor.shape && d < declared_tensor.shape->size() &&
                               (*declared_tensor.shape)[d] == dim;
    if (!declared_same) dim = Dim::Unknown();
  }
  if (!optional) return tensor;
  inferred.element = std::make_shared<const TypeInfo>(std::move(tensor));
  return inferred;
}

}  // namespace

Result<TypeInfo> TypeFromProto(const onnx::TypeProto& proto) {
  TypeInfo type;
  switch (proto.value_case()) {
    case onnx::TypeProto::kTensorType: {
      const onnx::TypeProto::Tensor& t = proto.tensor_type();
      type.kind = TypeInfo::Kind::kTensor;
      NXRT_ASSIGN_OR_RETURN(type.elem_type, ElementType(t.elem_type()));
      if (t.has_shape()) type.shape = DimsFromProto(t.shape());
      break;
    }
    case onnx::TypeProto::kSparseTensorType: {
      const onnx::TypeProto::SparseTensor& t = proto.sparse_tensor_type();
      type.kind = TypeInfo::Kind::kSparseTensor;
      NXRT_ASSIGN_OR_RETURN(type.elem_type, ElementType(t.elem_type()));
      if (t.has_shape()) type.shape = DimsFromProto(t.shape());
      break;
    }
    case onnx::TypeProto::kSequenceType: {
      type.kind = TypeInfo::Kind::kSequence;
      const onnx::TypeProto::Sequence& s = proto.sequence_type();
      NXRT_ASSIGN_OR_RETURN(type.element, ElementFromProto(s.has_elem_type(), s.elem_type()));
      break;
    }
    case onnx::TypeProto::kOptionalType: {
      type.kind = TypeInfo::Kind::kOptional;
      const onnx::TypeProto::Optional& o = proto.optional_type();
      NXRT_ASSIGN_OR_RETURN(type.element, ElementFromProto(o.has_elem_type(), o.elem_type()));
      break;
    }
    case onnx::TypeProto::kMapType: {
      type.kind = TypeInfo::Kind::kMap;
      const onnx::TypeProto::Map& m = proto.map_type();
      NXRT_ASSIGN_OR_RETURN(type.map_key, ElementType(m.key_type()));
      NXRT_ASSIGN_OR_RETURN(type.element, ElementFromProto(m.has_value_type(), m.value_type()));
      break;
    }
    default:  // no type, or an opaque type: unknown to nxrt
      break;
  }
  return type;
}

GraphBuilder::GraphBuilder(ExternalDataResolver* external)
    : load_external_([external](const onnx::TensorProto& t, DataType dtype, Shape shape) {
        return external->Load(t, dtype, shape);
      }) {}

Result<std::shared_ptr<Graph>> GraphBuilder::Build(onnx::GraphProto& proto) {
  scopes_.clear();
  return BuildGraph(proto, nullptr);
}

Result<std::shared_ptr<Graph>> GraphBuilder::BuildGraph(onnx::GraphProto& proto,
                                                        const Graph* parent) {
  auto graph = std::make_shared<Graph>();
  graph->name = proto.name();
  graph->doc_string = proto.doc_string();
  graph->parent = parent;
  scopes_.push_back(graph.get());
  Status status = AddInputsAndInitializers(proto, *graph);
  if (status.ok()) status = AddNodes(proto, *graph);
  if (status.ok()) status = AddOutputsAndTypes(proto, *graph);
  if (status.ok()) status = ConnectNodes(proto, *graph);
  scopes_.pop_back();
  NXRT_RETURN_IF_ERROR(status);
  return graph;
}

Status GraphBuilder::AddInputsAndInitializers(onnx::GraphProto& proto, Graph& graph) {
  for (int i = 0; i < proto.input_size(); ++i) {
    const onnx::ValueInfoProto& info = proto.input(i);
    if (info.name().empty()) return Invalid("graph input " + std::to_string(i) + " has no name");
    if (graph.FindValue(info.name()) != kNoValue) {
      return Invalid("graph input '" + info.name() + "' is listed twice");
    }
    Value value;
    value.name = info.name();
    value.doc_string = info.doc_string();
    Result<TypeInfo> type = TypeFromProto(info.type());
    if (!type.ok()) return type.status().WithContext("graph input '" + info.name() + "'");
    value.type = std::move(type).value();
    graph.inputs.push_back(graph.AddValue(std::move(value)));
  }

  auto add_initializer = [&](const std::string& name, Result<Tensor> tensor, bool external,
                             bool sparse, std::string location = {},
                             int64_t offset = 0) -> Status {
    // The tensor's own errors name it already.
    if (!tensor.ok()) return tensor.status();
    const std::string what = sparse ? "sparse initializer" : "initializer";
    ValueId id = graph.FindValue(name);
    if (id == kNoValue) {
      Value value;
      value.name = name;
      id = graph.AddValue(std::move(value));
    } else if (graph.FindInitializer(id) != nullptr) {
      return Invalid(what + " '" + name + "' has the name of another initializer");
    }
    if (!graph.values[id].type.known()) graph.values[id].type = TensorTypeOf(*tensor);
    graph.AddInitializer(
        {id, std::move(tensor).value(), external, sparse, std::move(location), offset});
    return Status::Ok();
  };
  for (int i = 0; i < proto.initializer_size(); ++i) {
    onnx::TensorProto& t = *proto.mutable_initializer(i);
    if (t.name().empty()) return Invalid("initializer " + std::to_string(i) + " has no name");
    const bool external = t.data_location() == onnx::TensorProto::EXTERNAL;
    // Read before ConsumeTensor; the resolver has checked both when the tensor loads.
    std::string location;
    int64_t offset = 0;
    for (const onnx::StringStringEntryProto& entry : t.external_data()) {
      if (entry.key() == "location") location = entry.value();
      if (entry.key() == "offset") {
        std::from_chars(entry.value().data(), entry.value().data() + entry.value().size(),
                        offset);
      }
    }
    NXRT_RETURN_IF_ERROR(add_initializer(t.name(), ConsumeTensor(t), external, false,
                                         std::move(location), offset));
  }
  for (int i = 0; i < proto.sparse_initializer_size(); ++i) {
    const onnx::SparseTensorProto& t = proto.sparse_initializer(i);
    const std::string& name = t.values().name();
    if (name.empty()) {
      return Invalid("sparse initializer " + std::to_string(i) + " has no name (values.name)");
    }
    NXRT_RETURN_IF_ERROR(
        add_initializer(name, SparseTensorToDense(t, &load_external_), false, true));
  }
  return Status::Ok();
}

Status GraphBuilder::AddNodes(const onnx::GraphProto& proto, Graph& graph) {
  std::unordered_set<std::string> taken;
  for (const onnx::NodeProto& n : proto.node()) {
    if (!n.name().empty()) taken.insert(n.name());
  }
  graph.nodes.resize(proto.node_size());
  NodeId constants = 0;
  for (int i = 0; i < proto.node_size(); ++i) {
    const onnx::NodeProto& n = proto.node(i);
    Node& node = graph.nodes[i];
    node.id = static_cast<NodeId>(i);
    node.op_type = n.op_type();
    node.domain = CanonicalDomain(n.domain());
    node.name = n.name().empty() ? UniqueNodeName(n.op_type(), i, taken) : n.name();
    node.unnamed = n.name().empty();
    const bool constant = node.op_type == "Constant" && node.domain.empty();
    node.model_index = constant ? kNoNode : static_cast<NodeId>(i) - constants;
    constants += constant ? 1 : 0;
    node.doc_string = n.doc_string();
    if (node.op_type.empty()) return Invalid(NodeLabel(node) + " has no op_type");
    for (const std::string& output : n.output()) {
      ValueId id = kNoValue;
      if (!output.empty()) {
        id = graph.FindValue(output);
        if (id == kNoValue) {
          Value value;
          value.name = output;
          id = graph.AddValue(std::move(value));
        }
      }
      node.outputs.push_back(id);
    }
  }
  return Status::Ok();
}

Status GraphBuilder::AddOutputsAndTypes(const onnx::GraphProto& proto, Graph& graph) {
  for (int i = 0; i < proto.output_size(); ++i) {
    const onnx::ValueInfoProto& info = proto.output(i);
    if (info.name().empty()) return Invalid("graph output " + std::to_string(i) + " has no name");
    const ValueId id = Resolve(scopes_.size() - 1, info.name());
    if (id == kNoValue) {
      return Invalid("graph output '" + info.name() +
                     "' is not produced by any node and is not a graph input, initializer or "
                     "value of an enclosing graph");
    }
    Result<TypeInfo> type = TypeFromProto(info.type());
    if (!type.ok()) return type.status().WithContext("graph output '" + info.name() + "'");
    Value& value = graph.values[id];
    if (!value.type.known()) value.type = std::move(type).value();
    if (value.doc_string.empty()) value.doc_string = info.doc_string();
    graph.outputs.push_back(id);
  }

  auto declared = declared_value_info_counts_.find(&proto);
  const int declared_count =
      declared == declared_value_info_counts_.end() ? proto.value_info_size() : declared->second;
  for (int i = 0; i < proto.value_info_size(); ++i) {
    const onnx::ValueInfoProto& info = proto.value_info(i);
    // value_info may describe names this graph does not hold (outer-scope values it never
    // reads, leftovers of an optimizer): nothing to attach the type to.
    const ValueId id = graph.FindValue(info.name());
    if (id == kNoValue) continue;
    Result<TypeInfo> type = TypeFromProto(info.type());
    if (!type.ok()) {
      if (i >= declared_count) continue;  // an inferred type nxrt cannot hold: leave it unknown
      return type.status().WithContext("value_info '" + info.name() + "'");
    }
    Value& value = graph.values[id];
    // An inferred entry for a graph output is its declared type merged with what inference
    // found (onnx_loader.cpp), which ORT shows for a tensor or an optional tensor (its merge
    // covers shapes of those only); other inferred entries only fill unknown types.
    using Kind = TypeInfo::Kind;
    const bool shaped = value.type.kind == Kind::kTensor ||
                        value.type.kind == Kind::kSparseTensor ||
                        (value.type.kind == Kind::kOptional && value.type.element &&
                         value.type.element->kind == Kind::kTensor);
    const bool merged_output =
        i >= declared_count && shaped &&
        std::find(graph.outputs.begin(), graph.outputs.end(), id) != graph.outputs.end();
    if (merged_output) {
      value.type = MergedOutputType(value.type, std::move(type).value());
    } else if (!value.type.known()) {
      value.type = std::move(type).value();
    }
    if (i >= declared_count) continue;
    if (value.doc_string.empty()) value.doc_string = info.doc_string();
    graph.value_infos.push_back(id);
  }
  return Status::Ok();
}

Status GraphBuilder::ConnectNodes(onnx::GraphProto& proto, Graph& graph) {
  // Building a subgraph adds outer-scope values to `graph` (never nodes), so references into
  // graph.nodes stay valid here and references into graph.values do not.
  const size_t level = scopes_.size() - 1;
  for (int i = 0; i < proto.node_size(); ++i) {
    onnx::NodeProto& n = *proto.mutable_node(i);
    Node& node = graph.nodes[i];
    for (int slot = 0; slot < n.input_size(); ++slot) {
      const std::string& input = n.input(slot);
      ValueId id = kNoValue;
      if (!input.empty()) {
        id = Resolve(level, input);
        if (id == kNoValue) {
          return Invalid(NodeLabel(node) + ": input " + std::to_string(slot) + " '" + input +
                         "' is not produced by any node and is not a graph input, initializer "
                         "or value of an enclosing graph");
        }
      }
      node.inputs.push_back(id);
    }
    std::unordered_set<std::string> attribute_names;
    std::vector<Attribute> attributes;
    for (int a = 0; a < n.attribute_size(); ++a) {
      onnx::AttributeProto& attr = *n.mutable_attribute(a);
      if (attr.name().empty()) {
        return Invalid(NodeLabel(node) + ": attribute " + std::to_string(a) + " has no name");
      }
      if (!attribute_names.insert(attr.name()).second) {
        return Invalid(NodeLabel(node) + ": attribute '" + attr.name() + "' is listed twice");
      }
      Result<Attribute> converted = ConvertAttribute(attr, graph);
      if (!converted.ok()) {
        return converted.status().WithContext(NodeLabel(node) + " attribute '" + attr.name() +
                                              "'");
      }
      attributes.push_back(std::move(converted).value());
    }
    node.attributes = std::move(attributes);
  }
  return Status::Ok();
}

Result<Attribute> GraphBuilder::ConvertAttribute(onnx::AttributeProto& proto,
                                                 const Graph& owner) {
  using T = Attribute::Type;
  Attribute attr;
  attr.name = proto.name();
  attr.doc_string = proto.doc_string();
  attr.ref_attr_name = proto.ref_attr_name();
  const google::protobuf::UnknownFieldSet& unknown = proto.unknown_fields();
  for (int i = 0; i < unknown.field_count(); ++i) {
    const google::protobuf::UnknownField& field = unknown.field(i);
    if (field.number() == kAttributeTypeField &&
        field.type() == google::protobuf::UnknownField::TYPE_VARINT) {
      return Invalid("unknown attribute type " + std::to_string(field.varint()) +
                     " (ONNX defines 1-14)");
    }
  }
  attr.type = proto.has_type() && proto.type() != onnx::AttributeProto::UNDEFINED
                  ? static_cast<T>(proto.type())
                  : InferAttributeType(proto);

  switch (attr.type) {
    case T::kUndefined:
      if (!attr.ref_attr_name.empty()) break;  // a function body's reference, typed by the caller
      return Invalid("the attribute has no type and no value");
    case T::kFloat:
      attr.f = proto.f();
      break;
    case T::kInt:
      attr.i = proto.i();
      break;
    case T::kString:
      attr.s = proto.s();
      break;
    case T::kTensor: {
      NXRT_ASSIGN_OR_RETURN(attr.t, ConsumeTensor(*proto.mutable_t()));
      break;
    }
    case T::kGraph: {
      if (!proto.has_g()) return Invalid("the attribute has type graph but holds no graph");
      NXRT_ASSIGN_OR_RETURN(attr.g, BuildGraph(*proto.mutable_g(), &owner));
      break;
    }
    case T::kFloats:
      attr.floats.assign(proto.floats().begin(), proto.floats().end());
      break;
    case T::kInts:
      attr.ints.assign(proto.ints().begin(), proto.ints().end());
      break;
    case T::kStrings:
      attr.strings.assign(proto.strings().begin(), proto.strings().end());
      break;
    case T::kTensors:
      for (int i = 0; i < proto.tensors_size(); ++i) {
        Result<Tensor> tensor = ConsumeTensor(*proto.mutable_tensors(i));
        if (!tensor.ok()) return tensor.status().WithContext("tensor " + std::to_string(i));
        attr.tensors.push_back(std::move(tensor).value());
      }
      break;
    case T::kGraphs:
      for (int i = 0; i < proto.graphs_size(); ++i) {
        Result<std::shared_ptr<Graph>> graph = BuildGraph(*proto.mutable_graphs(i), &owner);
        if (!graph.ok()) return graph.status().WithContext("graph " + std::to_string(i));
        attr.graphs.push_back(std::move(graph).value());
      }
      break;
    case T::kSparseTensor: {
      NXRT_ASSIGN_OR_RETURN(attr.t, SparseTensorToDense(proto.sparse_tensor(), &load_external_));
      break;
    }
    case T::kSparseTensors:
      for (int i = 0; i < proto.sparse_tensors_size(); ++i) {
        Result<Tensor> tensor = SparseTensorToDense(proto.sparse_tensors(i), &load_external_);
        if (!tensor.ok()) {
          return tensor.status().WithContext("sparse tensor " + std::to_string(i));
        }
        attr.tensors.push_back(std::move(tensor).value());
      }
      break;
    case T::kTypeProto: {
      NXRT_ASSIGN_OR_RETURN(attr.tp, TypeFromProto(proto.tp()));
      break;
    }
    case T::kTypeProtos:
      for (const onnx::TypeProto& tp : proto.type_protos()) {
        NXRT_ASSIGN_OR_RETURN(TypeInfo type, TypeFromProto(tp));
        attr.tps.push_back(std::move(type));
      }
      break;
    default:
      return Invalid("unknown attribute type " + std::to_string(static_cast<int>(attr.type)) +
                     " (ONNX defines 1-14)");
  }
  return attr;
}

Result<Tensor> GraphBuilder::ConsumeTensor(onnx::TensorProto& proto) {
  return TakeTensorFromProto(proto, &load_external_);
}

ValueId GraphBuilder::Resolve(size_t level, const std::string& name) {
  Graph& graph = *scopes_[level];
  const ValueId local = graph.FindValue(name);
  if (local != kNoValue || level == 0) return local;
  const ValueId outer = Resolve(level - 1, name);
  if (outer == kNoValue) return kNoValue;
  Value value;
  value.name = name;
  value.type = scopes_[level - 1]->values[outer].type;
  value.outer_scope = true;
  return graph.AddValue(std::move(value));
}

}  // namespace nxrt::ir
