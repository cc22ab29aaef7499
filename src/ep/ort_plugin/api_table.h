// ep/ort_plugin/api_table.h: the one ONNX Runtime C API table nxrt serves, to the plugins it
// hosts and to applications (src/capi, libonnxruntime.so.1): OrtApiBase, OrtApi (426 slots at
// version 30: the 425 of version 29 and ort_api_v30.h's), OrtEpApi (74 slots) and
// OrtModelEditorApi (20 slots, GetModelEditorApi).
//
// Layer: nxrt_ort_plugin (internal). The tables are built once, on first use, thread-safely:
// every slot starts as a generated stub (api_slots.inc, generated at build time from
// onnxruntime_c_api.h and ort_api_v30.h) that returns an OrtStatus with ORT_NOT_IMPLEMENTED
// naming the function and the reason ("OrtApi::CreateLoraAdapter is not implemented by nxrt: ..."
// from api_not_implemented.cpp), or a neutral value for slots that do not return a status; then
// each group of functions installs its slots. No slot is ever null.
//
// Who implements what: the groups below (one per api_*.cpp) are everything that needs no nxrt
// session (status, logging, key-value pairs, session/run options, memory, values and type info,
// devices, the kernel context and graph of a plugin EP); plugins and applications share them.
// The application-facing functions that need nxrt's runtime (env, sessions, runs, IoBinding,
// model metadata, EP library registration) live above this layer, in src/capi, and are installed
// into the same table with ExtendHostApi when an application first calls OrtGetApiBase. A slot
// has exactly one implementation: ExtendHostApi refuses to replace a slot a group set.
// Source: onnxruntime_c_api.h (OrtApiBase, OrtApi::GetEpApi, GetModelEditorApi, GetCompileApi,
// GetInteropApi, GetTrainingApi, GetBuildInfoString, OrtModelEditorApi), onnxruntime_ep_c_api.h
// (OrtEpApi), onnxruntime_env_config_keys.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ep/ort_plugin/api_objects.h"
#include "ep/ort_plugin/ort_c_api.h"
#include "nxrt/status.h"

namespace nxrt::ort_plugin {

// The OrtApiBase handed to CreateEpFactories and returned by OrtGetApiBase. GetApi(v) returns
// the one table for 1 <= v <= 30 (the versions ONNX Runtime 1.30 serves) and NULL (logging why
// to stderr) otherwise. GetVersionString returns "1.30.0", ONNX Runtime's version string, so
// that applications and plugins that check it accept nxrt; OrtApi::GetBuildInfoString says
// that it is nxrt (kBuildInfo).
const OrtApiBase* HostApiBase();
const OrtApi& HostApi();
const OrtApiVersion30& HostApiV30();
const OrtEpApi& HostEpApi();
const OrtModelEditorApi& HostModelEditorApi();

// What GetVersionString and GetBuildInfoString return.
inline constexpr const char* kOrtVersionString = "1.30.0";
extern const char* const kBuildInfo;

// Installs application-facing functions (src/capi) into the one table. `install` may set only
// slots that still hold their stub. Idempotent per installer; thread-safe, but meant to run
// before the table is handed out (OrtGetApiBase calls it first). Errors: kInternal naming the
// first slot `install` tried to replace; the table is then left unchanged.
using ApiInstaller = void (*)(OrtApiVersion30& api);
Status ExtendHostApi(ApiInstaller install);

// Slot bookkeeping for tests and for the implemented-function count in docs: total slots and
// the slots no longer holding their not-implemented stub.
struct ApiCoverage {
  size_t ort_api_slots = 0;
  size_t ort_api_implemented = 0;
  size_t ep_api_slots = 0;
  size_t ep_api_implemented = 0;
  size_t model_editor_api_slots = 0;
  size_t model_editor_api_implemented = 0;
};
ApiCoverage HostApiCoverage();

// The slots still holding their stub, "OrtApi::X" / "OrtEpApi::X" / "OrtModelEditorApi::X" in
// struct order, each with the reason its stub gives.
struct StubbedSlot {
  std::string name;
  std::string reason;
};
std::vector<StubbedSlot> StubbedSlots();

// Why `table`::`slot` ("OrtApi", "CreateLoraAdapter"; tables "OrtApi", "OrtEpApi",
// "OrtModelEditorApi") is not implemented: the entry of
// api_not_implemented.cpp's table, or kDefaultNotImplementedReason when it has none (the
// application-facing functions, in a process that serves plugins only).
std::string_view NotImplementedReason(std::string_view table, std::string_view slot);
// The entries of api_not_implemented.cpp's table that match no stubbed slot (for its test).
std::vector<std::string> UnusedNotImplementedReasons();
inline constexpr std::string_view kDefaultNotImplementedReason =
    "this process serves ONNX Runtime plugins only; applications get it from nxrt's "
    "libonnxruntime.so.1";

// A new OrtStatus (never null). The plugin or the host releases it with ReleaseStatus.
OrtStatus* MakeOrtStatus(OrtErrorCode code, std::string message);
// Null for an ok status, else an OrtStatus with the matching OrtErrorCode and the message.
OrtStatus* ToOrtStatus(const Status& status);
// Takes ownership of `status` (may be null: ok) and converts it, prefixing the message with
// `context` ("plugin libfoo.so: OrtEp::Compile failed (ORT_FAIL): <message>").
Status TakeOrtStatus(OrtStatus* status, std::string_view context);
// "ORT_FAIL", "ORT_INVALID_ARGUMENT", ...
std::string_view OrtErrorCodeName(OrtErrorCode code);

// The environment's config entries, as OrtEpApi::GetEnvConfigEntries returns them (ORT 1.30):
// the entries an application gave OrtEnvCreationOptions::config_entries (CreateEnvWithOptions,
// src/capi; SetEnvConfigEntries replaces them, an empty set clears them), and
// "allow_virtual_devices" = "1" while a plugin library is loaded under a registration name ending
// in ".virtual" (PluginLibrary counts itself with CountVirtualDeviceLibrary), as ORT sets it for
// such a registration. Thread-safe.
void SetEnvConfigEntries(const OrtKeyValuePairs& entries);
void CountVirtualDeviceLibrary(bool loaded);  // true when one loads, false when it unloads
OrtKeyValuePairs EnvConfigEntries();

// The groups of implemented functions, one per file. Each sets only its own slots.
void InstallStatusAndLoggingApi(OrtApi& api);                   // api_status.cpp
void InstallConfigApi(OrtApi& api, OrtEpApi& ep_api);           // api_config.cpp
void InstallMemoryApi(OrtApi& api, OrtEpApi& ep_api);           // api_memory.cpp
void InstallValueAndTypeApi(OrtApi& api, OrtEpApi& ep_api);     // api_values.cpp
void InstallModelEditorTypeApi(OrtModelEditorApi& api);          // api_values.cpp
void InstallContainerApi(OrtApi& api);                          // api_containers.cpp
void InstallDeviceApi(OrtApi& api, OrtEpApi& ep_api);           // api_devices.cpp
void InstallKernelApi(OrtApi& api, OrtEpApi& ep_api);           // api_kernel.cpp
void InstallKernelApiSince30(OrtApiSince30& api);                // api_kernel.cpp
void InstallGraphApi(OrtApi& api, OrtEpApi& ep_api);            // api_graph.cpp
void InstallKernelRegistryApi(OrtApi& api, OrtEpApi& ep_api);   // api_kernel_registry.cpp
void InstallStreamApi(OrtApi& api, OrtEpApi& ep_api);           // api_streams.cpp

}  // namespace nxrt::ort_plugin
