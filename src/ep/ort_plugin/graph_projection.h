// ep/ort_plugin/graph_projection.h: nxrt's IR seen through ORT's graph C API: OrtGraph, OrtNode,
// OrtValueInfo, OrtOpAttr, OrtExternalInitializerInfo, built once per model and read by plugins
// through OrtApi::Graph_* / Node_* / ValueInfo_* / OpAttr_* (api_graph.cpp).
//
// Layer: nxrt_ort_plugin (internal). A projection is faithful (docs/plugin_host.md, "The graph a
// plugin sees"):
//   - nodes in ORT 1.30's order (GraphViewer's reversed-DFS topological order); Node_GetId is
//     ORT's node index (ir::Node::model_index); names as the model writes them ("" for unnamed
//     nodes); Node_GetSinceVersion is the operator schema's since_version at the graph's opset
//     (GraphView::since_version); Graph_GetOperatorSets lists ORT's registered domains too;
//   - attributes are the node's plus the schema's defaults it omits, in ORT's order (its
//     unordered_map's); tensor attributes readable as OrtValues; graph attributes are the
//     subgraphs (Node_GetSubgraphs, in attribute order), each projected recursively with
//     Graph_GetParentNode set; implicit inputs in the order ORT collects them;
//   - value infos: type info from the IR (ONNX_TYPE_UNKNOWN when the model gives none; dims
//     whose symbol type inference made up are unknown, as ORT has them), the
//     producer and output index, consumers (sorted by node id, input index; implicit inputs of
//     subgraph nodes reported with index -1), graph input/output/outer-scope/initializer flags;
//   - initializers as OrtValues viewing the IR's tensor bytes (external weights stay mapped
//     once; nothing is copied), in the graph's initializer order, with
//     ValueInfo_GetExternalInitializerInfo for external ones.
// The projection borrows the ir::Model: the model outlives it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ep/ort_plugin/api_objects.h"
#include "ep/partitioner.h"
#include "ir/graph.h"
#include "ir/graph_view.h"
#include "nxrt/session.h"
#include "nxrt/status.h"

// The graph objects. All are owned by a GraphProjection (or a ClaimProjection's storage), except
// OrtExternalInitializerInfo (one per ValueInfo_GetExternalInitializerInfo call, released by the
// plugin) and graphs made by Graph_GetGraphView (released by the plugin with ReleaseGraph).
// Pointers between them are non-owning; nothing changes after construction except a node's
// EP name (GraphProjection::SetNodeEpName).

// An attribute as Node_GetAttributes reports it: the node's own or a schema default (a copy;
// tensors and subgraphs share the IR's buffers).
struct OrtOpAttr {
  nxrt::ir::Attribute attr;
};

// ValueInfo_GetExternalInitializerInfo: where an external initializer's bytes are.
struct OrtExternalInitializerInfo {
  std::string file_path;  // relative to the model's folder (ONNX `location`)
  int64_t file_offset = 0;
  size_t byte_size = 0;
};

// One value of one OrtGraph.
struct OrtValueInfo {
  std::string name;
  OrtTypeInfo type_info;  // GetValueInfoTypeInfo lends it
  const OrtGraph* graph = nullptr;
  nxrt::ir::ValueId id = nxrt::ir::kNoValue;
  // The producing node of this graph and its output index, or null.
  const OrtNode* producer = nullptr;
  size_t producer_output = 0;
  // Uses by nodes of this graph, (node id, input index) ascending, implicit uses (-1) first.
  std::vector<const OrtNode*> consumer_nodes;
  std::vector<int64_t> consumer_inputs;
  bool is_graph_input = false;
  bool is_graph_output = false;
  bool is_outer_scope = false;
  bool is_optional_graph_input = false;  // a graph input with an initializer (IR >= 4)
  bool is_constant_initializer = false;
  // The initializer's tensor as a view (own or, for outer-scope values, an ancestor's), or null.
  const OrtValue* initializer = nullptr;
  std::unique_ptr<OrtValue> own_initializer;
  std::optional<OrtExternalInitializerInfo> external;
};

// One node of one OrtGraph (or a fused node of ProjectClaim).
struct OrtNode {
  nxrt::ir::NodeId id = nxrt::ir::kNoNode;
  size_t ort_index = 0;  // Node_GetId: ORT's node index (ir::Node::model_index)
  std::string name;      // "" for a node the model leaves unnamed, as in ORT
  std::string op_type;
  std::string domain;
  int since_version = -1;
  const OrtGraph* graph = nullptr;  // null for fused nodes
  std::vector<const OrtValueInfo*> inputs;   // null entries: omitted optional inputs
  std::vector<const OrtValueInfo*> outputs;  // null entries: omitted optional outputs
  std::vector<const OrtValueInfo*> implicit_inputs;
  std::vector<OrtOpAttr> attributes;  // sorted by name, schema defaults included
  std::vector<const OrtGraph*> subgraphs;
  std::vector<const char*> subgraph_attribute_names;  // point into `attributes`
  std::optional<std::string> ep_name;  // Node_GetEpName: "" until assigned
};

// A graph: a projected IR graph (main graph or subgraph), a claim's graph, or a
// Graph_GetGraphView subset.
struct OrtGraph {
  const nxrt::ir::Model* model = nullptr;
  const nxrt::ir::GraphView* view = nullptr;  // of the IR graph the nodes belong to
  std::string name;
  const OrtNode* parent_node = nullptr;  // the If/Loop/Scan node for subgraphs
  const OrtGraph* outer = nullptr;        // the enclosing graph: outer-scope values resolve there
  std::vector<std::unique_ptr<OrtNode>> node_storage;
  std::vector<const OrtNode*> nodes;  // topological order
  std::unordered_map<const OrtNode*, nxrt::ir::NodeId> node_ids;
  std::vector<std::unique_ptr<OrtValueInfo>> values;  // by ValueId; null when unused here
  std::vector<const OrtValueInfo*> inputs;
  std::vector<const OrtValueInfo*> outputs;
  std::vector<const OrtValueInfo*> initializers;
  std::vector<const char*> opset_domains;  // Graph_GetOperatorSets, model order
  std::vector<int64_t> opset_versions;
};

// Graph_GetModelMetadata and SessionGetModelMetadata: the model's metadata, read with the
// ModelMetadata* functions (api_graph.cpp) and released with ReleaseModelMetadata.
struct OrtModelMetadata {
  nxrt::ModelMetadata metadata;
};

namespace nxrt::ort_plugin {

// The metadata ORT reports for `model`: producer, domain, doc string, version, metadata_props,
// and its main graph's name and doc string. Source: onnx.proto (ModelProto), ORT's
// OrtModelMetadata.
ModelMetadata ModelMetadataOf(const ir::Model& model);

class GraphProjection;

// One claim's graph for OrtEp::Compile and its fused node (both owned here).
struct ClaimProjection {
  // The claim's nodes in topological order. Inputs: the claim's boundary inputs, without the
  // constant initializers when they are dropped; outputs: its boundary outputs. Initializers:
  // the constant initializers its nodes read (always present, so a plugin can copy them).
  const OrtGraph* graph = nullptr;
  // A node named `fused_name` (op type `fused_name`, domain "", Node_GetEpName the EP's name)
  // whose inputs/outputs are the graph's inputs/outputs.
  const OrtNode* fused_node = nullptr;
  // For each input of the fused node, its index in the claim's `inputs` (ep::Claim::inputs).
  std::vector<int32_t> claim_input_of_fused_input;
  std::shared_ptr<void> storage;  // keeps the objects above alive
};

class GraphProjection {
 public:
  // Projects `view`'s graph (the model's main graph or one of its subgraphs) and, recursively,
  // the subgraphs of its nodes. Errors: kInvalidModel when a subgraph cannot be viewed.
  static Result<std::unique_ptr<GraphProjection>> Create(const ir::Model& model,
                                                         const ir::GraphView& view);
  ~GraphProjection();

  const OrtGraph* graph() const;
  const ir::GraphView& view() const;
  // The IR id of `node` when it is a node of this graph (not of a subgraph); nullopt for any
  // other pointer. Never dereferences `node`.
  std::optional<ir::NodeId> FindNode(const OrtNode* node) const;
  const OrtNode* node(ir::NodeId id) const;
  // The projection of subgraph `graph` (anywhere below this one), or null.
  const GraphProjection* FindSubgraph(const ir::Graph* graph) const;
  GraphProjection* FindSubgraph(const ir::Graph* graph) {
    return const_cast<GraphProjection*>(std::as_const(*this).FindSubgraph(graph));
  }
  // Node_GetEpName of `id` from now on ("" until set).
  void SetNodeEpName(ir::NodeId id, std::string ep_name);

  // The graph and fused node Compile receives for `claim` (a claim on this graph).
  Result<ClaimProjection> ProjectClaim(const ep::Claim& claim, std::string_view fused_name,
                                       std::string_view ep_name,
                                       bool drop_constant_initializers) const;

  // Graph_GetGraphView: a new graph over `nodes` of `source` (a graph of any projection), which
  // must be distinct nodes of `source`. Its nodes are new OrtNode objects for the same IR nodes
  // (ids, attributes, subgraphs unchanged), in `source`'s order; inputs: the values the nodes
  // read and do not produce, in `source`'s graph-input order first, then first use, without
  // constant initializers (which are its initializers); outputs: the values the nodes produce
  // that other nodes of `source`'s IR graph read or that are graph outputs, in `nodes` order.
  // Errors: kInvalidArgument naming the first node that is not in `source` or repeated.
  static Result<std::unique_ptr<OrtGraph>> Subset(const OrtGraph& source,
                                                  const OrtNode* const* nodes, size_t count);

  struct Impl;

 private:
  explicit GraphProjection(std::unique_ptr<Impl> impl);
  // Create for a subgraph: `parent_node` holds it, `outer` is the enclosing projected graph.
  static Result<std::unique_ptr<GraphProjection>> CreateNested(const ir::Model& model,
                                                               const ir::GraphView& view,
                                                               const OrtNode* parent_node,
                                                               const OrtGraph* outer);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nxrt::ort_plugin
