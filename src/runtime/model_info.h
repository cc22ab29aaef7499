// runtime/model_info.h: what a Session reports about its model and applies to it before the
// plan: the model's metadata and the free-dimension overrides of SessionOptions.
//
// Layer: nxrt_runtime (internal; used by session.cpp). Source: onnx/onnx.proto (ModelProto,
// metadata_props), ONNX Runtime's OrtModelMetadata and AddFreeDimensionOverrideByName.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "ir/graph.h"
#include "nxrt/session.h"
#include "nxrt/status.h"

namespace nxrt::runtime {

// The metadata of `model` (its graph's name and doc string included).
ModelMetadata MetadataOf(const ir::Model& model);

// Fixes every dim of the main graph's values whose symbol is an override's name to its size.
// Names no dim carries are ignored. Errors: kInvalidArgument for an empty name or a negative
// size, naming the override and the fix.
Status ApplyFreeDimensionOverrides(ir::Model& model,
                                   std::span<const std::pair<std::string, int64_t>> overrides);

}  // namespace nxrt::runtime
