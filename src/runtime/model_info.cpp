// runtime/model_info.cpp: see model_info.h.
#include "runtime/model_info.h"

namespace nxrt::runtime {

Status ApplyFreeDimensionOverrides(ir::Model& model,
                                   std::span<const std::pair<std::string, int64_t>> overrides) {
  for (const auto& [name, size] : overrides) {
    if (name.empty()) {
      return MakeStatus(StatusCode::kInvalidArgument,
                        "a free dimension override has an empty name; give the name of a "
                        "symbolic dim such as \"batch\"");
    }
    if (size < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "free dimension override '", name, "' = ",
                        size, " is negative; give a size of 0 or more");
    }
  }
  if (overrides.empty() || !model.graph) return Status::Ok();
  for (ir::Value& value : model.graph->values) {
    if (!value.type.shape) continue;
    for (ir::Dim& dim : *value.type.shape) {
      if (dim.kind != ir::Dim::Kind::kSymbolic) continue;
      for (const auto& [name, size] : overrides) {
        if (dim.symbol == name) {
          dim = ir::Dim::Fixed(size);
          break;
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace nxrt::runtime
