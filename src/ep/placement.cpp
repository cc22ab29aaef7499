// ep/placement.cpp: EPs claim nodes in priority order; the last resort takes the rest
// (ep/placement.h).
//
// Layer: nxrt_ep.
#include "ep/placement.h"

#include "ep/claim_set.h"
#include "ep/graph_claimer.h"
#include "ep/node_info_builder.h"

namespace nxrt::ep {
namespace {

struct Round {
  std::string name;
  ExecutionProvider* ep;
};

// Per-claim facts that ClaimSet does not keep.
struct ClaimFacts {
  int32_t ep;
  bool fused;
  double cost;
};

// State shared by the rounds of one PlaceGraph call.
struct Placer {
  const ir::GraphView& view;
  const PlacementOptions& options;
  const std::vector<Round>& rounds;
  std::vector<NodeInfo> infos;
  ClaimSet claims;
  std::vector<ClaimFacts> facts;
  Placement placement;

  bool IsRuntimeNode(ir::NodeId node) const {
    return static_cast<size_t>(node) < options.runtime_nodes.size() &&
           options.runtime_nodes[static_cast<size_t>(node)];
  }
  int32_t EarlierEp(ir::NodeId node) const {
    return static_cast<size_t>(node) < options.earlier_ep.size()
               ? options.earlier_ep[static_cast<size_t>(node)]
               : -1;
  }
  bool ClaimableAlone(ir::NodeId node) const {
    return static_cast<size_t>(node) < options.claimable_alone.size() &&
           options.claimable_alone[static_cast<size_t>(node)];
  }

  void Decline(ir::NodeId node, int32_t round, std::string reason) {
    placement.declines[node].push_back(EpDecline{round, std::move(reason)});
  }

  // Nodes this round may not take: claimed earlier, run by the runtime (unless `claimer` and
  // claimable alone), or excluded for this EP (recorded).
  std::vector<bool> Unavailable(int32_t round, const std::string& name, bool claimer) {
    const int32_t n = claims.node_count();
    std::vector<bool> unavailable(n, false);
    for (int32_t v = 0; v < n; ++v) {
      if (claims.claim_of(v) >= 0 || EarlierEp(v) >= 0 ||
          (IsRuntimeNode(v) && !(claimer && ClaimableAlone(v)))) {
        unavailable[v] = true;
        continue;
      }
      if (!options.exclude) continue;
      std::optional<std::string> why = options.exclude(name, infos[v]);
      if (!why) continue;
      unavailable[v] = true;
      Decline(v, round, "excluded: " + *why);
    }
    return unavailable;
  }

  void ClaimByProposals(int32_t round, const Round& r, GraphClaimer& claimer,
                        const std::vector<bool>& unavailable);
  Status ClaimBySupports(int32_t round, const Round& r, const std::vector<bool>& unavailable);
};

void Placer::ClaimByProposals(int32_t round, const Round& r, GraphClaimer& claimer,
                              const std::vector<bool>& unavailable) {
  const int32_t n = claims.node_count();
  std::vector<std::string> assigned;
  if (!options.earlier_ep.empty()) {
    assigned.assign(n, std::string());
    for (int32_t v = 0; v < n; ++v) {
      if (EarlierEp(v) >= 0) assigned[v] = std::string(rounds[EarlierEp(v)].ep->type_name());
    }
  }
  Result<GraphClaims> proposed = claimer.ProposeClaims(view, unavailable, assigned);
  if (!proposed.ok()) {
    const std::string why = "failed to propose claims: " + proposed.status().ToString();
    placement.rejected.push_back(RejectedClaim{round, {}, why});
    for (int32_t v = 0; v < n; ++v) {
      if (!unavailable[v]) Decline(v, round, why);
    }
    return;
  }
  std::vector<std::string> notes(n);
  for (const RejectedProposal& bad : proposed->rejected) {
    placement.rejected.push_back(RejectedClaim{round, bad.nodes, bad.reason});
    for (ir::NodeId node : bad.nodes) {
      if (node >= 0 && node < n && !unavailable[node]) {
        notes[node] = "its proposed claim was rejected: " + bad.reason;
      }
    }
  }
  for (const auto& [node, reason] : proposed->declined) {
    if (node >= 0 && node < n && notes[node].empty()) notes[node] = reason;
  }
  for (const ProposedClaim& proposal : proposed->claims) {
    Status status = claims.Validate(proposal.nodes);
    for (ir::NodeId node : proposal.nodes) {
      if (!status.ok() || !ClaimableAlone(node) || (!proposal.fused && proposal.nodes.size() == 1)) {
        continue;
      }
      status = MakeStatus(StatusCode::kInvalidArgument, "node ", claims.NodeName(node),
                          " holds subgraphs: an EP claims it alone with "
                          "EpGraphSupportInfo_AddSingleNode (its kernel from "
                          "OrtEpApi::Create*Kernel), never in a fused group");
    }
    if (status.ok()) {
      for (ir::NodeId node : proposal.nodes) {
        if (!unavailable[node]) continue;
        status = MakeStatus(StatusCode::kInvalidArgument, "node ", claims.NodeName(node),
                            " is excluded from ep '", r.name, "'");
        break;
      }
    }
    if (!status.ok()) {
      placement.rejected.push_back(RejectedClaim{round, proposal.nodes, status.message()});
      for (ir::NodeId node : proposal.nodes) {
        if (node >= 0 && node < n && !unavailable[node] && claims.claim_of(node) < 0) {
          notes[node] = "its proposed claim was rejected: " + status.message();
        }
      }
      continue;
    }
    claims.Add(r.name, proposal.nodes);
    facts.push_back(ClaimFacts{round, proposal.fused, 0.0});
  }
  for (int32_t v = 0; v < n; ++v) {
    if (unavailable[v] || claims.claim_of(v) >= 0) continue;
    if (IsRuntimeNode(v) && notes[v].empty()) continue;  // the runtime runs it: nothing to say
    Decline(v, round, notes[v].empty() ? "not claimed by the EP" : notes[v]);
  }
}

Status Placer::ClaimBySupports(int32_t round, const Round& r,
                               const std::vector<bool>& unavailable) {
  NXRT_ASSIGN_OR_RETURN(ClaimSet::Units units, claims.BuildUnits());
  const int32_t num_units = units.dag.size();
  std::vector<UnitRole> roles(num_units, UnitRole::kBlocked);
  std::vector<double> cost(claims.node_count(), 0.0);
  for (int32_t u : units.dag.order) {
    const ir::NodeId node = units.node_of_unit[u];
    if (node == ir::kNoNode || unavailable[node]) continue;
    KernelMatch match = r.ep->Supports(infos[node]);
    if (!match.supported()) {
      Decline(node, round,
              match.reason().empty() ? std::string("declined without a reason") : match.reason());
      continue;
    }
    cost[node] = match.cost();
    roles[u] = infos[node].has_subgraphs() ? UnitRole::kSingle : UnitRole::kCandidate;
  }
  for (const std::vector<int32_t>& group : PartitionDag(units.dag, roles)) {
    std::vector<ir::NodeId> nodes;
    double total = 0;
    for (int32_t u : group) {
      nodes.push_back(units.node_of_unit[u]);
      total += cost[units.node_of_unit[u]];
    }
    claims.Add(r.name, nodes);
    facts.push_back(ClaimFacts{round, false, total});
  }
  return Status::Ok();
}

std::string GraphName(const ir::GraphView& view) {
  return view.graph().name.empty() ? std::string("(unnamed)") : view.graph().name;
}

}  // namespace

Result<Placement> PlaceGraph(const ir::GraphView& view, const EpRegistry& eps,
                             const PlacementOptions& options) {
  std::vector<Round> rounds;
  for (const EpRegistry::Entry& entry : eps.entries()) {
    if (!entry.initialized) {
      return MakeStatus(StatusCode::kFailedPrecondition, "ep '", entry.name,
                        "' is not initialized; call EpRegistry::InitializeAll before placing");
    }
    rounds.push_back(Round{entry.name, entry.provider.get()});
  }
  if (options.last_resort != nullptr) {
    bool listed = false;
    for (const Round& r : rounds) listed = listed || r.ep == options.last_resort;
    if (!listed) {
      rounds.push_back(Round{options.last_resort_name.empty() ? options.last_resort->type_name()
                                                              : options.last_resort_name,
                             options.last_resort});
    }
  }

  Placer placer{view, options, rounds, {}, ClaimSet(view), {}, {}};
  const int32_t n = placer.claims.node_count();
  NodeInfoBuilder builder(view);
  placer.infos.reserve(n);
  for (int32_t v = 0; v < n; ++v) placer.infos.push_back(builder.Node(v));
  Placement& placement = placer.placement;
  placement.declines.assign(n, {});
  for (const Round& r : rounds) placement.eps.push_back(r.name);

  for (int32_t round = 0; round < static_cast<int32_t>(rounds.size()); ++round) {
    const Round& r = rounds[round];
    for (int32_t v = 0; v < n; ++v) {
      if (placer.EarlierEp(v) != round || placer.IsRuntimeNode(v)) continue;
      placer.claims.Add(r.name, std::vector<ir::NodeId>{v});
      placer.facts.push_back(ClaimFacts{round, false, 0.0});
    }
    GraphClaimer* claimer = r.ep->GetExtension<GraphClaimer>();
    std::vector<bool> unavailable = placer.Unavailable(round, r.name, claimer != nullptr);
    if (claimer != nullptr) {
      placer.ClaimByProposals(round, r, *claimer, unavailable);
    } else {
      NXRT_RETURN_IF_ERROR(placer.ClaimBySupports(round, r, unavailable));
    }
  }

  placement.claim_of_node = placer.claims.claim_of();
  placement.claims.resize(placer.claims.size());
  std::vector<Claim> plain(placer.claims.size());
  for (int32_t k = 0; k < static_cast<int32_t>(plain.size()); ++k) {
    plain[k].nodes = placer.claims.nodes(k);
  }
  ComputeBoundaries(view, placement.claim_of_node, plain);
  for (size_t k = 0; k < plain.size(); ++k) {
    const ClaimFacts& f = placer.facts[k];
    placement.claims[k] = PlacedClaim{f.ep, f.fused, f.cost, std::move(plain[k])};
  }
  for (ir::NodeId v : view.topological_order()) {
    if (placement.claim_of_node[v] >= 0) continue;
    if (placer.IsRuntimeNode(v)) {
      placement.runtime.push_back(v);
    } else {
      placement.unplaced.push_back(v);
    }
  }
  if (!placement.complete() && !options.allow_unplaced) {
    bool cpu_ep_asked = false;
    for (const Round& r : rounds) cpu_ep_asked = cpu_ep_asked || r.ep->type_name() == "cpu";
    return UnplacedError(placement, view, cpu_ep_asked);
  }
  return std::move(placement);
}

Status UnplacedError(const Placement& placement, const ir::GraphView& view, bool cpu_ep_asked) {
  if (placement.complete()) return Status::Ok();
  const ir::Graph& graph = view.graph();
  std::string message = "cannot place " + std::to_string(placement.unplaced.size()) + " of " +
                        std::to_string(graph.nodes.size()) + " nodes of graph '" + GraphName(view) +
                        "': no execution provider runs them";
  if (placement.eps.empty()) message += " (no execution provider was given)";
  for (ir::NodeId v : placement.unplaced) {
    const ir::Node& node = graph.nodes[v];
    message += "\n  #" + std::to_string(v) + ":" + node.op_type + ":" + node.name + " (";
    if (!node.domain.empty()) message += node.domain + ":";
    message += node.op_type + ", opset " + std::to_string(view.opset(v)) + ")";
    for (const EpDecline& d : placement.declines[v]) {
      message += "\n    " + placement.eps[d.ep] + ": " + d.reason;
    }
  }
  message += cpu_ep_asked
                 ? "\nfix: put an EP that implements these ops in the EP list (e.g. --ep "
                   "plugin:PATH), or change the model to avoid them (the CPU EP was asked too)"
                 : "\nfix: put an EP that implements these ops in the EP list (e.g. --ep "
                   "plugin:PATH), allow the CPU EP fallback, or change the model to avoid them";
  return Status(StatusCode::kUnsupported, std::move(message));
}

}  // namespace nxrt::ep
