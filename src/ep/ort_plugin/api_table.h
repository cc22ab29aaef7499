// ep/ort_plugin/api_table.h: the host API tables a plugin receives: OrtApiBase, OrtApi (425
// slots at version 29) and OrtEpApi (74 slots).
//
// Layer: nxrt_ort_plugin (internal). The tables are built once, on first use, thread-safely:
// every slot starts as a generated stub (api_slots.inc, generated at build time from
// onnxruntime_c_api.h) that returns an OrtStatus with ORT_NOT_IMPLEMENTED naming the function
// ("OrtApi::CreateSession is not implemented by the nxrt plugin host"), or a neutral value for
// slots that do not return a status; then each group of functions nxrt implements installs its
// slots (the Install* functions below, one per api_*.cpp). No slot is ever null.
// Source: onnxruntime_c_api.h (OrtApiBase, OrtApi, GetEpApi), onnxruntime_ep_c_api.h (OrtEpApi).
#pragma once

#include <string>
#include <string_view>

#include "ep/ort_plugin/api_objects.h"
#include "ep/ort_plugin/ort_c_api.h"
#include "nxrt/status.h"

namespace nxrt::ort_plugin {

// The OrtApiBase handed to CreateEpFactories. GetApi(v) returns the one OrtApi table for
// 1 <= v <= 29 and NULL (logging why to stderr) otherwise; GetVersionString returns "1.29.0".
const OrtApiBase* HostApiBase();
const OrtApi& HostApi();
const OrtEpApi& HostEpApi();

// Slot bookkeeping for tests and for the implemented-function count in docs: total slots and
// the slots still holding their not-implemented stub.
struct ApiCoverage {
  size_t ort_api_slots = 0;
  size_t ort_api_implemented = 0;
  size_t ep_api_slots = 0;
  size_t ep_api_implemented = 0;
};
ApiCoverage HostApiCoverage();

// A new OrtStatus (never null). The plugin or the host releases it with ReleaseStatus.
OrtStatus* MakeOrtStatus(OrtErrorCode code, std::string message);
// Null for an ok status, else an OrtStatus with the matching OrtErrorCode and the message.
OrtStatus* ToOrtStatus(const Status& status);
// Takes ownership of `status` (may be null: ok) and converts it, prefixing the message with
// `context` ("plugin libfoo.so: OrtEp::Compile failed (ORT_FAIL): <message>").
Status TakeOrtStatus(OrtStatus* status, std::string_view context);
// "ORT_FAIL", "ORT_INVALID_ARGUMENT", ...
std::string_view OrtErrorCodeName(OrtErrorCode code);

// The groups of implemented functions, one per file. Each sets only its own slots.
void InstallStatusAndLoggingApi(OrtApi& api);                   // api_status.cpp
void InstallConfigApi(OrtApi& api);                             // api_config.cpp
void InstallMemoryApi(OrtApi& api, OrtEpApi& ep_api);           // api_memory.cpp
void InstallValueAndTypeApi(OrtApi& api, OrtEpApi& ep_api);     // api_values.cpp
void InstallDeviceApi(OrtApi& api, OrtEpApi& ep_api);           // api_devices.cpp
void InstallKernelApi(OrtApi& api, OrtEpApi& ep_api);           // api_kernel.cpp
void InstallGraphApi(OrtApi& api, OrtEpApi& ep_api);            // api_graph.cpp

}  // namespace nxrt::ort_plugin
