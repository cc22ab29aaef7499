// tools/nxrt/summary_format.cpp: the `nxrt inspect` report as text and JSON.
#include "summary_format.h"

#include <iomanip>
#include <sstream>

namespace nxrt::cli {
namespace {

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
