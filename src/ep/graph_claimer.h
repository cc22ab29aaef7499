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

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ep/partitioner.h"
#include "ir/graph_view.h"
#include "nxrt/execution_provider.h"
#include "nxrt/status.h"

namespace nxrt::ep {

struct ProposedClaim {
  std::vector<ir::NodeId> nodes;  // any order; placement stores them in topological order
  bool fused = true;              // one kernel for the group (false: AddSingleNode)
};

// A proposal the EP itself found invalid before placement could see it (e.g. a plugin naming a
// node pointer that is not in the graph): recorded in Placement::rejected as given.
struct RejectedProposal {
  std::vector<ir::NodeId> nodes;  // the nodes that could be identified
  std::string reason;
};

struct GraphClaims {
  std::vector<ProposedClaim> claims;  // validated in this order
  std::vector<RejectedProposal> rejected;
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

  // One accepted fused claim to compile and the name its step and kernel will have.
  struct ClaimToCompile {
    std::string fused_name;  // unique in the session; FusedNodeInfo::name of its kernel
    const Claim* claim = nullptr;
  };
  // Compiles the accepted fused claims of `view`'s graph, all at once, before CreateFusedKernel
  // is asked for any of them (the model pipeline, runtime/model_pipeline.h, calls it once per
  // graph that has such claims, right after placing the graph).
  // Errors: any; with fallback allowed the graph is placed again without this EP.
  virtual Status CompileClaims(const ir::GraphView& view,
                               std::span<const ClaimToCompile> claims) = 0;
};

}  // namespace nxrt::ep
