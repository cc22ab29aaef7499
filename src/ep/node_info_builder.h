// ep/node_info_builder.h: the IR seen as the EP API's NodeInfo / ValueInfo / FusedNodeInfo.
//
// Layer: nxrt_ep. The only bridge from nxrt's graph IR (ir/graph_view.h) to the public,
// IR-free view EPs get (nxrt/node_info.h). Built once per graph; each call copies what it
// returns (tensors are shared, not copied), so results outlive the builder.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph_view.h"
#include "nxrt/execution_provider.h"
#include "nxrt/node_info.h"

namespace nxrt::ep {

class NodeInfoBuilder {
 public:
  // `view` must outlive the builder.
  explicit NodeInfoBuilder(const ir::GraphView& view);

  // The NodeInfo of `node` (a valid id of the view's graph).
  NodeInfo Node(ir::NodeId node) const;
  // The ValueInfo of `value`; kAbsent for ir::kNoValue.
  ValueInfo Value(ir::ValueId value) const;
  // The FusedNodeInfo of a claim: `nodes` in topological order and its boundary values.
  FusedNodeInfo Fused(std::string name, std::span<const ir::NodeId> nodes,
                      std::span<const ir::ValueId> inputs,
                      std::span<const ir::ValueId> outputs) const;

 private:
  // The initializer tensor behind `value` when it is a constant initializer of this graph or,
  // for an outer-scope value, of the enclosing graph defining it; nullptr otherwise.
  const Tensor* ConstantOf(ir::ValueId value) const;

  const ir::GraphView* view_;
  std::vector<bool> is_graph_input_;  // by value id
};

// `info` with each listed input slot described as its constant tensor: kind tensor, the
// tensor's dtype and fixed shape, is_constant, `constant` = the tensor (shared). For constants
// a builder did not see: values a rewrite computed (constant folding), or an initializer whose
// data the session freed after prepacking (ep/prepacked.h). Slots past the node's inputs are
// ignored.
NodeInfo WithInputConstants(const NodeInfo& info,
                            std::span<const std::pair<size_t, Tensor>> constants);

}  // namespace nxrt::ep
