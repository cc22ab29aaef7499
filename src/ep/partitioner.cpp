// ep/partitioner.cpp: the level-certified convex partitioner (ep/partitioner.h,
// docs/partitioning.md).
//
// Layer: nxrt_ep. O((V + E) α(V)) time, O(V) extra memory.
#include "ep/partitioner.h"

#include <algorithm>
#include <numeric>

namespace nxrt::ep {
namespace {

// Union-find over units with path halving and union by size.
class DisjointSets {
 public:
  explicit DisjointSets(int32_t n) : parent_(n), size_(n, 1) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int32_t Find(int32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  // Joins the sets of roots a and b; returns the new root.
  int32_t Union(int32_t a, int32_t b) {
    if (a == b) return a;
    if (size_[a] < size_[b]) std::swap(a, b);
    parent_[b] = a;
    size_[a] += size_[b];
    return a;
  }

 private:
  std::vector<int32_t> parent_;
  std::vector<int32_t> size_;
};

}  // namespace

Dag BuildNodeDag(const ir::GraphView& view) {
  const ir::Graph& graph = view.graph();
  const int32_t n = static_cast<int32_t>(graph.nodes.size());
  Dag dag;
  dag.order = view.topological_order();
  dag.pred_offsets.assign(n + 1, 0);
  for (int32_t v = 0; v < n; ++v) {
    dag.pred_offsets[v] = static_cast<int32_t>(dag.preds.size());
    for (ir::ValueId value : graph.nodes[v].inputs) {
      if (value == ir::kNoValue) continue;
      ir::NodeId producer = view.producer(value);
      if (producer != ir::kNoNode) dag.preds.push_back(producer);
    }
    for (ir::ValueId value : view.implicit_inputs(v)) {
      ir::NodeId producer = view.producer(value);
      if (producer != ir::kNoNode) dag.preds.push_back(producer);
    }
  }
  dag.pred_offsets[n] = static_cast<int32_t>(dag.preds.size());
  return dag;
}

std::vector<std::vector<int32_t>> PartitionDag(const Dag& dag, std::span<const UnitRole> roles) {
  const int32_t n = dag.size();
  DisjointSets sets(n);
  // level[r] and outside_edges[r] are meaningful for roots r (every non-candidate unit is one).
  // outside_edges counts edges from the partition to visited units outside it.
  std::vector<int32_t> level(n, 0);
  std::vector<int64_t> outside_edges(n, 0);
  std::vector<int32_t> seen_at(n, -1);  // root → the unit whose predecessors last listed it
  std::vector<int32_t> joining;

  for (int32_t v : dag.order) {
    const bool candidate = roles[v] == UnitRole::kCandidate;
    const std::span<const int32_t> preds = dag.predecessors(v);
    int32_t v_level = 0;
    for (int32_t u : preds) {
      int32_t r = sets.Find(u);
      int32_t step = (candidate && roles[r] != UnitRole::kCandidate) ? 1 : 0;
      v_level = std::max(v_level, level[r] + step);
    }
    level[v] = v_level;

    if (candidate) {
      joining.clear();
      for (int32_t u : preds) {
        int32_t r = sets.Find(u);
        if (roles[r] != UnitRole::kCandidate || seen_at[r] == v) continue;
        seen_at[r] = v;
        // (a) same level: no path through a non-candidate joins r and v.
        // (b) no edge from r to a visited unit outside r: every path out of r starts at v.
        if (level[r] == v_level || outside_edges[r] == 0) joining.push_back(r);
      }
      int32_t root = v;
      int64_t outside = 0;
      for (int32_t r : joining) {
        outside += outside_edges[r];
        root = sets.Union(root, r);
      }
      level[root] = v_level;
      outside_edges[root] = outside;
    }

    const int32_t v_root = sets.Find(v);
    for (int32_t u : preds) {
      int32_t r = sets.Find(u);
      if (roles[r] == UnitRole::kCandidate && r != v_root) ++outside_edges[r];
    }
  }

  std::vector<std::vector<int32_t>> groups;
  std::vector<int32_t> group_of_root(n, -1);
  for (int32_t v : dag.order) {
    if (roles[v] == UnitRole::kBlocked) continue;
    int32_t r = roles[v] == UnitRole::kCandidate ? sets.Find(v) : v;
    if (group_of_root[r] < 0) {
      group_of_root[r] = static_cast<int32_t>(groups.size());
      groups.emplace_back();
    }
    groups[group_of_root[r]].push_back(v);
  }
  return groups;
}

void ComputeBoundaries(const ir::GraphView& view, std::span<const int32_t> claim_of,
                       std::span<Claim> claims) {
  const ir::Graph& graph = view.graph();
  const size_t num_values = graph.values.size();
  std::vector<bool> is_graph_output(num_values, false);
  for (ir::ValueId v : graph.outputs) {
    if (v >= 0 && static_cast<size_t>(v) < num_values) is_graph_output[v] = true;
  }
  std::vector<int32_t> input_of(num_values, -1);  // value → last claim that listed it as input

  for (size_t k = 0; k < claims.size(); ++k) {
    const int32_t index = static_cast<int32_t>(k);
    Claim& claim = claims[k];
    claim.inputs.clear();
    claim.outputs.clear();
    auto add_input = [&](ir::ValueId value) {
      if (value == ir::kNoValue) return;
      ir::NodeId producer = view.producer(value);
      if (producer != ir::kNoNode && claim_of[producer] == index) return;
      if (input_of[value] == index) return;
      input_of[value] = index;
      claim.inputs.push_back(value);
    };
    for (ir::NodeId node : claim.nodes) {
      for (ir::ValueId value : graph.nodes[node].inputs) add_input(value);
      for (ir::ValueId value : view.implicit_inputs(node)) add_input(value);
    }
    for (ir::NodeId node : claim.nodes) {
      for (ir::ValueId value : graph.nodes[node].outputs) {
        if (value == ir::kNoValue) continue;
        bool leaves = is_graph_output[value];
        for (const ir::Consumer& use : view.consumers(value)) {
          if (leaves) break;
          leaves = claim_of[use.node] != index;
        }
        if (leaves) claim.outputs.push_back(value);
      }
    }
  }
}

std::vector<Claim> PartitionGraph(const ir::GraphView& view, const NodePredicate& supported,
                                  const PartitionOptions& options) {
  const ir::Graph& graph = view.graph();
  const int32_t n = static_cast<int32_t>(graph.nodes.size());
  Dag dag = BuildNodeDag(view);
  std::vector<UnitRole> roles(n, UnitRole::kBlocked);
  for (int32_t v = 0; v < n; ++v) {
    if (options.exclude && options.exclude(v)) continue;
    if (!supported(v)) continue;
    roles[v] = graph.nodes[v].HasSubgraphs() ? UnitRole::kSingle : UnitRole::kCandidate;
  }
  std::vector<std::vector<int32_t>> groups = PartitionDag(dag, roles);

  std::vector<Claim> claims(groups.size());
  std::vector<int32_t> claim_of(n, -1);
  for (size_t k = 0; k < groups.size(); ++k) {
    claims[k].nodes = std::move(groups[k]);
    for (ir::NodeId node : claims[k].nodes) claim_of[node] = static_cast<int32_t>(k);
  }
  ComputeBoundaries(view, claim_of, claims);
  return claims;
}

}  // namespace nxrt::ep
