// runtime/model_summary.cpp: see nxrt/model_summary.h.
#include "nxrt/model_summary.h"

#include "ir/graph.h"
#include "ir/onnx_loader.h"

namespace nxrt {
namespace {

std::string DisplayDomain(const std::string& domain) { return domain.empty() ? "ai.onnx" : domain; }

void Visit(const ir::Graph& graph, ModelSummary& s) {
  for (const ir::Initializer& init : graph.initializers) {
    ++s.initializer_count;
    if (init.external) ++s.external_initializers;
    if (init.tensor.dtype() == DataType::kString) {
      for (const std::string& str : init.tensor.span<std::string>()) {
        s.initializer_bytes += static_cast<int64_t>(str.size());
      }
    } else {
      s.initializer_bytes += static_cast<int64_t>(init.tensor.byte_size());
    }
  }
  for (const ir::Node& node : graph.nodes) {
    ++s.node_count;
    ++s.op_histogram[DisplayDomain(node.domain)][node.op_type];
    for (const ir::Attribute& attr : node.attributes) {
      if (attr.g) {
        ++s.subgraph_count;
        Visit(*attr.g, s);
      }
      for (const auto& g : attr.graphs) {
        ++s.subgraph_count;
        Visit(*g, s);
      }
    }
  }
}

}  // namespace

Result<ModelSummary> SummarizeModel(const std::string& path) {
  NXRT_ASSIGN_OR_RETURN(ir::Model model, ir::LoadModelFromFile(path));
  ModelSummary s;
  s.ir_version = model.ir_version;
  s.producer = model.producer_name;
  if (!model.producer_version.empty()) s.producer += " " + model.producer_version;
  for (const ir::OpsetImport& op : model.opset_imports) {
    s.opsets.emplace_back(DisplayDomain(op.domain), op.version);
  }
  const ir::Graph& g = *model.graph;
  for (ir::ValueId id : g.inputs) {
    if (g.FindInitializer(id) != nullptr) continue;
    s.inputs.push_back({g.values[id].name, g.values[id].type.ToString()});
  }
  for (ir::ValueId id : g.outputs) {
    s.outputs.push_back({g.values[id].name, g.values[id].type.ToString()});
  }
  Visit(g, s);
  return s;
}

}  // namespace nxrt
