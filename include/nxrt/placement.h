// nxrt/placement.h: where a model's nodes run, as data: the optimisation passes that rewrote it,
// and for the main graph and every subgraph the claims of each EP, the nodes each EP declined
// with its reason, the nodes the runtime runs itself, and what went wrong without failing.
//
// Public API (std only). One pipeline makes this report (docs/architecture.md): load the model,
// optimise it at the level the EP list allows, build the EP list (a plugin EP that cannot load
// or initialize is dropped under fallback), initialize the EPs, place every graph (a plugin EP
// compiles its fused claims here; one whose compile fails is dropped under fallback). A Session
// runs these stages at Create and keeps the report (Session::Placement()); ExplainPlacement runs
// the same stages and stops there, without making kernels. The two cannot disagree, and
// `nxrt claims` prints ExplainPlacement's report.
//
//   auto report = nxrt::ExplainPlacement("model.onnx", options);
//   if (report.ok()) std::cout << nxrt::PlacementReportText(*report);
//
// Node ids, claim order and every string are deterministic: the same model, options and EPs
// give the same report and byte-identical text and JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "nxrt/session.h"
#include "nxrt/status.h"

namespace nxrt {

// A node of one graph of the report, as the graph is after optimisation.
struct PlacementNode {
  int32_t id = -1;      // the node's index in its graph
  std::string op_type;  // e.g. "Conv", or "FusedConv" for a node the optimizer made
  std::string domain;   // "" for the default ONNX domain
  std::string name;
};

// Nodes one EP runs as a unit (docs/partitioning.md): one kernel per node, or one fused kernel
// for the whole claim (an ORT plugin EP's fused node, compiled by the plugin).
struct PlacementClaim {
  std::string ep;      // the EP's instance name, one of GraphPlacement::eps
  bool fused = false;  // one kernel for the claim
  // The fused node's name, unique in the session, e.g. "example_ep_fused_0": its step's
  // KernelStats::name. "" when not fused, and in a report of one graph (GraphPlacementText).
  std::string fused_name;
  double cost_us = 0;  // sum of the EP's KernelMatch cost estimates, microseconds; 0 = none given
  std::vector<PlacementNode> nodes;  // in the graph's topological order
  std::vector<std::string> inputs;   // values its nodes read but do not produce, by name
  std::vector<std::string> outputs;  // values it produces that are read outside it, by name
};

// One EP's reason for not taking a node.
struct PlacementDecline {
  std::string ep;
  std::string reason;  // what the EP said, e.g. "no kernel for op 'Frobnicate'"
};

// A node that at least one EP declined: where it went and every reason.
struct DeclinedNode {
  PlacementNode node;
  int32_t claim = -1;  // index into GraphPlacement::claims of the claim it is in; -1: unplaced
  std::vector<PlacementDecline> reasons;  // in the order the EPs were asked
};

// A node no EP is asked about because the runtime runs it: If, Loop, Scan and SequenceMap (the
// executor runs their bodies, which are graphs of the report placed like any other), the
// sequence and optional ops, and Identity of a sequence or optional. ONNX Runtime runs these as
// kernels of its CPU EP, and so they count as the CPU EP's here: with fallback to the CPU EP
// disabled and no "cpu" entry in the EP list they are unplaced, and the session is refused, as
// in ONNX Runtime.
struct RuntimeNode {
  PlacementNode node;
  std::string ep;                  // the CPU EP's instance name: its step's KernelStats::ep
  std::vector<int32_t> subgraphs;  // indices into PlacementReport::graphs of its bodies, in
                                   // attribute order; empty for the sequence and optional ops
};

// A group a plugin EP proposed that nxrt refused (not convex, a node taken already, ...), or,
// with no nodes, an EP that failed to propose groups at all. Its nodes went to later EPs.
struct RejectedClaim {
  std::string ep;
  std::vector<PlacementNode> nodes;  // as proposed
  std::string reason;
};

// A value flowing from one node of a graph to another (GraphView's producer → consumer).
struct PlacementEdge {
  int32_t from = -1;  // PlacementNode::id of the producer
  int32_t to = -1;    // PlacementNode::id of the consumer (an explicit input of it)
  std::string value;  // the value's name
};

// The placement of one graph.
struct GraphPlacement {
  // Where the graph is: "main graph", or the enclosing graph's label followed by
  // " / node '<name>' <attribute>", e.g. "main graph / node 'If_25' then_branch".
  std::string label;
  std::string name;     // the graph's own name; "" when it has none
  int32_t parent = -1;  // index into PlacementReport::graphs of the enclosing graph; -1: main
  int64_t node_count = 0;
  std::vector<std::string> eps;              // instance names, in the order they were asked
  std::vector<PlacementClaim> claims;        // by EP in priority order, then by first node
  std::vector<RuntimeNode> runtime_nodes;    // in topological order
  std::vector<DeclinedNode> declined;        // in topological order
  std::vector<RejectedClaim> rejected_claims;  // in the order proposed
  std::vector<PlacementNode> unplaced;       // in topological order; each is in `declined`
  // Every producer → consumer edge of the graph, by consumer in topological order, then input
  // slot. Values from graph inputs, initializers and outer scopes have no producer and no edge.
  std::vector<PlacementEdge> edges;

  bool complete() const { return unplaced.empty(); }
};

struct PlacementReport {
  std::string model;  // the path given; "" for a model given as bytes
  // The optimisation level applied: SessionOptions::optimization_level, with 2 lowered to 1
  // when the EP list holds an EP other than the CPU EP (docs/optimizer.md).
  int optimization_level = 0;
  std::vector<OptimizerPassStats> passes;  // every pass that ran, in order: Session::OptimizerPasses
  // EPs dropped under fallback (when loading, initializing, compiling or, for a session, running),
  // one line each with the reason: Session::Warnings().
  std::vector<std::string> warnings;
  // [0] is the main graph, then every subgraph, depth first in node and attribute order.
  std::vector<GraphPlacement> graphs;

  // Every graph complete: every node is claimed or run by the runtime.
  bool complete() const;
};

// The placement `Session::Create(path, options)` would make, without making kernels or running
// anything. Errors: those of Session::Create up to placement: the loader's (kIoError,
// kInvalidModel), kInvalidArgument for bad options (an unknown EP type or pass name, a level
// outside 0..2, negative threads), a plugin EP that fails to load, initialize or compile with
// fallback disabled, an optimizer pass's error. Nodes nobody can run are not an error here: they
// are listed as unplaced with every EP's reason (complete() is false).
Result<PlacementReport> ExplainPlacement(const std::string& path,
                                         const SessionOptions& options = {});
// The same for the bytes of a ModelProto (external data relative to the working directory).
Result<PlacementReport> ExplainPlacementFromBytes(std::span<const std::byte> bytes,
                                                  const SessionOptions& options = {});

// The report for people: the optimizer's rewrites, the warnings, then per graph
// "== graph N: <label>" and GraphPlacementText. Ends in a newline.
std::string PlacementReportText(const PlacementReport& report);
// The report as one JSON object (schema in docs/partitioning.md), indented by `indent` spaces
// (-1: one line).
std::string PlacementReportJson(const PlacementReport& report, int indent = 2);

// The report as a Graphviz DOT digraph, one cluster per graph of the report (nested as the
// graphs are), in it one cluster per claim labelled with its EP (and fused name), nodes filled
// with a colour per EP (the same EP, the same colour, in the order EPs first appear), edges
// labelled with value names. Nodes the runtime runs are drawn as boxes with a double border
// linked to their bodies' clusters by a dashed edge; unplaced nodes are red. Every node some EP
// declined carries every reason as its tooltip ("ep: reason" lines; SVG <title> in an <a>).
// Node ids are "g<graph>n<node id>", graph clusters "cluster_g<graph>", claim clusters
// "cluster_g<graph>c<claim>": `dot -Tsvg` gives one <g class="node"> per node of the report.
// Ends in a newline.
std::string PlacementReportDot(const PlacementReport& report);

// One graph for people: each claim (EP, nodes as #id:OpType:name, boundary inputs and outputs),
// the nodes the runtime runs, each node some EP declined with every reason, rejected claims,
// unplaced nodes. Ends in a newline.
std::string GraphPlacementText(const GraphPlacement& graph);
// One graph as JSON, the objects of PlacementReportJson's "graphs" (`index`: its position there).
std::string GraphPlacementJson(const GraphPlacement& graph, int index = 0, int indent = 2);

}  // namespace nxrt
