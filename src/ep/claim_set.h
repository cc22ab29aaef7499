// ep/claim_set.h: the claims placed so far on one graph; validation of claims that come from
// outside (plugin EPs); the graph of units the partitioner sees for the next EP.
//
// Layer: nxrt_ep. Placement (ep/placement.h) keeps one ClaimSet per graph. Claims made by the
// partitioner are valid by construction and added directly; claims proposed by an EP
// (ep/graph_claimer.h) go through Validate first, which never crashes on bad input: every
// problem becomes a Status naming the node and the fix.
//
// The validity rule is the partitioner's: with every existing claim contracted to one vertex,
// adding the new claim must keep the graph acyclic, i.e. no path may leave the new claim and
// come back, whether through unclaimed nodes or through other claims.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ep/partitioner.h"
#include "ir/graph_view.h"
#include "nxrt/status.h"

namespace nxrt::ep {

class ClaimSet {
 public:
  // `view` must outlive the ClaimSet. O(V + E).
  explicit ClaimSet(const ir::GraphView& view);

  int32_t node_count() const { return static_cast<int32_t>(claim_of_.size()); }
  // The claim holding `node`, or -1.
  int32_t claim_of(ir::NodeId node) const { return claim_of_[node]; }
  const std::vector<int32_t>& claim_of() const { return claim_of_; }
  size_t size() const { return claims_.size(); }
  // The nodes of claim `k` in topological order, and who holds it (an EP name).
  const std::vector<ir::NodeId>& nodes(int32_t k) const { return claims_[k]; }
  const std::string& owner(int32_t k) const { return owners_[k]; }
  // Position of `node` in the view's topological order.
  int32_t position(ir::NodeId node) const { return position_[node]; }

  // Ok when `nodes` may become a claim. Errors (kInvalidArgument), one per kind of problem,
  // checked in this order:
  //   "the claim is empty"
  //   "node id 57 does not exist; the graph has 40 nodes (ids 0..39)"
  //   "node #3:Add:B is listed twice"
  //   "node #3:Add:B is already claimed by 'gpu' (claim 2)"
  //   "node #4:If:cond holds subgraphs and can only be claimed alone (the claim has 3 nodes)"
  //   "the nodes are not convex: the path #0:Add:A -> #1:Custom:U -> #2:Add:B leaves the claim
  //    and re-enters it; claim the nodes in between too, or split the claim there"
  // O(V + E) for a claim of two or more nodes; O(1) per node otherwise.
  Status Validate(std::span<const ir::NodeId> nodes) const;

  // Adds a claim held by `owner` (not validated: the caller validated it or the partitioner
  // made it). Returns its index.
  int32_t Add(std::string owner, std::span<const ir::NodeId> nodes);

  // The DAG of units for partitioning the unclaimed nodes: one unit per unclaimed node, one per
  // claim. Unit ids follow the first appearance of their nodes in topological order; the order
  // is Kahn's algorithm taking the smallest id first (without claims: the node order itself).
  struct Units {
    Dag dag;
    std::vector<int32_t> unit_of_node;
    std::vector<ir::NodeId> node_of_unit;  // ir::kNoNode for a claim's unit
  };
  // Errors: kInternal if the claims made the unit graph cyclic (an invariant broken).
  Result<Units> BuildUnits() const;

  // "#3:Add:B".
  std::string NodeName(ir::NodeId node) const;

 private:
  std::span<const int32_t> successors(int32_t node) const {
    return {succs_.data() + succ_offsets_[node], succs_.data() + succ_offsets_[node + 1]};
  }
  // For Validate: a path from the claim back into it, or empty when there is none.
  std::vector<ir::NodeId> FindReentry(const std::vector<uint8_t>& in_claim,
                                      std::span<const ir::NodeId> nodes) const;

  const ir::GraphView* view_;
  Dag dag_;
  std::vector<int32_t> position_;
  std::vector<int32_t> succ_offsets_;
  std::vector<int32_t> succs_;
  std::vector<int32_t> claim_of_;
  std::vector<std::vector<ir::NodeId>> claims_;
  std::vector<std::string> owners_;
};

}  // namespace nxrt::ep
