// capi/capi.h: nxrt's ONNX Runtime C API for applications: the entry points behind
// libonnxruntime.so.1 (ort_get_api_base.cpp) and what tests call in-process.
//
// Layer: nxrt_capi, over nxrt_runtime and nxrt_ort_plugin. The C API is ONNX Runtime's own
// (onnxruntime_c_api.h); nxrt serves it from the one table of ep/ort_plugin/api_table.h, which
// this layer completes with the application-facing functions (env, sessions, runs, IoBinding,
// metadata, EP libraries). docs/c_api.md lists what is implemented and why the rest is not.
#pragma once

#include "ep/ort_plugin/ort_c_api.h"

namespace nxrt::capi {

// The OrtApiBase an application gets from OrtGetApiBase: the one table with the
// application-facing functions installed (once per process, thread-safe). Never null.
const OrtApiBase* ApiBase();

// OrtSessionOptionsAppendExecutionProvider_CPU (cpu_provider_factory.h): appends nxrt's CPU EP
// to `options` (`use_arena` changes nothing: nxrt plans its own arenas). Errors:
// ORT_INVALID_ARGUMENT for null options.
OrtStatus* AppendCpuExecutionProvider(OrtSessionOptions* options);

}  // namespace nxrt::capi
