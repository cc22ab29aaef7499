// ep/graph_claimer.h: an optional EP capability: claiming groups of nodes for the whole graph at
// once, as ORT plugin EPs do in GetCapability, instead of answering Supports node by node.
//
// Layer: nxrt_ep (internal: it sees the IR, so it is not part of the public EP API). The ORT
// plugin host (src/ep/ort_plugin) implements it: it projects the graph as an OrtGraph, calls
// the plugin's GetCapability and turns each EpGraphSupportInfo_AddNodesToFuse group into a fused
// proposal and each AddSingleNode into a single-node one. Placement validates every proposal
// (ep/claim_set.h) and records a reason for each one it rejects; the EP later gets
// CreateFusedKernel for each accepted fused proposal and CreateKernel for each accepted single.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/graph_view.h"
#include "nxrt/execution_provider.h"
#include "nxrt/status.h"

namespace nxrt::ep {

struct ProposedClaim {
  std::vector<ir::NodeId> nodes;  // any order; placement stores them in topological order
  bool fused = true;              // one kernel for the group (false: AddSingleNode)
};

struct GraphClaims {
  std::vector<ProposedClaim> claims;  // validated in this order
  // Why the EP left some nodes alone, when it says (a plugin's log lines); shown per node.
  std::vector<std::pair<ir::NodeId, std::string>> declined;
};

class GraphClaimer : public EpExtension {
 public:
  static constexpr std::string_view kExtensionName = "nxrt.graph_claimer";

  // Proposes claims on `view`'s graph. `unavailable[node]` is true for nodes the EP must not
  // propose (placed on an EP of higher priority, or excluded for this EP); proposing one gets
  // that proposal rejected. Errors: any, recorded as this EP's failure; placement goes on
  // without it.
  virtual Result<GraphClaims> ProposeClaims(const ir::GraphView& view,
                                            const std::vector<bool>& unavailable) = 0;
};

}  // namespace nxrt::ep
