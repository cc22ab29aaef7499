// plugins/example_ep/grouping.h: partition a graph's supported nodes into convex groups.
//
// Layer: test plugin nxrt_example_ep; pure C++, no ORT types. Nodes are indices in a
// topological order. A group is weakly connected (grown along producer edges) and convex: no path
// leaves it and re-enters it through a node outside the group. Groups grow greedily in
// topological order: a node joins (and so merges) the groups of its supported producers, lowest
// group first, as long as the union stays convex and within `max_group_size`; otherwise it starts
// a group of its own.
#pragma once

#include <cstddef>
#include <vector>

namespace nxrt_example_ep {

// producers[i]: indices (< i) of the nodes whose outputs node i reads, explicitly or implicitly
// (duplicates allowed). supported[i]: whether node i may be claimed. max_group_size 0 means no
// limit. Returns the groups, each its node indices ascending, ordered by their first node;
// every supported node is in exactly one group.
std::vector<std::vector<size_t>> GroupConvex(const std::vector<std::vector<size_t>>& producers,
                                             const std::vector<bool>& supported,
                                             size_t max_group_size);

}  // namespace nxrt_example_ep
