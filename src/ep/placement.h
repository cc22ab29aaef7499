// ep/placement.h: which EP runs which node: EPs claim in the user's priority order, the
// last-resort EP (the CPU EP) takes what is left, and the result becomes the public report's
// data (nxrt/placement.h), which ep/placement_format.cpp prints.
//
// Layer: nxrt_ep. Input: one graph (a GraphView; a subgraph is placed by its own call) and the
// session's EpRegistry, initialized. For each EP in priority order, over the nodes no earlier EP
// claimed:
//   - an EP with the GraphClaimer extension (ORT plugin EPs) proposes groups; each is validated
//     (ep/claim_set.h) and becomes a claim, or is rejected with its reason recorded (such an EP
//     may also claim a control-flow node alone: PlacementOptions::claimable_alone);
//   - any other EP answers Supports for each node; the supported nodes are grouped into convex
//     claims by the partitioner (ep/partitioner.h), with earlier claims as fixed blocks and
//     nodes holding subgraphs (If/Loop/Scan) claimed alone.
// Then the last-resort EP, when given, does the same over what is left. Nodes the caller marks
// as run by the runtime (control flow, sequences) are offered to no EP. Nodes nobody took are
// "unplaced": an error listing each with every EP's reason, unless allow_unplaced is set
// (ExplainPlacement shows such placements too).
//
// Everything here is deterministic: the same graph, EPs and options give the same placement and
// byte-identical text and JSON.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ep/ep_registry.h"
#include "ep/partitioner.h"
#include "ir/graph_view.h"
#include "nxrt/execution_provider.h"
#include "nxrt/placement.h"
#include "nxrt/status.h"

namespace nxrt::ep {

struct PlacedClaim {
  int32_t ep = -1;     // index into Placement::eps
  bool fused = false;  // true: one kernel for the whole claim (CreateFusedKernel)
  double cost = 0;     // sum of the EP's KernelMatch cost estimates (microseconds; 0 = none)
  Claim claim;
};

// One EP's reason for not taking a node.
struct EpDecline {
  int32_t ep = -1;
  std::string reason;
};

// A claim an EP proposed that validation refused (or, with no nodes, an EP that failed to
// propose claims at all).
struct RejectedClaim {
  int32_t ep = -1;
  std::vector<ir::NodeId> nodes;  // as proposed
  std::string reason;
};

struct Placement {
  // The EPs in the order they were asked: the registry's names, then the last resort if it was
  // given and is not in the registry.
  std::vector<std::string> eps;
  std::vector<PlacedClaim> claims;               // by EP, then by first node in topological order
  std::vector<int32_t> claim_of_node;            // node id → index into claims, -1 when unplaced
  std::vector<std::vector<EpDecline>> declines;  // node id → EPs that declined it, in order asked
  std::vector<RejectedClaim> rejected;           // in the order proposed
  std::vector<ir::NodeId> runtime;               // PlacementOptions::runtime_nodes, topological
  std::vector<ir::NodeId> unplaced;              // in topological order

  bool complete() const { return unplaced.empty(); }
};

struct PlacementOptions {
  // Takes the nodes every registry EP left (the CPU EP), if it supports them. Not owned; must be
  // initialized; may be an EP of the registry (then it is not asked twice). May be null.
  ExecutionProvider* last_resort = nullptr;
  // Its name in the placement; default: its type name.
  std::string last_resort_name;
  // When set, keeps a node away from an EP: returns the reason to record, or nullopt.
  std::function<std::optional<std::string>(std::string_view ep_name, const NodeInfo& node)> exclude;
  // Node id → true for nodes the runtime runs itself: no EP is asked about them (nothing is
  // recorded), a proposal holding one is rejected, and they are listed in Placement::runtime,
  // not as unplaced. Empty: none.
  std::vector<bool> runtime_nodes;
  // Node id → true for runtime nodes an EP with the GraphClaimer extension may still claim, alone
  // and not fused: If, Loop and Scan, whose kernels ORT plugins make with OrtEpApi's helpers (the
  // runtime still runs their subgraphs). Such a node, once claimed, is the claim's, not a runtime
  // node. Empty: none.
  std::vector<bool> claimable_alone;
  // Node id → the EP (index into Placement::eps) an earlier placement of this graph gave the node
  // (or, for a runtime node, the EP it counted as), before nodes nobody took were expanded into
  // their function bodies (runtime/model_pipeline.h); -1 or empty: none. The EP keeps the node
  // (a claim of its own, made in its turn), no other EP may take it, and EPs with the
  // GraphClaimer extension are shown it assigned, as ONNX Runtime keeps and shows the
  // assignments of its earlier partitioning round.
  std::vector<int32_t> earlier_ep;
  // Return a placement with unplaced nodes instead of failing (for inspection).
  bool allow_unplaced = false;
};

// Places every node of `view`'s graph. Errors: kFailedPrecondition when a registry EP is not
// initialized; kUnsupported when nodes are left unplaced and !allow_unplaced, with the text of
// UnplacedError; kInternal for a broken invariant.
Result<Placement> PlaceGraph(const ir::GraphView& view, const EpRegistry& eps,
                             const PlacementOptions& options = {});

// The error for a placement with unplaced nodes: every unplaced node with each EP's reason and
// a fix. `cpu_ep_asked`: the CPU EP was among the EPs asked (listed, or the fallback's), so the
// fix does not suggest allowing the fallback. Ok when the placement is complete.
Status UnplacedError(const Placement& placement, const ir::GraphView& view, bool cpu_ep_asked);

// The placement of `view`'s graph as the public report's data (nxrt/placement.h): names instead
// of ids. What the report knows beyond one graph is left for the caller: label, parent, the fused
// claims' names, the runtime nodes' EP and bodies. GraphPlacementText and GraphPlacementJson
// (ep/placement_format.cpp) print it.
GraphPlacement DescribePlacement(const Placement& placement, const ir::GraphView& view);

}  // namespace nxrt::ep
