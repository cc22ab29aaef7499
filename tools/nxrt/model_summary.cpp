// tools/nxrt/model_summary.cpp: computes and formats the `nxrt inspect` report.
#include "model_summary.h"

#include <iomanip>
#include <sstream>

namespace nxrt::cli {
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

std::string HumanBytes(int64_t bytes) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1);
  if (bytes >= (int64_t{1} << 20)) {
    os << static_cast<double>(bytes) / (1 << 20) << " MiB";
  } else if (bytes >= 1024) {
    os << static_cast<double>(bytes) / 1024 << " KiB";
  } else {
    os << bytes << " B";
  }
  return os.str();
}

}  // namespace

ModelSummary Summarize(const ir::Model& model) {
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

std::string FormatSummary(const ModelSummary& s, const std::string& model_path) {
  std::ostringstream os;
  os << "model " << model_path << "\n";
  os << "  ir_version " << s.ir_version;
  if (!s.producer.empty()) os << ", producer " << s.producer;
  os << "\n  opsets";
  for (const auto& [domain, version] : s.opsets) os << " " << domain << "=" << version;
  os << "\ninputs (" << s.inputs.size() << ")\n";
  for (const auto& p : s.inputs) os << "  " << p.name << "  " << p.type << "\n";
  os << "outputs (" << s.outputs.size() << ")\n";
  for (const auto& p : s.outputs) os << "  " << p.name << "  " << p.type << "\n";
  os << "nodes " << s.node_count << " (including subgraphs)\n";
  for (const auto& [domain, ops] : s.op_histogram) {
    os << "  " << domain << ":";
    for (const auto& [op, count] : ops) os << " " << op << "=" << count;
    os << "\n";
  }
  os << "initializers " << s.initializer_count << " (" << HumanBytes(s.initializer_bytes);
  if (s.external_initializers > 0) os << ", " << s.external_initializers << " external";
  os << ")\n";
  os << "subgraphs " << s.subgraph_count << "\n";
  return os.str();
}

nlohmann::json SummaryToJson(const ModelSummary& s, const std::string& model_path) {
  nlohmann::json j;
  j["model"] = model_path;
  j["ir_version"] = s.ir_version;
  j["producer"] = s.producer;
  j["opsets"] = nlohmann::json::object();
  for (const auto& [domain, version] : s.opsets) j["opsets"][domain] = version;
  auto ports = [](const std::vector<ModelSummary::Port>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& p : v) a.push_back({{"name", p.name}, {"type", p.type}});
    return a;
  };
  j["inputs"] = ports(s.inputs);
  j["outputs"] = ports(s.outputs);
  j["node_count"] = s.node_count;
  j["op_histogram"] = s.op_histogram;
  j["initializer_count"] = s.initializer_count;
  j["initializer_bytes"] = s.initializer_bytes;
  j["external_initializers"] = s.external_initializers;
  j["subgraph_count"] = s.subgraph_count;
  return j;
}

}  // namespace nxrt::cli
