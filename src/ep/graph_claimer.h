// ep/graph_claimer.h: an optional EP capability: claiming groups of nodes for the whole graph at
// once, as ORT plugin EPs do in GetCapability, instead of answering Supports node by node.
//
// Layer: nxrt_ep (internal: it sees the IR, so it is not part of the public EP API). The ORT
// plugin host (src/ep/ort_plugin) implements it: it projects the graph as an OrtGraph, calls
// the plugin's GetCapability and turns each EpGraphSupportInfo_AddNodesToFuse group into a fused
// proposal and each AddSingleNode into a single-node one. Placement validates every proposal
// (ep/claim_set.h) and records a reason for each one it rejects; the EP then compiles the
// accepted claims of each graph (CompileClaims: fused ones into one kernel each, single nodes
// into kernels of the EP's registry) and gets CreateFusedKernel for each fused claim and
// CreateNodeKernel for each single node. A single-node claim may hold a control-flow node (If,
// Loop, Scan) that the runtime otherwise runs itself: the runtime still runs its subgraphs, with
// the EP's ControlFlowHelpersFor.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ep/partitioner.h"
#include "ir/graph_view.h"
#include "nxrt/execution_provider.h"
#include "nxrt/kernel.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

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
  // that proposal rejected. `assigned[node]` (empty, or one entry per node) is the type name of
  // the EP ("cpu", ...) an earlier placement round of this graph gave the node, which keeps it
  // (PlacementOptions::earlier_ep), "" for none: the EP shows it assigned, as ONNX Runtime shows
  // the nodes of its earlier partitioning round. Errors: any, recorded as this EP's failure;
  // placement goes on without it.
  virtual Result<GraphClaims> ProposeClaims(const ir::GraphView& view,
                                            const std::vector<bool>& unavailable,
                                            const std::vector<std::string>& assigned) = 0;

  // The model pipeline rewrote graphs of the model whose main graph is `root` after this EP was
  // shown them (it expanded nodes nobody took into their function bodies:
  // runtime/model_pipeline.h): whatever the EP derived from those graphs must be made again
  // before it shows them (what earlier compiled claims were given stays alive).
  virtual void ModelRewritten(const ir::Graph& root) { (void)root; }

  // One accepted claim to compile: fused (the name its step and kernel will have) or a single
  // node (fused_name "").
  struct ClaimToCompile {
    std::string fused_name;  // unique in the session; FusedNodeInfo::name of its kernel
    const Claim* claim = nullptr;
    bool fused = true;
  };
  // Compiles the accepted claims of `view`'s graph, all at once, before CreateFusedKernel or
  // CreateNodeKernel is asked for any of them (the model pipeline, runtime/model_pipeline.h,
  // calls it once per graph that has such claims, right after placing the graph).
  // Errors: any; with fallback allowed the graph is placed again without this EP.
  virtual Status CompileClaims(const ir::GraphView& view,
                               std::span<const ClaimToCompile> claims) = 0;

  // The session starts a plan over the placed graphs (`graphs`: the main graph and every
  // subgraph, runtime::PlacedModel::graphs), after every graph was placed and its claims
  // compiled, before any kernel of the plan is created; once per plan (a replan after a
  // failure starts another). ONNX Runtime 1.30 creates one session state per graph at this
  // point, and the ORT plugin host asks the factory IsStreamAware once per graph, as ORT does
  // there. Errors: any; the plan is not built.
  virtual Status BeginPlan(size_t graphs) {
    (void)graphs;
    return Status::Ok();
  }

  // The kernel of single-node claim `node` of `graph` (compiled by CompileClaims), for one plan
  // instance. Errors: kInternal for a node that was not compiled.
  virtual Result<std::unique_ptr<Kernel>> CreateNodeKernel(const ir::Graph& graph,
                                                           ir::NodeId node) = 0;

  // What a control-flow node the EP claimed alone lends the runtime, which runs its subgraphs:
  // each function is empty when the EP has none, and the runtime then does the work itself.
  struct ControlFlowHelpers {
    // Loop: writes the per-iteration tensors `items` (one dtype and shape), one after the other,
    // into `out` (`bytes` = their total size).
    std::function<Status(std::span<const Tensor* const> items, void* out, size_t bytes)> concat;
    // Scan: `out` (allocated with the permuted shape) = `in` transposed by `perm`.
    std::function<Status(std::span<const size_t> perm, const Tensor& in, Tensor& out)> transpose;
  };
  // The helpers of control-flow node `node` of `graph` (a single-node claim compiled by
  // CompileClaims). Errors: kFailedPrecondition when the EP's kernel for it is not one the
  // runtime can run (a plugin kernel not made by OrtEpApi::CreateIfKernel and friends).
  virtual Result<ControlFlowHelpers> ControlFlowHelpersFor(const ir::Graph& graph,
                                                           ir::NodeId node) = 0;
};

}  // namespace nxrt::ep
