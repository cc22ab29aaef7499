// tools/nxrt/stats_format.cpp: see stats_format.h.
#include "stats_format.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace nxrt::cli {
namespace {

struct OpTotal {
  std::string op_type;
  int64_t steps = 0;
  int64_t calls = 0;
  double self_us = 0;
};

double Total(const std::vector<KernelStats>& stats) {
  double total = 0;
  for (const KernelStats& k : stats) total += k.self_us;
  return total;
}

std::vector<OpTotal> ByOpType(const std::vector<KernelStats>& stats) {
  std::map<std::string, OpTotal> by_op;
  for (const KernelStats& k : stats) {
    OpTotal& t = by_op[k.op_type];
    t.op_type = k.op_type;
    t.steps += 1;
    t.calls += k.calls;
    t.self_us += k.self_us;
  }
  std::vector<OpTotal> totals;
  for (auto& [op, t] : by_op) totals.push_back(t);
  std::stable_sort(totals.begin(), totals.end(),
                   [](const OpTotal& a, const OpTotal& b) { return a.self_us > b.self_us; });
  return totals;
}

// Step indices by self time, largest first (ties keep plan order).
std::vector<size_t> SlowestFirst(const std::vector<KernelStats>& stats) {
  std::vector<size_t> order(stats.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return stats[a].self_us > stats[b].self_us; });
  return order;
}

std::string Where(const KernelStats& k, const PlacementReport& placement) {
  if (k.graph < 0 || static_cast<size_t>(k.graph) >= placement.graphs.size()) return "?";
  return placement.graphs[static_cast<size_t>(k.graph)].label;
}

double Percent(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0; }

}  // namespace

std::string StatsText(const std::vector<KernelStats>& stats, const PlacementReport& placement,
                      int64_t runs, size_t max_steps) {
  const double total = Total(stats);
  const double per_run = runs > 0 ? static_cast<double>(runs) : 1;
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line,
                "time by op type (self time; %lld run%s; 100%% = %.3f ms per run)\n",
                static_cast<long long>(runs), runs == 1 ? "" : "s", total / 1000.0 / per_run);
  out += line;
  std::snprintf(line, sizeof line, "  %-24s %6s %9s %12s %7s\n", "op type", "steps", "calls/run",
                "ms/run", "%");
  out += line;
  int64_t steps = 0, calls = 0;
  for (const OpTotal& t : ByOpType(stats)) {
    std::snprintf(line, sizeof line, "  %-24s %6lld %9.4g %12.4f %7.2f\n", t.op_type.c_str(),
                  static_cast<long long>(t.steps), static_cast<double>(t.calls) / per_run,
                  t.self_us / 1000.0 / per_run, Percent(t.self_us, total));
    out += line;
    steps += t.steps;
    calls += t.calls;
  }
  std::snprintf(line, sizeof line, "  %-24s %6lld %9.4g %12.4f %7.2f\n", "total",
                static_cast<long long>(steps), static_cast<double>(calls) / per_run,
                total / 1000.0 / per_run, total > 0 ? 100.0 : 0.0);
  out += line;

  out += "steps, slowest first (self time; [node 'X' attribute]: the body a step is in)\n";
  std::snprintf(line, sizeof line, "  %12s %7s %9s  %-20s %-12s %s\n", "ms/run", "%", "calls/run",
                "op type", "EP", "name [graph]");
  out += line;
  const std::vector<size_t> order = SlowestFirst(stats);
  for (size_t n = 0; n < order.size() && n < max_steps; ++n) {
    const KernelStats& k = stats[order[n]];
    std::string name = k.name;
    if (k.graph != 0) {
      // The innermost body: "node 'If_3' then_branch" of the label.
      const std::string where = Where(k, placement);
      const size_t last = where.rfind(" / ");
      name += " [" + (last == std::string::npos ? where : where.substr(last + 3)) + "]";
    }
    std::snprintf(line, sizeof line, "  %12.4f %7.2f %9.4g  %-20s %-12s %s\n",
                  k.self_us / 1000.0 / per_run, Percent(k.self_us, total),
                  static_cast<double>(k.calls) / per_run, k.op_type.c_str(), k.ep.c_str(),
                  name.c_str());
    out += line;
  }
  if (order.size() > max_steps) {
    out += "  ... " + std::to_string(order.size() - max_steps) +
           " more steps (--json lists every step)\n";
  }
  return out;
}

nlohmann::ordered_json StatsJson(const std::vector<KernelStats>& stats,
                                 const PlacementReport& placement, int64_t runs) {
  using Json = nlohmann::ordered_json;
  const double total = Total(stats);
  Json root;
  root["runs"] = runs;
  root["total_us"] = total;
  Json by_op = Json::array();
  for (const OpTotal& t : ByOpType(stats)) {
    by_op.push_back({{"op_type", t.op_type},
                     {"steps", t.steps},
                     {"calls", t.calls},
                     {"self_us", t.self_us},
                     {"percent", Percent(t.self_us, total)}});
  }
  root["by_op_type"] = std::move(by_op);
  Json steps = Json::array();
  for (size_t i : SlowestFirst(stats)) {
    const KernelStats& k = stats[i];
    steps.push_back({{"index", i},
                     {"name", k.name},
                     {"op_type", k.op_type},
                     {"ep", k.ep},
                     {"graph", k.graph},
                     {"where", Where(k, placement)},
                     {"parent", k.parent},
                     {"calls", k.calls},
                     {"total_us", k.total_us},
                     {"self_us", k.self_us},
                     {"percent", Percent(k.self_us, total)}});
  }
  root["steps"] = std::move(steps);
  return root;
}

}  // namespace nxrt::cli
