// ep/ort_plugin/ort_c_api.h: ONNX Runtime's C API header (API 29) with the slots API 30 adds
// (ort_api_v30.h), the only ORT header nxrt's plugin host and C API include, and the conversions
// between ORT's and nxrt's element types.
//
// onnxruntime_c_api.h includes onnxruntime_ep_c_api.h itself; including both breaks the build.
// The headers come from the bootstrap cache (NXRT_CACHE/ort-headers) as a system include.
#pragma once

#include <onnxruntime_c_api.h>

#include "ep/ort_plugin/ort_api_v30.h"

#include "nxrt/data_type.h"

static_assert(ORT_API_VERSION == 29, "nxrt's plugin host implements OrtApi/OrtEpApi version 29");

namespace nxrt::ort_plugin {

// The API version nxrt serves, as ONNX Runtime 1.30 does: GetApi(1..30) return the one table,
// higher versions get NULL.
inline constexpr uint32_t kHostApiVersion = 30;
// The version up to which nxrt reads the structs a plugin implements (OrtEpFactory, OrtEp,
// OrtNodeComputeInfo, OrtAllocator): the headers' own version. A struct declaring more is read
// as this version (docs/plugin_host.md, "Version gating and bad plugins").
inline constexpr uint32_t kStructApiVersion = ORT_API_VERSION;
static_assert(sizeof(OrtApiVersion30) == sizeof(OrtApi) + sizeof(OrtApiSince30) &&
              offsetof(OrtApiVersion30, v30) == sizeof(OrtApi));

// ORT's element type numbers are ONNX's TensorProto numbers, as are nxrt's DataType values.
// Types nxrt does not know (float4, uint2, ...) map to kUndefined.
inline DataType FromOrtElementType(ONNXTensorElementDataType type) {
  return DataTypeFromOnnx(static_cast<int32_t>(type)).value_or(DataType::kUndefined);
}
inline ONNXTensorElementDataType ToOrtElementType(DataType type) {
  return static_cast<ONNXTensorElementDataType>(type);
}

}  // namespace nxrt::ort_plugin
