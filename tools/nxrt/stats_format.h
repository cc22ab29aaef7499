// tools/nxrt/stats_format.h: `--stats` of `nxrt run` and `nxrt bench`: Session::Stats() with
// the bodies of If/Loop/Scan/SequenceMap broken down (their steps are rows of their own), as a
// table by op type and a table of steps, each sorted by self time, slowest first, with
// percentages of the time of all steps, and totals.
//
// Self time (KernelStats::self_us) is what a step took without the steps of its bodies, so the
// self times add up to the time of the runs' steps and no time is counted twice.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nxrt/placement.h"
#include "nxrt/session.h"

namespace nxrt::cli {

// The text tables: by op type (all), then the `max_steps` slowest steps (and how many more).
// `runs` is the number of runs the statistics sum over (per-run columns divide by it).
std::string StatsText(const std::vector<KernelStats>& stats, const PlacementReport& placement,
                      int64_t runs, size_t max_steps = 30);

// {"runs", "total_us", "by_op_type": [{"op_type", "steps", "calls", "self_us", "percent"}],
//  "steps": [{"index", "name", "op_type", "ep", "graph", "where", "parent", "calls",
//  "total_us", "self_us", "percent"}]}, both sorted by self_us, largest first; "index" and
// "parent" are positions in Session::Stats(), "where" the step's graph label.
nlohmann::ordered_json StatsJson(const std::vector<KernelStats>& stats,
                                 const PlacementReport& placement, int64_t runs);

}  // namespace nxrt::cli
