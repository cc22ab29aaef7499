// ep/placement_format.cpp: a Placement as the public report's data (ep/placement.h), and the
// report as text, JSON and Graphviz DOT (nxrt/placement.h): the one formatter of placements,
// used by
// Session::PlacementSummary, `nxrt claims` and the tests.
//
// Layer: nxrt_ep. The JSON schema is in docs/partitioning.md.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ep/placement.h"

namespace nxrt {
namespace {

using Json = nlohmann::ordered_json;

// Appends each piece to `out` (no temporaries: GCC 12 misdiagnoses "literal" + std::string&&).
template <typename... Pieces>
void Append(std::string& out, const Pieces&... pieces) {
  ((out += pieces), ...);
}

// "#3:Add:B"; "#3" for a node id a plugin named that is not in the graph.
std::string NodeName(const PlacementNode& node) {
  std::string out = "#";
  out += std::to_string(node.id);
  if (!node.op_type.empty()) Append(out, ":", node.op_type, ":", node.name);
  return out;
}

std::string Names(const std::vector<std::string>& values) {
  if (values.empty()) return "(none)";
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) Append(out, i ? ", " : "", values[i]);
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

Json NodeJson(const PlacementNode& node) {
  Json j;
  j["id"] = node.id;
  j["op_type"] = node.op_type;
  j["domain"] = node.domain;
  j["name"] = node.name;
  return j;
}

Json GraphJson(const GraphPlacement& graph, int index) {
  Json root;
  root["index"] = index;
  root["label"] = graph.label;
  root["graph"] = graph.name;
  root["parent"] = graph.parent >= 0 ? Json(graph.parent) : Json(nullptr);
  root["node_count"] = graph.node_count;
  root["eps"] = graph.eps;
  root["complete"] = graph.complete();

  Json claims = Json::array();
  for (size_t k = 0; k < graph.claims.size(); ++k) {
    const PlacementClaim& c = graph.claims[k];
    Json j;
    j["index"] = k;
    j["ep"] = c.ep;
    j["fused"] = c.fused;
    j["fused_name"] = c.fused_name.empty() ? Json(nullptr) : Json(c.fused_name);
    j["cost_us"] = c.cost_us;
    Json nodes = Json::array();
    for (const PlacementNode& n : c.nodes) nodes.push_back(NodeJson(n));
    j["nodes"] = std::move(nodes);
    j["inputs"] = c.inputs;
    j["outputs"] = c.outputs;
    claims.push_back(std::move(j));
  }
  root["claims"] = std::move(claims);

  Json runtime = Json::array();
  for (const RuntimeNode& r : graph.runtime_nodes) {
    Json j;
    j["node"] = NodeJson(r.node);
    j["ep"] = r.ep;
    j["subgraphs"] = r.subgraphs;
    runtime.push_back(std::move(j));
  }
  root["runtime_nodes"] = std::move(runtime);

  Json declined = Json::array();
  for (const DeclinedNode& d : graph.declined) {
    Json j;
    j["node"] = NodeJson(d.node);
    j["claim"] = d.claim >= 0 ? Json(d.claim) : Json(nullptr);
    j["placed_on"] = d.claim >= 0 ? Json(graph.claims[d.claim].ep) : Json(nullptr);
    Json reasons = Json::array();
    for (const PlacementDecline& r : d.reasons) {
      Json why;
      why["ep"] = r.ep;
      why["reason"] = r.reason;
      reasons.push_back(std::move(why));
    }
    j["reasons"] = std::move(reasons);
    declined.push_back(std::move(j));
  }
  root["declined"] = std::move(declined);

  Json rejected = Json::array();
  for (const RejectedClaim& r : graph.rejected_claims) {
    Json j;
    j["ep"] = r.ep;
    Json nodes = Json::array();
    for (const PlacementNode& n : r.nodes) nodes.push_back(NodeJson(n));
    j["nodes"] = std::move(nodes);
    j["reason"] = r.reason;
    rejected.push_back(std::move(j));
  }
  root["rejected_claims"] = std::move(rejected);

  Json unplaced = Json::array();
  for (const PlacementNode& n : graph.unplaced) unplaced.push_back(NodeJson(n));
  root["unplaced"] = std::move(unplaced);

  Json edges = Json::array();
  for (const PlacementEdge& e : graph.edges) {
    Json j;
    j["from"] = e.from;
    j["to"] = e.to;
    j["value"] = e.value;
    edges.push_back(std::move(j));
  }
  root["edges"] = std::move(edges);
  return root;
}

// `text` as the inside of a DOT double-quoted string: '"' and '\' escaped, newlines as "\n",
// other control characters dropped.
std::string DotEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) >= 0x20) {
      out += c;
    }
  }
  return out;
}

// At most `limit` bytes of `text`, cut at a UTF-8 character boundary and marked with "...".
std::string Shorten(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + "...";
}

// Fill colours of the EPs, in the order they first appear in the report (light, so that black
// labels stay readable).
constexpr const char* kEpColours[] = {"#a6cee3", "#fdbf6f", "#b2df8a", "#cab2d6",
                                      "#ffff99", "#fb9a99", "#d9d9d9", "#80b1d3"};
constexpr const char* kUnplacedColour = "#ff6b6b";

std::string DotNodeId(size_t graph, int32_t node) {
  std::string out = "g";
  Append(out, std::to_string(graph), "n", std::to_string(node));
  return out;
}

// The DOT lines of graph `g` and, nested in its cluster, of its bodies' clusters.
void AppendDotGraph(const PlacementReport& report, size_t g,
                    const std::vector<std::string>& ep_order, std::string& out,
                    std::string& edges, int depth) {
  const GraphPlacement& graph = report.graphs[g];
  const std::string pad(static_cast<size_t>(2 * depth), ' ');
  auto colour = [&](const std::string& ep) {
    for (size_t i = 0; i < ep_order.size(); ++i) {
      if (ep_order[i] == ep) return kEpColours[i % std::size(kEpColours)];
    }
    return kEpColours[0];
  };
  std::map<int32_t, const DeclinedNode*> declined;
  for (const DeclinedNode& d : graph.declined) declined[d.node.id] = &d;
  auto node_line = [&](const PlacementNode& n, const std::string& ep, const char* fill,
                       const char* extra) {
    std::string tooltip;
    Append(tooltip, "#", std::to_string(n.id), " ", n.op_type, " '", n.name, "' on ",
           ep.empty() ? "no EP (unplaced)" : ep);
    if (auto it = declined.find(n.id); it != declined.end()) {
      tooltip += "\ndeclined by:";
      for (const PlacementDecline& r : it->second->reasons) {
        Append(tooltip, "\n", r.ep, ": ", r.reason);
      }
    }
    std::string label = n.op_type;
    if (!n.domain.empty()) label = n.domain + "." + label;
    Append(label, "\n", Shorten(n.name, 40));
    Append(out, pad, "  \"", DotNodeId(g, n.id), "\" [label=\"", DotEscape(label),
           "\", fillcolor=\"", fill, "\", tooltip=\"", DotEscape(tooltip), "\"", extra, "];\n");
  };

  Append(out, pad, "subgraph \"cluster_g", std::to_string(g), "\" {\n", pad, "  label=\"graph ",
         std::to_string(g), ": ", DotEscape(graph.label), "\";\n", pad,
         "  style=\"rounded\"; color=\"#444444\"; penwidth=1.5;\n");
  for (size_t c = 0; c < graph.claims.size(); ++c) {
    const PlacementClaim& claim = graph.claims[c];
    std::string label = "claim " + std::to_string(c) + ": " + claim.ep;
    if (claim.fused) label += claim.fused_name.empty() ? " (fused)" : " (" + claim.fused_name + ")";
    Append(out, pad, "  subgraph \"cluster_g", std::to_string(g), "c", std::to_string(c),
           "\" {\n", pad, "    label=\"", DotEscape(label),
           "\"; style=\"dashed,rounded\"; color=\"", colour(claim.ep), "\"; penwidth=2;\n");
    for (const PlacementNode& n : claim.nodes) node_line(n, claim.ep, colour(claim.ep), "");
    Append(out, pad, "  }\n");
  }
  for (const RuntimeNode& r : graph.runtime_nodes) {
    node_line(r.node, r.ep, r.ep.empty() ? kUnplacedColour : colour(r.ep), ", peripheries=2");
  }
  for (const PlacementNode& n : graph.unplaced) {
    bool runtime = false;
    for (const RuntimeNode& r : graph.runtime_nodes) runtime = runtime || r.node.id == n.id;
    if (!runtime) node_line(n, "", kUnplacedColour, ", color=\"#c00000\", penwidth=2");
  }
  for (const PlacementEdge& e : graph.edges) {
    Append(edges, "  \"", DotNodeId(g, e.from), "\" -> \"", DotNodeId(g, e.to), "\" [tooltip=\"",
           DotEscape(e.value), "\"];\n");
  }
  for (const RuntimeNode& r : graph.runtime_nodes) {
    for (int32_t body : r.subgraphs) {
      if (body < 0 || static_cast<size_t>(body) >= report.graphs.size()) continue;
      AppendDotGraph(report, static_cast<size_t>(body), ep_order, out, edges, depth + 1);
      // A dashed edge into the body's cluster, ending at one of its nodes (an empty body has none).
      const GraphPlacement& sub = report.graphs[static_cast<size_t>(body)];
      int32_t target = -1;
      if (!sub.claims.empty() && !sub.claims[0].nodes.empty()) target = sub.claims[0].nodes[0].id;
      if (target < 0 && !sub.runtime_nodes.empty()) target = sub.runtime_nodes[0].node.id;
      if (target < 0 && !sub.unplaced.empty()) target = sub.unplaced[0].id;
      if (target < 0) continue;
      const std::string attribute = sub.label.substr(sub.label.rfind(' ') + 1);
      Append(edges, "  \"", DotNodeId(g, r.node.id), "\" -> \"",
             DotNodeId(static_cast<size_t>(body), target), "\" [lhead=\"cluster_g",
             std::to_string(body), "\", style=dashed, color=\"#888888\", label=\"",
             DotEscape(attribute), "\", tooltip=\"", DotEscape(sub.label), "\"];\n");
    }
  }
  Append(out, pad, "}\n");
}

}  // namespace

bool PlacementReport::complete() const {
  for (const GraphPlacement& g : graphs) {
    if (!g.complete()) return false;
  }
  return true;
}

std::string GraphPlacementText(const GraphPlacement& graph) {
  std::string out;
  Append(out, "graph '", graph.name.empty() ? "(unnamed)" : graph.name,
         "': ", Plural(static_cast<size_t>(graph.node_count), "node"), ", ",
         Plural(graph.claims.size(), "claim"), "; eps in priority order:");
  if (graph.eps.empty()) out += " (none)";
  for (const std::string& name : graph.eps) Append(out, " ", name);
  out += "\n";

  for (size_t k = 0; k < graph.claims.size(); ++k) {
    const PlacementClaim& c = graph.claims[k];
    Append(out, "claim ", std::to_string(k), ": ", c.ep, ", ", Plural(c.nodes.size(), "node"));
    if (c.fused) out += ", fused";
    if (!c.fused_name.empty()) Append(out, " '", c.fused_name, "'");
    if (c.cost_us > 0) Append(out, ", cost ", CostText(c.cost_us), " us");
    out += "\n  nodes:  ";
    for (const PlacementNode& n : c.nodes) Append(out, " ", NodeName(n));
    Append(out, "\n  inputs:  ", Names(c.inputs));
    Append(out, "\n  outputs: ", Names(c.outputs), "\n");
  }

  Append(out, "run by the runtime: ",
         graph.runtime_nodes.empty() ? "none" : Plural(graph.runtime_nodes.size(), "node"), "\n");
  for (const RuntimeNode& r : graph.runtime_nodes) {
    Append(out, "  ", NodeName(r.node), " -> ", r.ep.empty() ? "(no cpu ep)" : r.ep);
    for (size_t i = 0; i < r.subgraphs.size(); ++i) {
      Append(out, i ? ", graph " : "; bodies: graph ", std::to_string(r.subgraphs[i]));
    }
    out += "\n";
  }

  Append(out, "declined: ", graph.declined.empty() ? "none" : Plural(graph.declined.size(), "node"),
         "\n");
  for (const DeclinedNode& d : graph.declined) {
    Append(out, "  ", NodeName(d.node), " -> ");
    if (d.claim >= 0) {
      Append(out, "claim ", std::to_string(d.claim), " (", graph.claims[d.claim].ep, ")\n");
    } else {
      out += "unplaced\n";
    }
    for (const PlacementDecline& r : d.reasons) Append(out, "    ", r.ep, ": ", r.reason, "\n");
  }

  Append(out, "rejected claims: ",
         graph.rejected_claims.empty() ? "none" : std::to_string(graph.rejected_claims.size()),
         "\n");
  for (const RejectedClaim& r : graph.rejected_claims) {
    Append(out, "  ", r.ep, ":");
    for (const PlacementNode& n : r.nodes) Append(out, " ", NodeName(n));
    Append(out, ": ", r.reason, "\n");
  }

  out += "unplaced: ";
  if (graph.unplaced.empty()) out += "none";
  for (size_t i = 0; i < graph.unplaced.size(); ++i) {
    Append(out, i ? " " : "", NodeName(graph.unplaced[i]));
  }
  out += "\n";
  return out;
}

std::string GraphPlacementJson(const GraphPlacement& graph, int index, int indent) {
  return GraphJson(graph, index).dump(indent);
}

std::string PlacementReportText(const PlacementReport& report) {
  std::string out;
  std::string rewrites;
  for (const OptimizerPassStats& p : report.passes) {
    if (p.rewrites > 0) Append(rewrites, "  ", p.pass, ": ", std::to_string(p.rewrites), "\n");
  }
  Append(out, "== optimizer (level ", std::to_string(report.optimization_level), "): ",
         rewrites.empty() ? "nothing rewritten\n" : "rewrites\n", rewrites);
  if (!report.warnings.empty()) {
    out += "== warnings\n";
    for (const std::string& w : report.warnings) Append(out, "  ", w, "\n");
  }
  for (size_t i = 0; i < report.graphs.size(); ++i) {
    Append(out, i ? "\n" : "", "== graph ", std::to_string(i), ": ", report.graphs[i].label, "\n",
           GraphPlacementText(report.graphs[i]));
  }
  return out;
}

std::string PlacementReportJson(const PlacementReport& report, int indent) {
  Json root;
  root["model"] = report.model;
  root["complete"] = report.complete();
  Json passes = Json::array();
  for (const OptimizerPassStats& p : report.passes) {
    Json j;
    j["pass"] = p.pass;
    j["rewrites"] = p.rewrites;
    passes.push_back(std::move(j));
  }
  root["optimizer"] = {{"level", report.optimization_level}, {"passes", std::move(passes)}};
  root["warnings"] = report.warnings;
  Json graphs = Json::array();
  for (size_t i = 0; i < report.graphs.size(); ++i) {
    graphs.push_back(GraphJson(report.graphs[i], static_cast<int>(i)));
  }
  root["graphs"] = std::move(graphs);
  return root.dump(indent);
}

std::string PlacementReportDot(const PlacementReport& report) {
  std::vector<std::string> ep_order;
  auto see = [&](const std::string& ep) {
    if (!ep.empty() && std::find(ep_order.begin(), ep_order.end(), ep) == ep_order.end()) {
      ep_order.push_back(ep);
    }
  };
  for (const GraphPlacement& g : report.graphs) {
    for (const std::string& ep : g.eps) see(ep);
    for (const PlacementClaim& c : g.claims) see(c.ep);
    for (const RuntimeNode& r : g.runtime_nodes) see(r.ep);
  }
  std::string legend = report.model.empty() ? "model" : report.model;
  legend += "\nfill colour by EP:";
  for (size_t i = 0; i < ep_order.size(); ++i) {
    Append(legend, " ", ep_order[i], " ", kEpColours[i % std::size(kEpColours)]);
  }
  legend += "; red: unplaced; double border: run by the runtime";
  std::string out = "digraph placement {\n";
  Append(out, "  graph [fontname=\"Helvetica\", fontsize=11, compound=true, labelloc=t, label=\"",
         DotEscape(legend), "\"];\n",
         "  node [fontname=\"Helvetica\", fontsize=10, shape=box, style=\"filled,rounded\"];\n",
         "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\"];\n");
  std::string edges;
  for (size_t g = 0; g < report.graphs.size(); ++g) {
    if (report.graphs[g].parent < 0) AppendDotGraph(report, g, ep_order, out, edges, 1);
  }
  out += edges;
  out += "}\n";
  return out;
}

namespace ep {

GraphPlacement DescribePlacement(const Placement& placement, const ir::GraphView& view) {
  const ir::Graph& graph = view.graph();
  auto node = [&](ir::NodeId id) {
    if (id < 0 || static_cast<size_t>(id) >= graph.nodes.size()) return PlacementNode{id, {}, {}, {}};
    const ir::Node& n = graph.nodes[static_cast<size_t>(id)];
    return PlacementNode{id, n.op_type, n.domain, n.name};
  };
  auto names = [&](const std::vector<ir::ValueId>& values) {
    std::vector<std::string> out;
    for (ir::ValueId v : values) out.push_back(graph.values[v].name);
    return out;
  };
  GraphPlacement out;
  out.name = graph.name;
  out.node_count = static_cast<int64_t>(graph.nodes.size());
  out.eps = placement.eps;
  for (const PlacedClaim& c : placement.claims) {
    PlacementClaim claim;
    claim.ep = placement.eps[c.ep];
    claim.fused = c.fused;
    claim.cost_us = c.cost;
    for (ir::NodeId v : c.claim.nodes) claim.nodes.push_back(node(v));
    claim.inputs = names(c.claim.inputs);
    claim.outputs = names(c.claim.outputs);
    out.claims.push_back(std::move(claim));
  }
  for (ir::NodeId v : placement.runtime) out.runtime_nodes.push_back({node(v), {}, {}});
  for (ir::NodeId v : view.topological_order()) {
    if (placement.declines[v].empty()) continue;
    DeclinedNode d;
    d.node = node(v);
    d.claim = placement.claim_of_node[v];
    for (const EpDecline& why : placement.declines[v]) {
      d.reasons.push_back({placement.eps[why.ep], why.reason});
    }
    out.declined.push_back(std::move(d));
  }
  for (const RejectedClaim& r : placement.rejected) {
    nxrt::RejectedClaim rejected{placement.eps[r.ep], {}, r.reason};
    for (ir::NodeId v : r.nodes) rejected.nodes.push_back(node(v));
    out.rejected_claims.push_back(std::move(rejected));
  }
  for (ir::NodeId v : placement.unplaced) out.unplaced.push_back(node(v));
  for (ir::NodeId consumer : view.topological_order()) {
    for (ir::ValueId v : graph.nodes[static_cast<size_t>(consumer)].inputs) {
      if (v == ir::kNoValue || view.producer(v) == ir::kNoNode) continue;
      out.edges.push_back({view.producer(v), consumer, graph.values[v].name});
    }
  }
  return out;
}

}  // namespace ep
}  // namespace nxrt
