// ep/ort_plugin/graph_projection.h: nxrt's IR seen through ORT's graph C API: OrtGraph, OrtNode,
// OrtValueInfo, OrtOpAttr, OrtExternalInitializerInfo, built once per model and read by plugins
// through OrtApi::Graph_* / Node_* / ValueInfo_* / OpAttr_* (api_graph.cpp).
//
// Layer: nxrt_ort_plugin (internal). A projection is faithful (PLUGIN_HOST.md §2):
//   - nodes in the GraphView's topological order; Node_GetId is the IR node id; names are unique
//     and non-empty (the IR guarantees it); Node_GetSinceVersion is the operator schema's
//     since_version at the graph's opset (GraphView::since_version);
//   - attributes are the node's plus the schema's defaults it omits, sorted by name; tensor
//     attributes readable as OrtValues; graph attributes are the subgraphs (Node_GetSubgraphs),
//     each projected recursively with Graph_GetParentNode set;
//   - value infos: type info from the IR (ONNX_TYPE_UNKNOWN when the model gives none), the
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
#include <vector>

#include "ep/ort_plugin/api_objects.h"
#include "ep/partitioner.h"
#include "ir/graph.h"
#include "ir/graph_view.h"
#include "nxrt/status.h"

namespace nxrt::ort_plugin {

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
  // Node_GetEpName of `id` from now on ("" until set).
  void SetNodeEpName(ir::NodeId id, std::string ep_name);

  // The graph and fused node Compile receives for `claim` (a claim on this graph).
  Result<ClaimProjection> ProjectClaim(const ep::Claim& claim, std::string_view fused_name,
                                       std::string_view ep_name,
                                       bool drop_constant_initializers) const;

  struct Impl;

 private:
  explicit GraphProjection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nxrt::ort_plugin
