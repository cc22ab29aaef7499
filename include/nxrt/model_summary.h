// nxrt/model_summary.h: what a model file holds, as `nxrt inspect` reports it: versions, inputs
// and outputs, an op histogram and initializer counts, over the main graph and, recursively,
// every subgraph (If/Loop/Scan bodies).
//
// Public API (std only; implemented in src/runtime/model_summary.cpp). The model is loaded as
// written: no type inference, no optimisation, no EP.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nxrt/status.h"

namespace nxrt {

struct ModelSummary {
  struct Port {
    std::string name;
    std::string type;  // e.g. "tensor(float)[1,N,?]": elem type, then dims (fixed, named, ?)
  };
  int64_t ir_version = 0;
  std::string producer;  // "name version"
  std::vector<std::pair<std::string, int64_t>> opsets;  // domain ("ai.onnx" for "") → version
  std::vector<Port> inputs;   // graph inputs that are not initializers, in model order
  std::vector<Port> outputs;  // in model order
  // domain ("ai.onnx" for the default domain) → op_type → count, over all graphs.
  std::map<std::string, std::map<std::string, int64_t>> op_histogram;
  int64_t node_count = 0;         // all graphs
  int64_t initializer_count = 0;  // all graphs
  int64_t initializer_bytes = 0;  // all graphs, bytes; strings count their characters
  int64_t external_initializers = 0;  // initializers whose data is in an external file
  int64_t subgraph_count = 0;     // every GRAPH / GRAPHS attribute value, recursively
};

// The summary of the model at `path` (external data relative to its folder). Errors: the
// loader's (kIoError for a file that cannot be read, kInvalidModel naming what is malformed).
Result<ModelSummary> SummarizeModel(const std::string& path);

}  // namespace nxrt
