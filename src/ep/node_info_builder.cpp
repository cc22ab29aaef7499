// ep/node_info_builder.cpp: IR → NodeInfo (see ep/node_info_builder.h).
//
// Layer: nxrt_ep.
#include "ep/node_info_builder.h"

#include <algorithm>

namespace nxrt::ep {
namespace {

ValueKind KindOf(ir::TypeInfo::Kind kind) {
  switch (kind) {
    case ir::TypeInfo::Kind::kTensor:
      return ValueKind::kTensor;
    case ir::TypeInfo::Kind::kSparseTensor:
      return ValueKind::kSparseTensor;
    case ir::TypeInfo::Kind::kSequence:
      return ValueKind::kSequence;
    case ir::TypeInfo::Kind::kOptional:
      return ValueKind::kOptional;
    case ir::TypeInfo::Kind::kMap:
      return ValueKind::kMap;
    case ir::TypeInfo::Kind::kUnknown:
      break;
  }
  return ValueKind::kUnknown;
}

DimInfo ToDimInfo(const ir::Dim& dim) {
  switch (dim.kind) {
    case ir::Dim::Kind::kFixed:
      return DimInfo::Fixed(dim.value);
    case ir::Dim::Kind::kSymbolic:
      return DimInfo::Symbolic(dim.symbol);
    case ir::Dim::Kind::kUnknown:
      break;
  }
  return DimInfo::Unknown();
}

// True when `graph` lists `value` among its inputs (an initializer there is a default that a
// caller may override, so it is not constant).
bool IsGraphInput(const ir::Graph& graph, ir::ValueId value) {
  return std::find(graph.inputs.begin(), graph.inputs.end(), value) != graph.inputs.end();
}

AttributeValue ToAttributeValue(const ir::Attribute& attr) {
  AttributeValue out;
  out.name = attr.name;
  out.type = static_cast<AttributeType>(static_cast<int32_t>(attr.type));
  out.f = attr.f;
  out.i = attr.i;
  out.s = attr.s;
  out.tensor = attr.t;
  out.floats = attr.floats;
  out.ints = attr.ints;
  out.strings = attr.strings;
  out.tensors = attr.tensors;
  if (attr.type == ir::Attribute::Type::kGraph) out.graph_count = attr.g ? 1 : 0;
  if (attr.type == ir::Attribute::Type::kGraphs) {
    out.graph_count = static_cast<int>(attr.graphs.size());
  }
  return out;
}

}  // namespace

NodeInfoBuilder::NodeInfoBuilder(const ir::GraphView& view)
    : view_(&view), is_graph_input_(view.graph().values.size(), false) {
  for (ir::ValueId v : view.graph().inputs) {
    if (v >= 0 && static_cast<size_t>(v) < is_graph_input_.size()) is_graph_input_[v] = true;
  }
}

const Tensor* NodeInfoBuilder::ConstantOf(ir::ValueId value) const {
  const ir::Graph& graph = view_->graph();
  const ir::Value& v = graph.values[value];
  if (!v.outer_scope) {
    if (is_graph_input_[value]) return nullptr;
    const ir::Initializer* init = graph.FindInitializer(value);
    return init ? &init->tensor : nullptr;
  }
  // Outer-scope value: the nearest enclosing graph that defines it (not as outer scope itself).
  for (const ir::Graph* g = graph.parent; g != nullptr; g = g->parent) {
    ir::ValueId id = g->FindValue(v.name);
    if (id == ir::kNoValue || g->values[id].outer_scope) continue;
    if (IsGraphInput(*g, id)) return nullptr;
    const ir::Initializer* init = g->FindInitializer(id);
    return init ? &init->tensor : nullptr;
  }
  return nullptr;
}

ValueInfo NodeInfoBuilder::Value(ir::ValueId value) const {
  ValueInfo info;
  if (value == ir::kNoValue) return info;
  const ir::Value& v = view_->graph().values[value];
  info.name = v.name;
  info.kind = KindOf(v.type.kind);
  const ir::TypeInfo* type = &v.type;
  if (info.kind == ValueKind::kSequence || info.kind == ValueKind::kOptional ||
      info.kind == ValueKind::kMap) {
    type = v.type.element.get();
  }
  if (info.kind == ValueKind::kMap) info.map_key = v.type.map_key;
  if (info.kind == ValueKind::kSequence && type != nullptr &&
      type->kind == ir::TypeInfo::Kind::kMap) {
    // seq(map(K, V)): the maps' key type and value type.
    info.map_key = type->map_key;
    type = type->element.get();
  }
  if (type != nullptr) {
    info.dtype = type->elem_type;
    // Tensors, and the element tensors of sequences and optionals, carry their shape.
    const bool tensor_like = type->kind == ir::TypeInfo::Kind::kTensor ||
                             type->kind == ir::TypeInfo::Kind::kSparseTensor;
    if (tensor_like && info.kind != ValueKind::kMap && info.map_key == DataType::kUndefined) {
      if (type->shape) {
        std::vector<DimInfo> dims;
        dims.reserve(type->shape->size());
        for (const ir::Dim& d : *type->shape) dims.push_back(ToDimInfo(d));
        info.shape = std::move(dims);
      }
    }
  }
  if (const Tensor* constant = ConstantOf(value)) {
    info.is_constant = true;
    info.constant = *constant;
    // An initializer's own dtype and shape are exact even when the model declares none.
    if (info.kind == ValueKind::kUnknown) info.kind = ValueKind::kTensor;
    info.dtype = constant->dtype();
    std::vector<DimInfo> dims;
    for (int64_t d : constant->shape()) dims.push_back(DimInfo::Fixed(d));
    info.shape = std::move(dims);
  }
  return info;
}

NodeInfo NodeInfoBuilder::Node(ir::NodeId node) const {
  const ir::Node& n = view_->graph().nodes[node];
  NodeInfo::Data data;
  data.id = node;
  data.name = n.name;
  data.op_type = n.op_type;
  data.domain = n.domain;
  data.opset = view_->opset(node);
  data.since_version = view_->since_version(node);
  data.inputs.reserve(n.inputs.size());
  for (ir::ValueId v : n.inputs) data.inputs.push_back(Value(v));
  data.outputs.reserve(n.outputs.size());
  for (ir::ValueId v : n.outputs) data.outputs.push_back(Value(v));
  data.attributes.reserve(n.attributes.size());
  for (const ir::Attribute& attr : n.attributes) data.attributes.push_back(ToAttributeValue(attr));
  return NodeInfo(std::move(data));
}

FusedNodeInfo NodeInfoBuilder::Fused(std::string name, std::span<const ir::NodeId> nodes,
                                     std::span<const ir::ValueId> inputs,
                                     std::span<const ir::ValueId> outputs) const {
  FusedNodeInfo fused;
  fused.name = std::move(name);
  for (ir::NodeId n : nodes) fused.nodes.push_back(Node(n));
  for (ir::ValueId v : inputs) fused.inputs.push_back(Value(v));
  for (ir::ValueId v : outputs) fused.outputs.push_back(Value(v));
  return fused;
}

NodeInfo WithInputConstants(const NodeInfo& info,
                            std::span<const std::pair<size_t, Tensor>> constants) {
  NodeInfo::Data data{info.id(),     info.name(),    info.op_type(),
                      info.domain(), info.opset(),   info.since_version(),
                      info.inputs(), info.outputs(), info.attributes()};
  for (const auto& [slot, tensor] : constants) {
    if (slot >= data.inputs.size()) continue;
    ValueInfo& in = data.inputs[slot];
    in.kind = ValueKind::kTensor;
    in.dtype = tensor.dtype();
    std::vector<DimInfo> dims;
    for (int64_t d : tensor.shape()) dims.push_back(DimInfo::Fixed(d));
    in.shape = std::move(dims);
    in.is_constant = true;
    in.constant = tensor;
  }
  return NodeInfo(std::move(data));
}

}  // namespace nxrt::ep
