// ep/partitioner.h: the convex partitioner: the nodes one EP supports → deterministic claims.
//
// Layer: nxrt_ep. A free function, not part of any EP: EPs only answer Supports(node), and
// placement (ep/placement.h) calls this once per EP over the nodes still unplaced.
//
// A claim is a set of nodes that will run as one unit on one EP. Claims must be convex: no path
// leaves a claim and re-enters it, and more strongly the quotient graph (every claim contracted
// to one vertex, every other node its own vertex) must stay acyclic, or no order could run
// the claims. The partitioner merges supported nodes along edges, and merges two partitions
// joined by an edge only when no other path joins them. Deciding "no other path" exactly is
// general DAG reachability (superlinear), so the test is a certificate kept incrementally:
//
//   Nodes are visited in topological order. Every partition (and every other node) carries a
//   level. A node's level is the maximum over its predecessors u of level(partition of u), plus
//   one when u is not a candidate (unsupported, excluded, claimed elsewhere, or a node with
//   subgraphs) and the node itself is. A candidate v joins every candidate predecessor
//   partition P that
//     (a) has v's level (then a path P ~> u ~> v through a non-candidate u would have raised v's
//         level above P's), or
//     (b) has no edge to any already visited node outside P (then every path out of P starts
//         with an edge to v itself); P is lifted to v's level.
//   Every other predecessor partition stays apart.
//
// Invariants after each node: levels never decrease along an edge of the quotient and rise on
// every edge from a non-candidate into a candidate partition; no edge joins two different
// candidate partitions of one level. So a quotient cycle would need a level-preserving cycle of
// candidate partitions, which has an edge between two of them: impossible. Cost:
// O((V + E) α(V)) with union-find; a partition's "edges to visited nodes outside" is one
// counter. The result depends only on the graph and the roles, never on hash or pointer order.
// Full argument, examples, and the shapes where the test declines a merge that would have been
// safe: docs/partitioning.md.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "ir/graph_view.h"
#include "nxrt/status.h"

namespace nxrt::ep {

// A DAG of units (nodes, or existing claims contracted to one unit) given by predecessor lists.
struct Dag {
  std::vector<int32_t> order;         // every unit once, each after all of its predecessors
  std::vector<int32_t> pred_offsets;  // size() + 1 entries; CSR row starts
  std::vector<int32_t> preds;         // preds of u: preds[pred_offsets[u] .. pred_offsets[u+1])

  int32_t size() const { return static_cast<int32_t>(order.size()); }
  std::span<const int32_t> predecessors(int32_t unit) const {
    return {preds.data() + pred_offsets[unit], preds.data() + pred_offsets[unit + 1]};
  }
};

// The node DAG of a graph: unit i is node i; an edge u → v for each input (explicit, or
// implicit through v's subgraphs) of v that u produces (one entry per such input); the order is
// the view's deterministic topological order.
Dag BuildNodeDag(const ir::GraphView& view);

// What the partitioner may do with a unit.
enum class UnitRole : uint8_t {
  kBlocked,    // never claimed: unsupported, excluded, or already claimed by another EP
  kCandidate,  // supported; grouped with neighbouring candidates when that keeps claims convex
  kSingle,     // supported but claimed alone (a node holding subgraphs: If, Loop, Scan)
};

// Groups the kCandidate units of `dag` as described above. Returns the groups: each lists its
// units in dag.order order; groups are ordered by the position of their first unit; a kSingle
// unit is a group of its own; kBlocked units are in no group. `roles` has dag.size() entries.
std::vector<std::vector<int32_t>> PartitionDag(const Dag& dag, std::span<const UnitRole> roles);

// A claim on the IR.
struct Claim {
  std::vector<ir::NodeId> nodes;  // in topological order
  // Values the claim reads but does not produce (graph inputs, initializers, outer-scope values,
  // outputs of other nodes), each once, in order of first use (node order, then input slot,
  // then implicit inputs of subgraphs by id).
  std::vector<ir::ValueId> inputs;
  // Values the claim produces that a node outside it reads (explicitly or from a subgraph) or
  // that are graph outputs, each once, in node order then output slot.
  std::vector<ir::ValueId> outputs;
};

// Fills the inputs and outputs of `claims` from their nodes. `claim_of[node]` is the index in
// `claims` of the claim holding the node, or -1. O(V + E) for all claims together.
void ComputeBoundaries(const ir::GraphView& view, std::span<const int32_t> claim_of,
                       std::span<Claim> claims);

using NodePredicate = std::function<bool(ir::NodeId)>;

struct PartitionOptions {
  // When set, nodes it returns true for are never claimed; claims form around them.
  NodePredicate exclude;
};

// The claims of one EP on `view`'s graph: the nodes `supported` accepts (and `exclude` does not)
// grouped by PartitionDag, nodes with subgraphs alone, with boundaries. Deterministic: the same
// graph and predicates give identical claims on every run.
std::vector<Claim> PartitionGraph(const ir::GraphView& view, const NodePredicate& supported,
                                  const PartitionOptions& options = {});

}  // namespace nxrt::ep
