// ep/claim_set.cpp: claims on one graph, their validation and the unit graph (ep/claim_set.h).
//
// Layer: nxrt_ep.
#include "ep/claim_set.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace nxrt::ep {
namespace {

// Paths longer than this are shown as their first and last nodes around "...".
constexpr size_t kMaxPathShown = 8;

}  // namespace

ClaimSet::ClaimSet(const ir::GraphView& view)
    : view_(&view), dag_(BuildNodeDag(view)), claim_of_(view.graph().nodes.size(), -1) {
  const int32_t n = dag_.size();
  position_.assign(n, 0);
  for (int32_t i = 0; i < n; ++i) position_[dag_.order[i]] = i;
  succ_offsets_.assign(n + 1, 0);
  for (int32_t u : dag_.preds) ++succ_offsets_[u + 1];
  for (int32_t i = 0; i < n; ++i) succ_offsets_[i + 1] += succ_offsets_[i];
  succs_.resize(dag_.preds.size());
  std::vector<int32_t> fill(succ_offsets_.begin(), succ_offsets_.end() - 1);
  for (int32_t v = 0; v < n; ++v) {
    for (int32_t u : dag_.predecessors(v)) succs_[fill[u]++] = v;
  }
}

std::string ClaimSet::NodeName(ir::NodeId node) const {
  const ir::Node& n = view_->graph().nodes[node];
  std::string out = "#";
  out += std::to_string(node);
  out += ":" + n.op_type + ":" + n.name;
  return out;
}

std::vector<ir::NodeId> ClaimSet::FindReentry(const std::vector<uint8_t>& in_claim,
                                              std::span<const ir::NodeId> nodes) const {
  constexpr int32_t kUnvisited = -2;
  std::vector<int32_t> parent(node_count(), kUnvisited);
  std::vector<uint8_t> expanded(claims_.size(), 0);
  std::vector<int32_t> queue;
  // Entering an existing claim reaches all of it: it runs as one unit.
  auto visit = [&](int32_t x, int32_t from) {
    if (parent[x] != kUnvisited) return;
    parent[x] = from;
    queue.push_back(x);
    int32_t k = claim_of_[x];
    if (k < 0 || expanded[k]) return;
    expanded[k] = 1;
    for (ir::NodeId m : claims_[k]) {
      if (parent[m] != kUnvisited) continue;
      parent[m] = x;
      queue.push_back(m);
    }
  };
  for (ir::NodeId c : nodes) {
    for (int32_t s : successors(c)) {
      if (!in_claim[s]) visit(s, c);
    }
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const int32_t x = queue[head];
    for (int32_t s : successors(x)) {
      if (!in_claim[s]) {
        visit(s, x);
        continue;
      }
      std::vector<ir::NodeId> path{s};
      int32_t p = x;
      while (!in_claim[p]) {
        path.push_back(p);
        p = parent[p];
      }
      path.push_back(p);
      std::reverse(path.begin(), path.end());
      return path;
    }
  }
  return {};
}

Status ClaimSet::Validate(std::span<const ir::NodeId> nodes) const {
  const int32_t n = node_count();
  if (nodes.empty()) return Status(StatusCode::kInvalidArgument, "the claim is empty");
  for (ir::NodeId node : nodes) {
    if (node < 0 || node >= n) {
      return MakeStatus(StatusCode::kInvalidArgument, "node id ", node,
                        " does not exist; the graph has ", n, " nodes",
                        n > 0 ? " (ids 0.." + std::to_string(n - 1) + ")" : std::string());
    }
  }
  std::vector<ir::NodeId> sorted(nodes.begin(), nodes.end());
  std::sort(sorted.begin(), sorted.end());
  auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (twice != sorted.end()) {
    return MakeStatus(StatusCode::kInvalidArgument, "node ", NodeName(*twice), " is listed twice");
  }
  for (ir::NodeId node : nodes) {
    int32_t k = claim_of_[node];
    if (k >= 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "node ", NodeName(node),
                        " is already claimed by '", owners_[k], "' (claim ", k, ")");
    }
  }
  if (nodes.size() == 1) return Status::Ok();
  for (ir::NodeId node : nodes) {
    if (view_->graph().nodes[node].HasSubgraphs()) {
      return MakeStatus(StatusCode::kInvalidArgument, "node ", NodeName(node),
                        " holds subgraphs and can only be claimed alone (the claim has ",
                        nodes.size(), " nodes)");
    }
  }
  std::vector<uint8_t> in_claim(n, 0);
  for (ir::NodeId node : nodes) in_claim[node] = 1;
  std::vector<ir::NodeId> path = FindReentry(in_claim, nodes);
  if (path.empty()) return Status::Ok();

  std::string shown;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path.size() > kMaxPathShown && i == kMaxPathShown / 2) {
      shown += " -> ...";
      i = path.size() - kMaxPathShown / 2;
    }
    if (i) shown += " -> ";
    shown += NodeName(path[i]);
    int32_t k = claim_of_[path[i]];
    if (k >= 0) shown += " (in claim " + std::to_string(k) + " of '" + owners_[k] + "')";
  }
  return MakeStatus(StatusCode::kInvalidArgument, "the nodes are not convex: the path ", shown,
                    " leaves the claim and re-enters it; claim the nodes in between too, or "
                    "split the claim there");
}

int32_t ClaimSet::Add(std::string owner, std::span<const ir::NodeId> nodes) {
  const int32_t k = static_cast<int32_t>(claims_.size());
  std::vector<ir::NodeId> sorted(nodes.begin(), nodes.end());
  std::sort(sorted.begin(), sorted.end(),
            [&](ir::NodeId a, ir::NodeId b) { return position_[a] < position_[b]; });
  for (ir::NodeId node : sorted) claim_of_[node] = k;
  claims_.push_back(std::move(sorted));
  owners_.push_back(std::move(owner));
  return k;
}

Result<ClaimSet::Units> ClaimSet::BuildUnits() const {
  const int32_t n = node_count();
  Units units;
  units.unit_of_node.assign(n, -1);
  std::vector<int32_t> unit_of_claim(claims_.size(), -1);
  for (int32_t v : dag_.order) {
    int32_t k = claim_of_[v];
    if (k < 0) {
      units.unit_of_node[v] = static_cast<int32_t>(units.node_of_unit.size());
      units.node_of_unit.push_back(v);
      continue;
    }
    if (unit_of_claim[k] < 0) {
      unit_of_claim[k] = static_cast<int32_t>(units.node_of_unit.size());
      units.node_of_unit.push_back(ir::kNoNode);
    }
    units.unit_of_node[v] = unit_of_claim[k];
  }
  const int32_t num_units = static_cast<int32_t>(units.node_of_unit.size());

  // Predecessor lists by unit (counting sort), without edges inside one unit.
  Dag& dag = units.dag;
  dag.pred_offsets.assign(num_units + 1, 0);
  for (int32_t v = 0; v < n; ++v) {
    for (int32_t u : dag_.predecessors(v)) {
      if (units.unit_of_node[u] != units.unit_of_node[v])
        ++dag.pred_offsets[units.unit_of_node[v] + 1];
    }
  }
  for (int32_t i = 0; i < num_units; ++i) dag.pred_offsets[i + 1] += dag.pred_offsets[i];
  dag.preds.resize(dag.pred_offsets[num_units]);
  std::vector<int32_t> fill(dag.pred_offsets.begin(), dag.pred_offsets.end() - 1);
  std::vector<int32_t> pending(num_units, 0);
  std::vector<std::vector<int32_t>> succs(num_units);
  for (int32_t v : dag_.order) {
    const int32_t uv = units.unit_of_node[v];
    for (int32_t u : dag_.predecessors(v)) {
      const int32_t uu = units.unit_of_node[u];
      if (uu == uv) continue;
      dag.preds[fill[uv]++] = uu;
      succs[uu].push_back(uv);
      ++pending[uv];
    }
  }

  std::priority_queue<int32_t, std::vector<int32_t>, std::greater<>> ready;
  for (int32_t u = 0; u < num_units; ++u) {
    if (pending[u] == 0) ready.push(u);
  }
  dag.order.reserve(num_units);
  while (!ready.empty()) {
    int32_t u = ready.top();
    ready.pop();
    dag.order.push_back(u);
    for (int32_t s : succs[u]) {
      if (--pending[s] == 0) ready.push(s);
    }
  }
  if (dag.size() != num_units) {
    return MakeStatus(StatusCode::kInternal, "the placed claims form a cycle (", num_units,
                      " units, ", dag.size(), " ordered); a claim was added without validation");
  }
  return units;
}

}  // namespace nxrt::ep
