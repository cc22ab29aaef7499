// optimizer/function_expansion.cpp: see function_expansion.h.
#include "optimizer/function_expansion.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/function_body.h"
#include "ir/ort_node_order.h"
#include "optimizer/graph_editor.h"

namespace nxrt::opt {

Status ExpandFunctionNodes(ir::Model& model, ir::Graph& graph, std::span<const ir::NodeId> nodes) {
  NXRT_ASSIGN_OR_RETURN(GraphEditor editor, GraphEditor::Create(model, graph));
  const std::vector<size_t> ort_index = ir::OrtNodeIndices(editor.view());
  size_t next_index = static_cast<size_t>(std::max<ir::NodeId>(graph.ort_next_node_index, 0));
  if (!ort_index.empty()) {
    next_index = std::max(next_index, *std::max_element(ort_index.begin(), ort_index.end()) + 1);
  }
  std::vector<ir::NodeId> order(nodes.begin(), nodes.end());
  std::sort(order.begin(), order.end(),
            [&](ir::NodeId a, ir::NodeId b) { return ort_index[a] < ort_index[b]; });
  // ORT's GenerateNodeName: the base when no node has that name and no earlier call gave it.
  std::unordered_set<std::string> taken;
  for (const ir::Node& n : graph.nodes) {
    if (!n.unnamed) taken.insert(n.name);
  }
  for (ir::NodeId id : order) {
    const ir::Node& node = graph.nodes[static_cast<size_t>(id)];
    const std::string base = "_inlfunc_" + node.op_type;
    std::string prefix = base;
    while (taken.count(prefix)) {
      prefix = base + "_token_" + std::to_string(graph.ort_name_counter++);
    }
    taken.insert(prefix);
    NXRT_ASSIGN_OR_RETURN(std::shared_ptr<ir::Graph> body,
                          ir::BuildFunctionBody(model, graph, node, prefix));

    // Body value → graph value: the node's own values and outer values by name, constants and
    // inner values new.
    std::vector<ir::ValueId> to_graph(body->values.size(), ir::kNoValue);
    for (const ir::Initializer& init : body->initializers) {
      to_graph[init.value] = editor.AddInitializer(body->values[init.value].name, init.tensor);
    }
    for (size_t v = 0; v < body->values.size(); ++v) {
      if (to_graph[v] != ir::kNoValue) continue;
      const ir::Value& value = body->values[v];
      to_graph[v] = graph.FindValue(value.name);
      if (to_graph[v] != ir::kNoValue) continue;
      if (std::find(body->inputs.begin(), body->inputs.end(), static_cast<ir::ValueId>(v)) !=
          body->inputs.end()) {
        // Read from an enclosing graph of `graph`: an outer-scope value here too.
        ir::Value outer = value;
        outer.outer_scope = true;
        to_graph[v] = graph.AddValue(std::move(outer));
        continue;
      }
      to_graph[v] = editor.AddValue(value.name, value.type);
    }
    for (ir::Node& n : body->nodes) {
      for (ir::ValueId& v : n.inputs) {
        if (v != ir::kNoValue) v = to_graph[v];
      }
      for (ir::ValueId& v : n.outputs) {
        if (v != ir::kNoValue) v = to_graph[v];
      }
      for (ir::Attribute& a : n.attributes) {
        if (a.g) a.g->parent = &graph;
        for (auto& g : a.graphs) g->parent = &graph;
      }
      n.model_index = static_cast<ir::NodeId>(next_index++);
      editor.AddNode(std::move(n), id);
    }
    editor.RemoveNode(id);
  }
  graph.ort_next_node_index = static_cast<ir::NodeId>(next_index);
  Status committed = editor.Commit();
  if (!committed.ok()) {
    return committed.WithContext("expanding the function nodes of graph '" + graph.name + "'");
  }
  return Status::Ok();
}

}  // namespace nxrt::opt
