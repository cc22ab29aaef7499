// tools/nxrt/model_summary.h: what `nxrt inspect` reports about a loaded model, computed over the
// main graph and, recursively, every subgraph (If/Loop/Scan bodies).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/graph.h"

namespace nxrt::cli {

struct ModelSummary {
  struct Port {
    std::string name;
    std::string type;  // ir::TypeInfo::ToString(), e.g. "tensor(float)[1,N,?]"
  };
  int64_t ir_version = 0;
  std::string producer;  // "name version"
  std::vector<std::pair<std::string, int64_t>> opsets;  // domain ("ai.onnx" for "") → version
  std::vector<Port> inputs;   // graph inputs that are not initializers
  std::vector<Port> outputs;
  // domain ("ai.onnx" for the default domain) → op_type → count, over all graphs.
  std::map<std::string, std::map<std::string, int64_t>> op_histogram;
  int64_t node_count = 0;         // all graphs
  int64_t initializer_count = 0;  // all graphs
  int64_t initializer_bytes = 0;  // all graphs; strings count their characters
  int64_t external_initializers = 0;
  int64_t subgraph_count = 0;     // every GRAPH / GRAPHS attribute value, recursively
};

ModelSummary Summarize(const ir::Model& model);

// Human-readable, several lines, ending in a newline.
std::string FormatSummary(const ModelSummary& summary, const std::string& model_path);
nlohmann::json SummaryToJson(const ModelSummary& summary, const std::string& model_path);

}  // namespace nxrt::cli
