// runtime/model_info.h: what a Session applies to its model before the plan: the free-dimension
// overrides of SessionOptions (its metadata is ort_plugin::ModelMetadataOf's).
//
// Layer: nxrt_runtime (internal; used by session.cpp). Source: ONNX Runtime's
// AddFreeDimensionOverrideByName.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "ir/graph.h"
#include "nxrt/session.h"
#include "nxrt/status.h"

namespace nxrt::runtime {

// Fixes every dim of the main graph's values whose symbol is an override's name to its size.
// Names no dim carries are ignored. Errors: kInvalidArgument for an empty name or a negative
// size, naming the override and the fix.
Status ApplyFreeDimensionOverrides(ir::Model& model,
                                   std::span<const std::pair<std::string, int64_t>> overrides);

}  // namespace nxrt::runtime
