// tools/nxrt/nodes_by_ep.h: how many nodes of a placement each EP runs, over every graph of the
// report: claims count as their EP's, nodes the runtime runs as the CPU EP's (RuntimeNode::ep),
// and "unplaced" counts the nodes no EP takes. `nxrt claims --stats` and `nxrt test-onnx` (which
// EP ran each test's nodes) read it.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "nxrt/placement.h"

namespace nxrt::cli {

inline std::map<std::string, int64_t> NodesByEp(const PlacementReport& report) {
  std::map<std::string, int64_t> nodes;
  for (const GraphPlacement& g : report.graphs) {
    for (const PlacementClaim& c : g.claims) nodes[c.ep] += static_cast<int64_t>(c.nodes.size());
    for (const RuntimeNode& r : g.runtime_nodes) {
      if (!r.ep.empty()) nodes[r.ep] += 1;
    }
    if (!g.unplaced.empty()) nodes["unplaced"] += static_cast<int64_t>(g.unplaced.size());
  }
  return nodes;
}

}  // namespace nxrt::cli
