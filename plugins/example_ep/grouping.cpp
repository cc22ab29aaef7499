// plugins/example_ep/grouping.cpp: greedy convex grouping in topological order.
//
// Each node i carries reach[i]: the groups (by id at the time) with a member that is i or an
// ancestor of i. A candidate union U of groups plus a new node n is convex iff for every member y
// of U and every producer p of y outside U, no group of U is in reach[p]: such a group would
// reach y through p, leaving U and coming back. Ids merge through a union-find, so reach sets
// recorded before a merge stay valid.
#include "example_ep/grouping.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace nxrt_example_ep {
namespace {

class Grouper {
 public:
  Grouper(const std::vector<std::vector<size_t>>& producers, size_t max_group_size)
      : producers_(producers),
        max_group_size_(max_group_size),
        group_of_(producers.size(), kNoGroup),
        reach_(producers.size()) {}

  void AddUnsupported(size_t node) { reach_[node] = ProducerReach(node); }

  void AddSupported(size_t node) {
    std::set<size_t> candidates;
    for (size_t p : producers_[node]) {
      if (group_of_[p] != kNoGroup) candidates.insert(Find(group_of_[p]));
    }
    std::set<size_t> chosen;
    size_t size = 1;
    for (size_t candidate : candidates) {
      const size_t grown = size + members_[candidate].size();
      if (max_group_size_ != 0 && grown > max_group_size_) continue;
      std::set<size_t> trial = chosen;
      trial.insert(candidate);
      if (!IsConvex(trial, node)) continue;
      chosen = std::move(trial);
      size = grown;
    }
    size_t group;
    if (chosen.empty()) {
      group = parent_.size();
      parent_.push_back(group);
      members_.emplace_back();
    } else {
      group = *chosen.begin();
      for (size_t other : chosen) {
        if (other == group) continue;
        parent_[other] = group;
        members_[group].insert(members_[group].end(), members_[other].begin(),
                               members_[other].end());
        members_[other].clear();
      }
    }
    members_[group].push_back(node);
    group_of_[node] = group;
    reach_[node] = ProducerReach(node);
    reach_[node].insert(group);
  }

  std::vector<std::vector<size_t>> Groups() {
    std::vector<std::vector<size_t>> groups;
    for (size_t g = 0; g < members_.size(); ++g) {
      if (Find(g) != g || members_[g].empty()) continue;
      std::vector<size_t> group = members_[g];
      std::sort(group.begin(), group.end());
      groups.push_back(std::move(group));
    }
    std::sort(groups.begin(), groups.end());
    return groups;
  }

 private:
  static constexpr size_t kNoGroup = static_cast<size_t>(-1);

  size_t Find(size_t group) {
    while (parent_[group] != group) {
      parent_[group] = parent_[parent_[group]];
      group = parent_[group];
    }
    return group;
  }

  std::set<size_t> ProducerReach(size_t node) const {
    std::set<size_t> reach;
    for (size_t p : producers_[node]) reach.insert(reach_[p].begin(), reach_[p].end());
    return reach;
  }

  // Whether the groups `roots` plus `node` (not yet grouped) form a convex set.
  bool IsConvex(const std::set<size_t>& roots, size_t node) {
    auto inside = [&](size_t v) {
      return v == node || (group_of_[v] != kNoGroup && roots.count(Find(group_of_[v])) != 0);
    };
    auto leaves_and_returns = [&](size_t member) {
      for (size_t p : producers_[member]) {
        if (inside(p)) continue;
        for (size_t g : reach_[p]) {
          if (roots.count(Find(g)) != 0) return true;
        }
      }
      return false;
    };
    if (leaves_and_returns(node)) return false;
    for (size_t root : roots) {
      for (size_t member : members_[root]) {
        if (leaves_and_returns(member)) return false;
      }
    }
    return true;
  }

  const std::vector<std::vector<size_t>>& producers_;
  const size_t max_group_size_;
  std::vector<size_t> group_of_;            // per node: the group id it joined, or kNoGroup
  std::vector<std::set<size_t>> reach_;     // per node: group ids reaching it (see file comment)
  std::vector<size_t> parent_;              // union-find over group ids
  std::vector<std::vector<size_t>> members_;  // per root group id: its nodes
};

}  // namespace

std::vector<std::vector<size_t>> GroupConvex(const std::vector<std::vector<size_t>>& producers,
                                             const std::vector<bool>& supported,
                                             size_t max_group_size) {
  Grouper grouper(producers, max_group_size);
  for (size_t node = 0; node < producers.size(); ++node) {
    if (supported[node]) {
      grouper.AddSupported(node);
    } else {
      grouper.AddUnsupported(node);
    }
  }
  return grouper.Groups();
}

}  // namespace nxrt_example_ep
