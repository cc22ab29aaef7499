// ep/placement_format.cpp: a Placement as text and as JSON (ep/placement.h).
//
// Layer: nxrt_ep. Used by `nxrt claims`; the JSON schema is in docs/partitioning.md.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "ep/placement.h"

namespace nxrt::ep {
namespace {

using Json = nlohmann::ordered_json;

// Appends each piece to `out` (no temporaries: GCC 12 misdiagnoses "literal" + std::string&&).
template <typename... Pieces>
void Append(std::string& out, const Pieces&... pieces) {
  ((out += pieces), ...);
}

std::string NodeName(const ir::GraphView& view, ir::NodeId id) {
  std::string out = "#";
  out += std::to_string(id);
  if (id < 0 || static_cast<size_t>(id) >= view.graph().nodes.size()) return out;
  const ir::Node& node = view.graph().nodes[id];
  out += ":" + node.op_type + ":" + node.name;
  return out;
}

std::string ValueNames(const ir::GraphView& view, const std::vector<ir::ValueId>& values) {
  if (values.empty()) return "(none)";
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += view.graph().values[values[i]].name;
  }
  return out;
}

std::string Plural(size_t count, const char* noun) {
  std::string out = std::to_string(count);
  out += ' ';
  out += noun;
  if (count != 1) out += 's';
  return out;
}

// "12.5" for costs; fixed so the output does not depend on the locale.
std::string CostText(double cost) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", cost);
  return buf;
}

Json NodeJson(const ir::GraphView& view, ir::NodeId id) {
  const ir::Node& node = view.graph().nodes[id];
  Json j;
  j["id"] = id;
  j["op_type"] = node.op_type;
  j["domain"] = node.domain;
  j["name"] = node.name;
  return j;
}

Json ValuesJson(const ir::GraphView& view, const std::vector<ir::ValueId>& values) {
  Json j = Json::array();
  for (ir::ValueId v : values) j.push_back(view.graph().values[v].name);
  return j;
}

}  // namespace

std::string PlacementToText(const Placement& placement, const ir::GraphView& view) {
  const ir::Graph& graph = view.graph();
  std::string out;
  Append(out, "graph '", graph.name.empty() ? "(unnamed)" : graph.name,
         "': ", Plural(graph.nodes.size(), "node"), ", ", Plural(placement.claims.size(), "claim"),
         "; eps in priority order:");
  if (placement.eps.empty()) out += " (none)";
  for (const std::string& name : placement.eps) Append(out, " ", name);
  out += "\n";

  for (size_t k = 0; k < placement.claims.size(); ++k) {
    const PlacedClaim& c = placement.claims[k];
    Append(out, "claim ", std::to_string(k), ": ", placement.eps[c.ep], ", ",
           Plural(c.claim.nodes.size(), "node"));
    if (c.fused) out += ", fused";
    if (c.cost > 0) Append(out, ", cost ", CostText(c.cost), " us");
    out += "\n  nodes:  ";
    for (ir::NodeId v : c.claim.nodes) Append(out, " ", NodeName(view, v));
    Append(out, "\n  inputs:  ", ValueNames(view, c.claim.inputs));
    Append(out, "\n  outputs: ", ValueNames(view, c.claim.outputs), "\n");
  }

  size_t declined = 0;
  for (const std::vector<EpDecline>& d : placement.declines) declined += d.empty() ? 0 : 1;
  Append(out, "declined: ", declined ? Plural(declined, "node") : "none", "\n");
  for (ir::NodeId v : view.topological_order()) {
    if (placement.declines[v].empty()) continue;
    const int32_t k = placement.claim_of_node[v];
    Append(out, "  ", NodeName(view, v), " -> ");
    if (k >= 0) {
      Append(out, "claim ", std::to_string(k), " (", placement.eps[placement.claims[k].ep], ")\n");
    } else {
      out += "unplaced\n";
    }
    for (const EpDecline& d : placement.declines[v]) {
      Append(out, "    ", placement.eps[d.ep], ": ", d.reason, "\n");
    }
  }

  Append(out, "rejected claims: ",
         placement.rejected.empty() ? "none" : std::to_string(placement.rejected.size()), "\n");
  for (const RejectedClaim& r : placement.rejected) {
    Append(out, "  ", placement.eps[r.ep], ":");
    for (ir::NodeId v : r.nodes) Append(out, " ", NodeName(view, v));
    Append(out, ": ", r.reason, "\n");
  }

  out += "unplaced: ";
  if (placement.unplaced.empty()) out += "none";
  for (size_t i = 0; i < placement.unplaced.size(); ++i) {
    Append(out, i ? " " : "", NodeName(view, placement.unplaced[i]));
  }
  out += "\n";
  return out;
}

std::string PlacementToJson(const Placement& placement, const ir::GraphView& view, int indent) {
  const ir::Graph& graph = view.graph();
  Json root;
  root["graph"] = graph.name;
  root["node_count"] = graph.nodes.size();
  root["eps"] = placement.eps;
  root["complete"] = placement.complete();

  Json claims = Json::array();
  for (size_t k = 0; k < placement.claims.size(); ++k) {
    const PlacedClaim& c = placement.claims[k];
    Json j;
    j["index"] = k;
    j["ep"] = placement.eps[c.ep];
    j["fused"] = c.fused;
    j["cost_us"] = c.cost;
    Json nodes = Json::array();
    for (ir::NodeId v : c.claim.nodes) nodes.push_back(NodeJson(view, v));
    j["nodes"] = std::move(nodes);
    j["inputs"] = ValuesJson(view, c.claim.inputs);
    j["outputs"] = ValuesJson(view, c.claim.outputs);
    claims.push_back(std::move(j));
  }
  root["claims"] = std::move(claims);

  Json declined = Json::array();
  for (ir::NodeId v : view.topological_order()) {
    if (placement.declines[v].empty()) continue;
    Json j;
    j["node"] = NodeJson(view, v);
    const int32_t k = placement.claim_of_node[v];
    j["claim"] = k >= 0 ? Json(k) : Json(nullptr);
    j["placed_on"] = k >= 0 ? Json(placement.eps[placement.claims[k].ep]) : Json(nullptr);
    Json reasons = Json::array();
    for (const EpDecline& d : placement.declines[v]) {
      Json r;
      r["ep"] = placement.eps[d.ep];
      r["reason"] = d.reason;
      reasons.push_back(std::move(r));
    }
    j["reasons"] = std::move(reasons);
    declined.push_back(std::move(j));
  }
  root["declined"] = std::move(declined);

  Json rejected = Json::array();
  for (const RejectedClaim& r : placement.rejected) {
    Json j;
    j["ep"] = placement.eps[r.ep];
    j["nodes"] = r.nodes;
    j["reason"] = r.reason;
    rejected.push_back(std::move(j));
  }
  root["rejected_claims"] = std::move(rejected);

  Json unplaced = Json::array();
  for (ir::NodeId v : placement.unplaced) unplaced.push_back(NodeJson(view, v));
  root["unplaced"] = std::move(unplaced);
  return root.dump(indent);
}

}  // namespace nxrt::ep
