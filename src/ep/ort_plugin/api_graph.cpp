// ep/ort_plugin/api_graph.cpp: the graph functions of the host API: OrtValueInfo, OrtGraph,
// OrtNode, OrtOpAttr and OrtExternalInitializerInfo readers over the objects of
// graph_projection.h.
//
// Layer: nxrt_ort_plugin (internal). Every object handed out here is owned by the host (a
// GraphProjection or a claim's storage) except three kinds the plugin releases: graphs from
// Graph_GetGraphView (ReleaseGraph), external initializer infos (ReleaseExternalInitializerInfo)
// and tensor attributes as OrtValues (ReleaseValue). ReleaseGraph frees only graphs this file
// handed out, recognised by pointer lookup (never by reading the object); host graphs, value
// infos and nodes are never freed by a Release call.
// Array outputs follow ORT: the caller passes an array and its capacity; a capacity smaller than
// the count is ORT_INVALID_ARGUMENT, and the array may be null only when the capacity is 0.
// Source: onnxruntime_c_api.h (the OrtValueInfo, OrtGraph, OrtNode and OrtExternalInitializerInfo
// groups, GetValueInfoName, GetValueInfoTypeInfo, ReadOpAttr, Release{ValueInfo,Node,Graph,
// Model}, Graph_GetModelMetadata, ModelMetadata*, ReleaseModelMetadata).
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_table.h"
#include "ep/ort_plugin/graph_projection.h"
#include "ir/op_schema.h"

namespace nxrt::ort_plugin {
namespace {

using AttrType = ir::Attribute::Type;

// Graphs made by Graph_GetGraphView that the plugin has not released yet.
struct PluginGraphs {
  std::mutex mutex;
  std::unordered_map<const OrtGraph*, std::unique_ptr<OrtGraph>> graphs;
};
PluginGraphs& OwnedGraphs() {
  static PluginGraphs graphs;
  return graphs;
}

// Copies `items` to `out` (capacity `capacity`). Errors: a capacity below the count; a null
// array with a non-zero capacity.
template <typename T>
OrtStatus* CopyOut(const char* function, const char* what, const std::vector<T>& items, T* out,
                   size_t capacity) {
  if (capacity < items.size()) {
    return InvalidArgument(function, std::string("'") + what + "' holds " +
                                         std::to_string(capacity) + " entries, " +
                                         std::to_string(items.size()) + " are needed");
  }
  if (out == nullptr && capacity != 0) {
    return InvalidArgument(function, std::string("argument '") + what + "' is null");
  }
  for (size_t i = 0; i < items.size(); ++i) out[i] = items[i];
  return nullptr;
}

// ---- OrtValueInfo ----

OrtStatus* ORT_API_CALL GetValueInfoNameImpl(const OrtValueInfo* value_info,
                                             const char** name) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::GetValueInfoName",
                               {{"value_info", value_info}, {"name", name}})) {
    return s;
  }
  *name = value_info->name.c_str();
  return nullptr;
}

// The type info is lent: it lives as long as the value info's graph.
OrtStatus* ORT_API_CALL GetValueInfoTypeInfoImpl(const OrtValueInfo* value_info,
                                                 const OrtTypeInfo** type_info) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::GetValueInfoTypeInfo",
                               {{"value_info", value_info}, {"type_info", type_info}})) {
    return s;
  }
  *type_info = &value_info->type_info;
  return nullptr;
}

// The producing node (null for graph inputs, initializers, outer-scope values and values whose
// producer is outside this graph) and, when asked, its output index.
OrtStatus* ORT_API_CALL ValueInfoGetValueProducerImpl(const OrtValueInfo* value_info,
                                                      const OrtNode** producer_node,
                                                      size_t* producer_output_index) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::ValueInfo_GetValueProducer",
                               {{"value_info", value_info}, {"producer_node", producer_node}})) {
    return s;
  }
  *producer_node = value_info->producer;
  if (producer_output_index != nullptr) *producer_output_index = value_info->producer_output;
  return nullptr;
}

OrtStatus* ORT_API_CALL ValueInfoGetValueNumConsumersImpl(const OrtValueInfo* value_info,
                                                          size_t* num_consumers) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::ValueInfo_GetValueNumConsumers",
                               {{"value_info", value_info}, {"num_consumers", num_consumers}})) {
    return s;
  }
  *num_consumers = value_info->consumer_nodes.size();
  return nullptr;
}

// Consumers of this graph, (node id, input index) ascending; -1 for an implicit use by a node
// whose subgraph reads the value.
OrtStatus* ORT_API_CALL ValueInfoGetValueConsumersImpl(const OrtValueInfo* value_info,
                                                       const OrtNode** nodes,
                                                       int64_t* input_indices,
                                                       size_t num_consumers) noexcept {
  constexpr const char* kFn = "OrtApi::ValueInfo_GetValueConsumers";
  if (OrtStatus* s = CheckArgs(kFn, {{"value_info", value_info}})) return s;
  if (OrtStatus* s = CopyOut(kFn, "nodes", value_info->consumer_nodes, nodes, num_consumers)) {
    return s;
  }
  return CopyOut(kFn, "input_indices", value_info->consumer_inputs, input_indices,
                 num_consumers);
}

// The initializer's tensor (a view of the model's bytes), the enclosing graph's for outer-scope
// values; null without error for values that are no initializer.
OrtStatus* ORT_API_CALL ValueInfoGetInitializerValueImpl(const OrtValueInfo* value_info,
                                                         const OrtValue** initializer_value) noexcept {
  if (OrtStatus* s =
          CheckArgs("OrtApi::ValueInfo_GetInitializerValue",
                    {{"value_info", value_info}, {"initializer_value", initializer_value}})) {
    return s;
  }
  *initializer_value = value_info->initializer;
  return nullptr;
}

// A new info the plugin releases with ReleaseExternalInitializerInfo; null without error when
// the value's data is not external.
OrtStatus* ORT_API_CALL ValueInfoGetExternalInitializerInfoImpl(
    const OrtValueInfo* value_info, OrtExternalInitializerInfo** info) noexcept {
  constexpr const char* kFn = "OrtApi::ValueInfo_GetExternalInitializerInfo";
  if (OrtStatus* s = CheckArgs(kFn, {{"value_info", value_info}, {"info", info}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *info = value_info->external ? new OrtExternalInitializerInfo(*value_info->external) : nullptr;
    return nullptr;
  });
}

// The ValueInfo_Is* flags. A graph input is required unless an initializer backs it; from IR
// version 4 such an input is optional and its initializer is not constant.
template <bool OrtValueInfo::*kFlag>
OrtStatus* ORT_API_CALL FlagImpl(const char* function, const OrtValueInfo* value_info,
                                 bool* out) noexcept {
  if (OrtStatus* s = CheckArgs(function, {{"value_info", value_info}, {"out", out}})) return s;
  *out = value_info->*kFlag;
  return nullptr;
}

OrtStatus* ORT_API_CALL ValueInfoIsRequiredGraphInputImpl(const OrtValueInfo* value_info,
                                                          bool* is_required) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::ValueInfo_IsRequiredGraphInput",
                               {{"value_info", value_info}, {"is_required_graph_input", is_required}})) {
    return s;
  }
  *is_required = value_info->is_graph_input && value_info->initializer == nullptr;
  return nullptr;
}

OrtStatus* ORT_API_CALL ValueInfoIsOptionalGraphInputImpl(const OrtValueInfo* value_info,
                                                          bool* out) noexcept {
  return FlagImpl<&OrtValueInfo::is_optional_graph_input>("OrtApi::ValueInfo_IsOptionalGraphInput",
                                                          value_info, out);
}
OrtStatus* ORT_API_CALL ValueInfoIsGraphOutputImpl(const OrtValueInfo* value_info,
                                                   bool* out) noexcept {
  return FlagImpl<&OrtValueInfo::is_graph_output>("OrtApi::ValueInfo_IsGraphOutput", value_info,
                                                  out);
}
OrtStatus* ORT_API_CALL ValueInfoIsConstantInitializerImpl(const OrtValueInfo* value_info,
                                                           bool* out) noexcept {
  return FlagImpl<&OrtValueInfo::is_constant_initializer>(
      "OrtApi::ValueInfo_IsConstantInitializer", value_info, out);
}
OrtStatus* ORT_API_CALL ValueInfoIsFromOuterScopeImpl(const OrtValueInfo* value_info,
                                                      bool* out) noexcept {
  return FlagImpl<&OrtValueInfo::is_outer_scope>("OrtApi::ValueInfo_IsFromOuterScope",
                                                 value_info, out);
}

// ---- OrtGraph ----

OrtStatus* ORT_API_CALL GraphGetNameImpl(const OrtGraph* graph, const char** graph_name) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::Graph_GetName", {{"graph", graph}, {"graph_name", graph_name}})) {
    return s;
  }
  *graph_name = graph->name.c_str();
  return nullptr;
}

// "" when the model was loaded from bytes.
OrtStatus* ORT_API_CALL GraphGetModelPathImpl(const OrtGraph* graph,
                                              const ORTCHAR_T** model_path) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::Graph_GetModelPath",
                               {{"graph", graph}, {"model_path", model_path}})) {
    return s;
  }
  *model_path = graph->model->path.c_str();
  return nullptr;
}

OrtStatus* ORT_API_CALL GraphGetOnnxIRVersionImpl(const OrtGraph* graph,
                                                  int64_t* onnx_ir_version) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::Graph_GetOnnxIRVersion",
                               {{"graph", graph}, {"onnx_ir_version", onnx_ir_version}})) {
    return s;
  }
  *onnx_ir_version = graph->model->ir_version;
  return nullptr;
}

OrtStatus* ORT_API_CALL GraphGetNumOperatorSetsImpl(const OrtGraph* graph,
                                                    size_t* num_operator_sets) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::Graph_GetNumOperatorSets",
                               {{"graph", graph}, {"num_operator_sets", num_operator_sets}})) {
    return s;
  }
  *num_operator_sets = graph->opset_domains.size();
  return nullptr;
}

// The model's opset imports in model order; the ONNX domain is "".
OrtStatus* ORT_API_CALL GraphGetOperatorSetsImpl(const OrtGraph* graph, const char** domains,
                                                 int64_t* opset_versions,
                                                 size_t num_operator_sets) noexcept {
  constexpr const char* kFn = "OrtApi::Graph_GetOperatorSets";
  if (OrtStatus* s = CheckArgs(kFn, {{"graph", graph}})) return s;
  if (OrtStatus* s = CopyOut(kFn, "domains", graph->opset_domains, domains, num_operator_sets)) {
    return s;
  }
  return CopyOut(kFn, "opset_versions", graph->opset_versions, opset_versions, num_operator_sets);
}

// Count and fill for the list members of OrtGraph and OrtNode.
template <typename Object, typename T, std::vector<T> Object::*kList>
OrtStatus* CountImpl(const char* function, const char* object_name, const Object* object,
                     size_t* out) noexcept {
  if (OrtStatus* s = CheckArgs(function, {{object_name, object}, {"out", out}})) return s;
  *out = (object->*kList).size();
  return nullptr;
}
template <typename Object, typename T, std::vector<T> Object::*kList>
OrtStatus* FillImpl(const char* function, const char* object_name, const char* array_name,
                    const Object* object, T* out, size_t capacity) noexcept {
  if (OrtStatus* s = CheckArgs(function, {{object_name, object}})) return s;
  return CopyOut(function, array_name, object->*kList, out, capacity);
}

OrtStatus* ORT_API_CALL GraphGetNumInputsImpl(const OrtGraph* graph, size_t* n) noexcept {
  return CountImpl<OrtGraph, const OrtValueInfo*, &OrtGraph::inputs>("OrtApi::Graph_GetNumInputs",
                                                                     "graph", graph, n);
}
// Includes initializers listed as graph inputs.
OrtStatus* ORT_API_CALL GraphGetInputsImpl(const OrtGraph* graph, const OrtValueInfo** inputs,
                                           size_t n) noexcept {
  return FillImpl<OrtGraph, const OrtValueInfo*, &OrtGraph::inputs>(
      "OrtApi::Graph_GetInputs", "graph", "inputs", graph, inputs, n);
}
OrtStatus* ORT_API_CALL GraphGetNumOutputsImpl(const OrtGraph* graph, size_t* n) noexcept {
  return CountImpl<OrtGraph, const OrtValueInfo*, &OrtGraph::outputs>(
      "OrtApi::Graph_GetNumOutputs", "graph", graph, n);
}
OrtStatus* ORT_API_CALL GraphGetOutputsImpl(const OrtGraph* graph, const OrtValueInfo** outputs,
                                            size_t n) noexcept {
  return FillImpl<OrtGraph, const OrtValueInfo*, &OrtGraph::outputs>(
      "OrtApi::Graph_GetOutputs", "graph", "outputs", graph, outputs, n);
}
OrtStatus* ORT_API_CALL GraphGetNumInitializersImpl(const OrtGraph* graph, size_t* n) noexcept {
  return CountImpl<OrtGraph, const OrtValueInfo*, &OrtGraph::initializers>(
      "OrtApi::Graph_GetNumInitializers", "graph", graph, n);
}
// Constant and non-constant initializers, in the model's initializer order.
OrtStatus* ORT_API_CALL GraphGetInitializersImpl(const OrtGraph* graph,
                                                 const OrtValueInfo** initializers,
                                                 size_t n) noexcept {
  return FillImpl<OrtGraph, const OrtValueInfo*, &OrtGraph::initializers>(
      "OrtApi::Graph_GetInitializers", "graph", "initializers", graph, initializers, n);
}
OrtStatus* ORT_API_CALL GraphGetNumNodesImpl(const OrtGraph* graph, size_t* n) noexcept {
  return CountImpl<OrtGraph, const OrtNode*, &OrtGraph::nodes>("OrtApi::Graph_GetNumNodes",
                                                               "graph", graph, n);
}
// Topological order (ties by node id).
OrtStatus* ORT_API_CALL GraphGetNodesImpl(const OrtGraph* graph, const OrtNode** nodes,
                                          size_t n) noexcept {
  return FillImpl<OrtGraph, const OrtNode*, &OrtGraph::nodes>("OrtApi::Graph_GetNodes", "graph",
                                                              "nodes", graph, nodes, n);
}

OrtStatus* ORT_API_CALL GraphGetParentNodeImpl(const OrtGraph* graph,
                                               const OrtNode** node) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::Graph_GetParentNode", {{"graph", graph}, {"node", node}})) {
    return s;
  }
  *node = graph->parent_node;
  return nullptr;
}

// A new graph over `nodes` (see GraphProjection::Subset), released with ReleaseGraph before
// `src_graph` goes away.
OrtStatus* ORT_API_CALL GraphGetGraphViewImpl(const OrtGraph* src_graph, const OrtNode** nodes,
                                              size_t num_nodes, OrtGraph** dst_graph) noexcept {
  constexpr const char* kFn = "OrtApi::Graph_GetGraphView";
  if (OrtStatus* s = CheckArgs(kFn, {{"src_graph", src_graph}, {"dst_graph", dst_graph}})) {
    return s;
  }
  if (nodes == nullptr && num_nodes != 0) return InvalidArgument(kFn, "argument 'nodes' is null");
  return Guarded(kFn, [&]() -> OrtStatus* {
    Result<std::unique_ptr<OrtGraph>> subset = GraphProjection::Subset(*src_graph, nodes, num_nodes);
    if (!subset.ok()) return InvalidArgument(kFn, subset.status().message());
    OrtGraph* raw = subset->get();
    PluginGraphs& owned = OwnedGraphs();
    std::lock_guard<std::mutex> lock(owned.mutex);
    owned.graphs.emplace(raw, std::move(subset).value());
    *dst_graph = raw;
    return nullptr;
  });
}

// Frees graphs from Graph_GetGraphView; any other pointer (host graphs, NULL) is left alone.
void ORT_API_CALL ReleaseGraphImpl(OrtGraph* graph) {
  if (graph == nullptr) return;
  std::unique_ptr<OrtGraph> doomed;
  PluginGraphs& owned = OwnedGraphs();
  std::lock_guard<std::mutex> lock(owned.mutex);
  auto it = owned.graphs.find(graph);
  if (it == owned.graphs.end()) return;
  doomed = std::move(it->second);
  owned.graphs.erase(it);
}

// Value infos, nodes and models are never created for a plugin (no model editor API): nothing
// to free.
void ORT_API_CALL ReleaseValueInfoImpl(OrtValueInfo*) {}
void ORT_API_CALL ReleaseNodeImpl(OrtNode*) {}
void ORT_API_CALL ReleaseModelImpl(OrtModel*) {}

// ---- OrtNode ----

OrtStatus* ORT_API_CALL NodeGetIdImpl(const OrtNode* node, size_t* node_id) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::Node_GetId", {{"node", node}, {"node_id", node_id}})) {
    return s;
  }
  *node_id = node->ort_index;
  return nullptr;
}

template <std::string OrtNode::*kField>
OrtStatus* NodeStringImpl(const char* function, const OrtNode* node, const char** out) noexcept {
  if (OrtStatus* s = CheckArgs(function, {{"node", node}, {"out", out}})) return s;
  *out = (node->*kField).c_str();
  return nullptr;
}
OrtStatus* ORT_API_CALL NodeGetNameImpl(const OrtNode* node, const char** out) noexcept {
  return NodeStringImpl<&OrtNode::name>("OrtApi::Node_GetName", node, out);
}
OrtStatus* ORT_API_CALL NodeGetOperatorTypeImpl(const OrtNode* node, const char** out) noexcept {
  return NodeStringImpl<&OrtNode::op_type>("OrtApi::Node_GetOperatorType", node, out);
}
// "" for the ONNX domain.
OrtStatus* ORT_API_CALL NodeGetDomainImpl(const OrtNode* node, const char** out) noexcept {
  return NodeStringImpl<&OrtNode::domain>("OrtApi::Node_GetDomain", node, out);
}

// The schema's since_version at the model's opset (Add at opset 17: 14); -1 without a schema.
OrtStatus* ORT_API_CALL NodeGetSinceVersionImpl(const OrtNode* node, int* since_version) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::Node_GetSinceVersion",
                               {{"node", node}, {"since_version", since_version}})) {
    return s;
  }
  *since_version = node->since_version;
  return nullptr;
}

OrtStatus* ORT_API_CALL NodeGetNumInputsImpl(const OrtNode* node, size_t* n) noexcept {
  return CountImpl<OrtNode, const OrtValueInfo*, &OrtNode::inputs>("OrtApi::Node_GetNumInputs",
                                                                   "node", node, n);
}
// Null entries for omitted optional inputs.
OrtStatus* ORT_API_CALL NodeGetInputsImpl(const OrtNode* node, const OrtValueInfo** inputs,
                                          size_t n) noexcept {
  return FillImpl<OrtNode, const OrtValueInfo*, &OrtNode::inputs>("OrtApi::Node_GetInputs", "node",
                                                                  "inputs", node, inputs, n);
}
OrtStatus* ORT_API_CALL NodeGetNumOutputsImpl(const OrtNode* node, size_t* n) noexcept {
  return CountImpl<OrtNode, const OrtValueInfo*, &OrtNode::outputs>("OrtApi::Node_GetNumOutputs",
                                                                    "node", node, n);
}
// Null entries for omitted optional outputs.
OrtStatus* ORT_API_CALL NodeGetOutputsImpl(const OrtNode* node, const OrtValueInfo** outputs,
                                           size_t n) noexcept {
  return FillImpl<OrtNode, const OrtValueInfo*, &OrtNode::outputs>(
      "OrtApi::Node_GetOutputs", "node", "outputs", node, outputs, n);
}
OrtStatus* ORT_API_CALL NodeGetNumImplicitInputsImpl(const OrtNode* node, size_t* n) noexcept {
  return CountImpl<OrtNode, const OrtValueInfo*, &OrtNode::implicit_inputs>(
      "OrtApi::Node_GetNumImplicitInputs", "node", node, n);
}
// Values of this node's graph that its subgraphs read, ascending by value id.
OrtStatus* ORT_API_CALL NodeGetImplicitInputsImpl(const OrtNode* node,
                                                  const OrtValueInfo** implicit_inputs,
                                                  size_t n) noexcept {
  return FillImpl<OrtNode, const OrtValueInfo*, &OrtNode::implicit_inputs>(
      "OrtApi::Node_GetImplicitInputs", "node", "implicit_inputs", node, implicit_inputs, n);
}
OrtStatus* ORT_API_CALL NodeGetNumAttributesImpl(const OrtNode* node, size_t* n) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::Node_GetNumAttributes", {{"node", node}, {"num_attributes", n}})) {
    return s;
  }
  *n = node->attributes.size();
  return nullptr;
}
// The node's attributes and the schema defaults it omits, sorted by name.
OrtStatus* ORT_API_CALL NodeGetAttributesImpl(const OrtNode* node, const OrtOpAttr** attributes,
                                              size_t n) noexcept {
  constexpr const char* kFn = "OrtApi::Node_GetAttributes";
  if (OrtStatus* s = CheckArgs(kFn, {{"node", node}})) return s;
  return Guarded(kFn, [&] {
    std::vector<const OrtOpAttr*> all;
    for (const OrtOpAttr& attr : node->attributes) all.push_back(&attr);
    return CopyOut(kFn, "attributes", all, attributes, n);
  });
}

// The attribute (set or defaulted); NULL and ok for an optional attribute the schema declares
// without a default (or when nxrt does not know the schema's attribute list); NULL and
// ORT_NOT_FOUND for a name the schema does not declare.
OrtStatus* ORT_API_CALL NodeGetAttributeByNameImpl(const OrtNode* node, const char* attribute_name,
                                                   const OrtOpAttr** attribute) noexcept {
  constexpr const char* kFn = "OrtApi::Node_GetAttributeByName";
  if (OrtStatus* s = CheckArgs(kFn, {{"node", node},
                                     {"attribute_name", attribute_name},
                                     {"attribute", attribute}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    *attribute = nullptr;
    for (const OrtOpAttr& attr : node->attributes) {
      if (attr.attr.name == attribute_name) {
        *attribute = &attr;
        return nullptr;
      }
    }
    const int64_t opset = node->graph != nullptr && node->graph->view != nullptr
                              ? node->graph->view->opset(node->id)
                              : -1;
    if (opset < 0) return nullptr;
    if (ir::SchemaDeclaresAttribute(node->domain, node->op_type, opset, attribute_name) ==
        std::optional<bool>(false)) {
      return MakeOrtStatus(ORT_NOT_FOUND, std::string(kFn) + ": node '" + node->name + "' (" +
                                              node->op_type + ") has no attribute '" +
                                              attribute_name + "' in its schema");
    }
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL NodeGetNumSubgraphsImpl(const OrtNode* node, size_t* n) noexcept {
  return CountImpl<OrtNode, const OrtGraph*, &OrtNode::subgraphs>("OrtApi::Node_GetNumSubgraphs",
                                                                  "node", node, n);
}
// Subgraphs in attribute-name order; `attribute_names` (optional) gets each one's attribute.
OrtStatus* ORT_API_CALL NodeGetSubgraphsImpl(const OrtNode* node, const OrtGraph** subgraphs,
                                             size_t n, const char** attribute_names) noexcept {
  constexpr const char* kFn = "OrtApi::Node_GetSubgraphs";
  if (OrtStatus* s = CheckArgs(kFn, {{"node", node}})) return s;
  if (OrtStatus* s = CopyOut(kFn, "subgraphs", node->subgraphs, subgraphs, n)) return s;
  if (attribute_names == nullptr) return nullptr;
  return CopyOut(kFn, "attribute_names", node->subgraph_attribute_names, attribute_names, n);
}

// Null for fused nodes, which no graph lists.
OrtStatus* ORT_API_CALL NodeGetGraphImpl(const OrtNode* node, const OrtGraph** graph) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::Node_GetGraph", {{"node", node}, {"graph", graph}})) {
    return s;
  }
  *graph = node->graph;
  return nullptr;
}

// "" until the node is assigned to an EP, as in ORT.
OrtStatus* ORT_API_CALL NodeGetEpNameImpl(const OrtNode* node, const char** out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::Node_GetEpName", {{"node", node}, {"out", out}})) return s;
  *out = node->ep_name ? node->ep_name->c_str() : "";
  return nullptr;
}

// ---- OrtOpAttr ----

OrtStatus* ORT_API_CALL OpAttrGetTypeImpl(const OrtOpAttr* attribute, OrtOpAttrType* type) noexcept {
  constexpr const char* kFn = "OrtApi::OpAttr_GetType";
  if (OrtStatus* s = CheckArgs(kFn, {{"attribute", attribute}, {"type", type}})) return s;
  switch (attribute->attr.type) {
    case AttrType::kUndefined: *type = ORT_OP_ATTR_UNDEFINED; break;
    case AttrType::kInt: *type = ORT_OP_ATTR_INT; break;
    case AttrType::kInts: *type = ORT_OP_ATTR_INTS; break;
    case AttrType::kFloat: *type = ORT_OP_ATTR_FLOAT; break;
    case AttrType::kFloats: *type = ORT_OP_ATTR_FLOATS; break;
    case AttrType::kString: *type = ORT_OP_ATTR_STRING; break;
    case AttrType::kStrings: *type = ORT_OP_ATTR_STRINGS; break;
    case AttrType::kGraph: *type = ORT_OP_ATTR_GRAPH; break;
    case AttrType::kTensor: *type = ORT_OP_ATTR_TENSOR; break;
    default:
      // ORT 1.30's status, code and text, as the recording EP sees it on a TYPE_PROTO
      // attribute (test_if_opt); the other types OrtOpAttrType lacks get the same.
      return MakeOrtStatus(ORT_INVALID_ARGUMENT, "Unexpected attribute type.");
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL OpAttrGetNameImpl(const OrtOpAttr* attribute, const char** name) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::OpAttr_GetName", {{"attribute", attribute}, {"name", name}})) {
    return s;
  }
  *name = attribute->attr.name.c_str();
  return nullptr;
}

// A new OrtValue viewing the attribute's tensor (its owner keeps the bytes alive); the plugin
// releases it with ReleaseValue. Errors: an attribute that is not a TENSOR.
OrtStatus* ORT_API_CALL OpAttrGetTensorAttributeAsOrtValueImpl(const OrtOpAttr* attribute,
                                                               OrtValue** attr_tensor) noexcept {
  constexpr const char* kFn = "OrtApi::OpAttr_GetTensorAttributeAsOrtValue";
  if (OrtStatus* s = CheckArgs(kFn, {{"attribute", attribute}, {"attr_tensor", attr_tensor}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    const ir::Attribute& attr = attribute->attr;
    if (attr.type != AttrType::kTensor) {
      return InvalidArgument(kFn, "attribute '" + attr.name + "' is " +
                                      std::string(ir::AttributeTypeName(attr.type)) +
                                      ", not a tensor");
    }
    auto value = std::make_unique<OrtValue>();
    value->element_type = ToOrtElementType(attr.t.dtype());
    value->shape = attr.t.shape();
    value->data = const_cast<void*>(attr.t.raw_data());
    value->bytes = attr.t.byte_size();
    value->memory_info = &DefaultCpuAllocator().info;
    value->owner = std::make_shared<Tensor>(attr.t);
    *attr_tensor = value.release();
    return nullptr;
  });
}

// ReadOpAttr: copies the attribute's value into `data` (`len` bytes) and sets `*out` to the
// bytes written; when `len` is too small, ORT_INVALID_ARGUMENT with `*out` set to the bytes
// needed (so a call with len 0 asks for the size). INT: one int64; FLOAT: one float; INTS /
// FLOATS: the elements; STRING: its bytes (no terminator); STRINGS: all strings' bytes
// concatenated. Errors: `type` differs from the attribute's type; GRAPH and TENSOR (use
// Node_GetSubgraphs / OpAttr_GetTensorAttributeAsOrtValue).
OrtStatus* ORT_API_CALL ReadOpAttrImpl(const OrtOpAttr* op_attr, OrtOpAttrType type, void* data,
                                       size_t len, size_t* out) noexcept {
  constexpr const char* kFn = "OrtApi::ReadOpAttr";
  if (OrtStatus* s = CheckArgs(kFn, {{"op_attr", op_attr}, {"out", out}})) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "type", type)) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const ir::Attribute& attr = op_attr->attr;
    AttrType expected = AttrType::kUndefined;
    const void* source = nullptr;
    size_t bytes = 0;
    std::string joined;
    switch (type) {
      case ORT_OP_ATTR_INT:
        expected = AttrType::kInt, source = &attr.i, bytes = sizeof(int64_t);
        break;
      case ORT_OP_ATTR_FLOAT:
        expected = AttrType::kFloat, source = &attr.f, bytes = sizeof(float);
        break;
      case ORT_OP_ATTR_INTS:
        expected = AttrType::kInts, source = attr.ints.data(),
        bytes = attr.ints.size() * sizeof(int64_t);
        break;
      case ORT_OP_ATTR_FLOATS:
        expected = AttrType::kFloats, source = attr.floats.data(),
        bytes = attr.floats.size() * sizeof(float);
        break;
      case ORT_OP_ATTR_STRING:
        expected = AttrType::kString, source = attr.s.data(), bytes = attr.s.size();
        break;
      case ORT_OP_ATTR_STRINGS:
        // Each string with its terminator, as ORT 1.30 writes them (and its C++ wrapper reads).
        for (const std::string& s : attr.strings) joined.append(s).push_back('\0');
        expected = AttrType::kStrings, source = joined.data(), bytes = joined.size();
        break;
      case ORT_OP_ATTR_GRAPH:
        return InvalidArgument(kFn, "attribute '" + attr.name +
                                        "': graph attributes are read with Node_GetSubgraphs");
      case ORT_OP_ATTR_TENSOR:
        return InvalidArgument(
            kFn, "attribute '" + attr.name +
                     "': tensor attributes are read with OpAttr_GetTensorAttributeAsOrtValue");
      default:
        return InvalidArgument(kFn, "unknown OrtOpAttrType " + std::to_string(type));
    }
    if (attr.type != expected) {
      return InvalidArgument(kFn, "attribute '" + attr.name + "' is " +
                                      std::string(ir::AttributeTypeName(attr.type)) + ", not " +
                                      std::string(ir::AttributeTypeName(expected)));
    }
    *out = bytes;
    if (len < bytes) {
      return InvalidArgument(kFn, "attribute '" + attr.name + "' needs " + std::to_string(bytes) +
                                      " bytes, 'len' is " + std::to_string(len));
    }
    if (bytes == 0) return nullptr;
    if (data == nullptr) return InvalidArgument(kFn, "argument 'data' is null");
    std::memcpy(data, source, bytes);
    return nullptr;
  });
}

// ---- OrtModelMetadata ----

// Graph_GetModelMetadata: the model's metadata (ModelMetadataOf), for any graph of the model; the
// plugin releases it with ReleaseModelMetadata.
OrtStatus* ORT_API_CALL GraphGetModelMetadataImpl(const OrtGraph* graph,
                                                  OrtModelMetadata** out) noexcept {
  constexpr const char* kFn = "OrtApi::Graph_GetModelMetadata";
  if (OrtStatus* s = CheckArgs(kFn, {{"graph", graph}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *out = new OrtModelMetadata{ModelMetadataOf(*graph->model)};
    return nullptr;
  });
}

using nxrt::ModelMetadata;

template <std::string ModelMetadata::*kField>
OrtStatus* MetadataString(const char* function, const OrtModelMetadata* metadata,
                          OrtAllocator* allocator, char** value) {
  if (OrtStatus* s = CheckArgs(function, {{"model_metadata", metadata},
                                          {"allocator", allocator},
                                          {"value", value}})) {
    return s;
  }
  return Guarded(function, [&]() -> OrtStatus* {
    *value = AllocatorCopy(allocator, metadata->metadata.*kField);
    if (*value == nullptr) return MakeOrtStatus(ORT_FAIL, std::string(function) + ": the allocator returned null");
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL ModelMetadataGetProducerNameImpl(const OrtModelMetadata* m,
                                                         OrtAllocator* a, char** v) noexcept {
  return MetadataString<&ModelMetadata::producer_name>("OrtApi::ModelMetadataGetProducerName", m,
                                                       a, v);
}
OrtStatus* ORT_API_CALL ModelMetadataGetGraphNameImpl(const OrtModelMetadata* m, OrtAllocator* a,
                                                      char** v) noexcept {
  return MetadataString<&ModelMetadata::graph_name>("OrtApi::ModelMetadataGetGraphName", m, a, v);
}
OrtStatus* ORT_API_CALL ModelMetadataGetDomainImpl(const OrtModelMetadata* m, OrtAllocator* a,
                                                   char** v) noexcept {
  return MetadataString<&ModelMetadata::domain>("OrtApi::ModelMetadataGetDomain", m, a, v);
}
OrtStatus* ORT_API_CALL ModelMetadataGetDescriptionImpl(const OrtModelMetadata* m,
                                                        OrtAllocator* a, char** v) noexcept {
  return MetadataString<&ModelMetadata::description>("OrtApi::ModelMetadataGetDescription", m, a,
                                                     v);
}
OrtStatus* ORT_API_CALL ModelMetadataGetGraphDescriptionImpl(const OrtModelMetadata* m,
                                                             OrtAllocator* a, char** v) noexcept {
  return MetadataString<&ModelMetadata::graph_description>(
      "OrtApi::ModelMetadataGetGraphDescription", m, a, v);
}

OrtStatus* ORT_API_CALL ModelMetadataGetVersionImpl(const OrtModelMetadata* metadata,
                                                    int64_t* value) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::ModelMetadataGetVersion",
                               {{"model_metadata", metadata}, {"value", value}})) {
    return s;
  }
  *value = metadata->metadata.version;
  return nullptr;
}

// OrtApi::ModelMetadataLookupCustomMetadataMap: *value = a copy of the value of `key`, or NULL
// (and ok) when the model has no such key.
OrtStatus* ORT_API_CALL ModelMetadataLookupCustomMetadataMapImpl(const OrtModelMetadata* metadata,
                                                                 OrtAllocator* allocator,
                                                                 const char* key,
                                                                 char** value) noexcept {
  constexpr const char* kFn = "OrtApi::ModelMetadataLookupCustomMetadataMap";
  if (OrtStatus* s = CheckArgs(kFn, {{"model_metadata", metadata}, {"allocator", allocator},
                                     {"key", key}, {"value", value}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    *value = nullptr;
    for (const auto& [k, v] : metadata->metadata.custom) {
      if (k != key) continue;
      *value = AllocatorCopy(allocator, v);
      if (*value == nullptr) return MakeOrtStatus(ORT_FAIL, std::string(kFn) + ": the allocator returned null");
      break;
    }
    return nullptr;
  });
}

// OrtApi::ModelMetadataGetCustomMetadataMapKeys: an allocator array of allocator strings (NULL
// and 0 when there are none); the caller frees each key and the array.
OrtStatus* ORT_API_CALL ModelMetadataGetCustomMetadataMapKeysImpl(const OrtModelMetadata* metadata,
                                                                  OrtAllocator* allocator,
                                                                  char*** keys,
                                                                  int64_t* num_keys) noexcept {
  constexpr const char* kFn = "OrtApi::ModelMetadataGetCustomMetadataMapKeys";
  if (OrtStatus* s = CheckArgs(kFn, {{"model_metadata", metadata}, {"allocator", allocator},
                                     {"keys", keys}, {"num_keys", num_keys}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    const auto& custom = metadata->metadata.custom;
    *keys = nullptr;
    *num_keys = static_cast<int64_t>(custom.size());
    if (custom.empty()) return nullptr;
    auto* array = static_cast<char**>(allocator->Alloc(allocator, custom.size() * sizeof(char*)));
    if (array == nullptr) return MakeOrtStatus(ORT_FAIL, std::string(kFn) + ": the allocator returned null");
    for (size_t i = 0; i < custom.size(); ++i) {
      array[i] = AllocatorCopy(allocator, custom[i].first);
      if (array[i] == nullptr) {
        for (size_t j = 0; j < i; ++j) allocator->Free(allocator, array[j]);
        allocator->Free(allocator, array);
        return MakeOrtStatus(ORT_FAIL, std::string(kFn) + ": the allocator returned null");
      }
    }
    *keys = array;
    return nullptr;
  });
}

void ORT_API_CALL ReleaseModelMetadataImpl(OrtModelMetadata* metadata) noexcept { delete metadata; }

// ---- OrtExternalInitializerInfo ----

// These return values, not statuses: a null info reads as "" / 0.
const ORTCHAR_T* ORT_API_CALL ExternalInitializerInfoGetFilePathImpl(
    const OrtExternalInitializerInfo* info) noexcept {
  return info != nullptr ? info->file_path.c_str() : "";
}
int64_t ORT_API_CALL ExternalInitializerInfoGetFileOffsetImpl(
    const OrtExternalInitializerInfo* info) noexcept {
  return info != nullptr ? info->file_offset : 0;
}
size_t ORT_API_CALL ExternalInitializerInfoGetByteSizeImpl(
    const OrtExternalInitializerInfo* info) noexcept {
  return info != nullptr ? info->byte_size : 0;
}
void ORT_API_CALL ReleaseExternalInitializerInfoImpl(OrtExternalInitializerInfo* info) {
  delete info;
}

}  // namespace

void InstallGraphApi(OrtApi& api, OrtEpApi& /*ep_api*/) {
  api.GetValueInfoName = &GetValueInfoNameImpl;
  api.GetValueInfoTypeInfo = &GetValueInfoTypeInfoImpl;
  api.ValueInfo_GetValueProducer = &ValueInfoGetValueProducerImpl;
  api.ValueInfo_GetValueNumConsumers = &ValueInfoGetValueNumConsumersImpl;
  api.ValueInfo_GetValueConsumers = &ValueInfoGetValueConsumersImpl;
  api.ValueInfo_GetInitializerValue = &ValueInfoGetInitializerValueImpl;
  api.ValueInfo_GetExternalInitializerInfo = &ValueInfoGetExternalInitializerInfoImpl;
  api.ValueInfo_IsRequiredGraphInput = &ValueInfoIsRequiredGraphInputImpl;
  api.ValueInfo_IsOptionalGraphInput = &ValueInfoIsOptionalGraphInputImpl;
  api.ValueInfo_IsGraphOutput = &ValueInfoIsGraphOutputImpl;
  api.ValueInfo_IsConstantInitializer = &ValueInfoIsConstantInitializerImpl;
  api.ValueInfo_IsFromOuterScope = &ValueInfoIsFromOuterScopeImpl;
  api.Graph_GetName = &GraphGetNameImpl;
  api.Graph_GetModelPath = &GraphGetModelPathImpl;
  api.Graph_GetOnnxIRVersion = &GraphGetOnnxIRVersionImpl;
  api.Graph_GetNumOperatorSets = &GraphGetNumOperatorSetsImpl;
  api.Graph_GetOperatorSets = &GraphGetOperatorSetsImpl;
  api.Graph_GetNumInputs = &GraphGetNumInputsImpl;
  api.Graph_GetInputs = &GraphGetInputsImpl;
  api.Graph_GetNumOutputs = &GraphGetNumOutputsImpl;
  api.Graph_GetOutputs = &GraphGetOutputsImpl;
  api.Graph_GetNumInitializers = &GraphGetNumInitializersImpl;
  api.Graph_GetInitializers = &GraphGetInitializersImpl;
  api.Graph_GetNumNodes = &GraphGetNumNodesImpl;
  api.Graph_GetNodes = &GraphGetNodesImpl;
  api.Graph_GetParentNode = &GraphGetParentNodeImpl;
  api.Graph_GetGraphView = &GraphGetGraphViewImpl;
  api.ReleaseGraph = &ReleaseGraphImpl;
  api.ReleaseValueInfo = &ReleaseValueInfoImpl;
  api.ReleaseNode = &ReleaseNodeImpl;
  api.ReleaseModel = &ReleaseModelImpl;
  api.Node_GetId = &NodeGetIdImpl;
  api.Node_GetName = &NodeGetNameImpl;
  api.Node_GetOperatorType = &NodeGetOperatorTypeImpl;
  api.Node_GetDomain = &NodeGetDomainImpl;
  api.Node_GetSinceVersion = &NodeGetSinceVersionImpl;
  api.Node_GetNumInputs = &NodeGetNumInputsImpl;
  api.Node_GetInputs = &NodeGetInputsImpl;
  api.Node_GetNumOutputs = &NodeGetNumOutputsImpl;
  api.Node_GetOutputs = &NodeGetOutputsImpl;
  api.Node_GetNumImplicitInputs = &NodeGetNumImplicitInputsImpl;
  api.Node_GetImplicitInputs = &NodeGetImplicitInputsImpl;
  api.Node_GetNumAttributes = &NodeGetNumAttributesImpl;
  api.Node_GetAttributes = &NodeGetAttributesImpl;
  api.Node_GetAttributeByName = &NodeGetAttributeByNameImpl;
  api.Node_GetNumSubgraphs = &NodeGetNumSubgraphsImpl;
  api.Node_GetSubgraphs = &NodeGetSubgraphsImpl;
  api.Node_GetGraph = &NodeGetGraphImpl;
  api.Node_GetEpName = &NodeGetEpNameImpl;
  api.OpAttr_GetType = &OpAttrGetTypeImpl;
  api.OpAttr_GetName = &OpAttrGetNameImpl;
  api.OpAttr_GetTensorAttributeAsOrtValue = &OpAttrGetTensorAttributeAsOrtValueImpl;
  api.ReadOpAttr = &ReadOpAttrImpl;
  api.ExternalInitializerInfo_GetFilePath = &ExternalInitializerInfoGetFilePathImpl;
  api.ExternalInitializerInfo_GetFileOffset = &ExternalInitializerInfoGetFileOffsetImpl;
  api.ExternalInitializerInfo_GetByteSize = &ExternalInitializerInfoGetByteSizeImpl;
  api.ReleaseExternalInitializerInfo = &ReleaseExternalInitializerInfoImpl;
  api.Graph_GetModelMetadata = &GraphGetModelMetadataImpl;
  api.ModelMetadataGetProducerName = &ModelMetadataGetProducerNameImpl;
  api.ModelMetadataGetGraphName = &ModelMetadataGetGraphNameImpl;
  api.ModelMetadataGetDomain = &ModelMetadataGetDomainImpl;
  api.ModelMetadataGetDescription = &ModelMetadataGetDescriptionImpl;
  api.ModelMetadataGetGraphDescription = &ModelMetadataGetGraphDescriptionImpl;
  api.ModelMetadataGetVersion = &ModelMetadataGetVersionImpl;
  api.ModelMetadataLookupCustomMetadataMap = &ModelMetadataLookupCustomMetadataMapImpl;
  api.ModelMetadataGetCustomMetadataMapKeys = &ModelMetadataGetCustomMetadataMapKeysImpl;
  api.ReleaseModelMetadata = &ReleaseModelMetadataImpl;
}

ModelMetadata ModelMetadataOf(const ir::Model& model) {
  ModelMetadata metadata;
  metadata.producer_name = model.producer_name;
  metadata.domain = model.domain;
  metadata.description = model.doc_string;
  metadata.version = model.model_version;
  metadata.custom = model.metadata;
  if (model.graph) {
    metadata.graph_name = model.graph->name;
    metadata.graph_description = model.graph->doc_string;
  }
  return metadata;
}

char* AllocatorCopy(OrtAllocator* allocator, std::string_view text) {
  auto* copy = static_cast<char*>(allocator->Alloc(allocator, text.size() + 1));
  if (copy == nullptr) return nullptr;
  if (!text.empty()) std::memcpy(copy, text.data(), text.size());
  copy[text.size()] = '\0';
  return copy;
}

}  // namespace nxrt::ort_plugin
