// capi/capi_internal.h: nxrt's definitions of the application-facing ONNX Runtime objects
// (OrtEnv, OrtSession, OrtIoBinding, ...) and what the files of src/capi share.
//
// Layer: nxrt_capi (internal), over nxrt_runtime and nxrt_ort_plugin. The objects shared with
// plugins (OrtStatus, OrtValue, OrtSessionOptions, OrtRunOptions, OrtMemoryInfo, ...) are defined
// in ep/ort_plugin/api_objects.h; the ones here exist only for applications. Each api_*.cpp
// installs its functions with an Install*Api function; InstallApplicationApi (capi.h) runs them
// all into the one table (ep/ort_plugin/api_table.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_objects.h"
#include "ep/ort_plugin/api_table.h"
#include "ep/ort_plugin/graph_projection.h"
#include "ep/ort_plugin/plugin_library.h"
#include "nxrt/session.h"

// OrtApi::CreateThreadingOptions: the global thread pool settings of an env created with
// CreateEnvWithGlobalThreadPools: the intra-op thread count (0: the host's choice) that sessions
// without per-session threads take. The other global settings change nothing in nxrt (one step
// at a time over the intra-op pool) and are checked only.
struct OrtThreadingOptions {
  int intra_op_threads = 0;
};

// The one environment of the process (as in ONNX Runtime: CreateEnv while an env exists returns
// it again, counted; the last ReleaseEnv destroys it). It holds the logging settings, the global
// thread settings and the plugin EP libraries registered with RegisterExecutionProviderLibrary.
struct OrtEnv {
  struct Library {
    std::string registration_name;
    std::shared_ptr<nxrt::ort_plugin::PluginLibrary> library;
  };

  std::mutex mutex;  // guards everything below
  int references = 0;
  OrtLoggingLevel log_level = ORT_LOGGING_LEVEL_WARNING;
  std::string log_id;
  OrtLoggingFunction logger = nullptr;  // null: stderr
  void* logger_param = nullptr;
  bool global_thread_pools = false;
  OrtThreadingOptions threading;
  std::vector<Library> libraries;  // in registration order
  OrtEpDevice cpu_device;          // nxrt's CPU EP, first in GetEpDevices
  std::vector<const OrtEpDevice*> devices;  // what GetEpDevices hands out

  // Writes `message` at `severity` to the logger (or stderr) when it reaches log_level.
  void Log(OrtLoggingLevel severity, std::string_view category, std::string_view message);
  // Rebuilds `devices`: the CPU device, then every registered library's devices.
  void RefreshDevices();
};

// OrtApi::CreateSession*: an nxrt session and what the C API reports about it.
struct OrtSession {
  std::unique_ptr<nxrt::Session> session;
  std::vector<nxrt::ValueInfo> inputs;       // graph inputs a caller must feed
  std::vector<nxrt::ValueInfo> outputs;
  std::vector<nxrt::ValueInfo> overridable;  // graph inputs with an initializer
  bool profiling = false;
  std::string profile_prefix;
  uint64_t profiling_start_ns = 0;  // wall clock at creation, nanoseconds since the epoch
};

// OrtApi::CreateIoBinding: inputs and outputs bound by name for RunWithBinding. Inputs are
// shallow copies of the caller's values (sharing their data, as ORT's do); an output is either
// a caller's value the run writes into (BindOutput) or a device to allocate it on
// (BindOutputToDevice), and after a run it holds the result.
struct OrtIoBinding {
  struct Output {
    std::string name;
    std::shared_ptr<OrtValue> value;  // the caller's value, or the last result (null before)
    bool preallocated = false;
  };
  OrtSession* session = nullptr;
  std::vector<std::pair<std::string, std::shared_ptr<const OrtValue>>> inputs;
  std::vector<Output> outputs;
};

// OrtApi::CreatePrepackedWeightsContainer: nxrt's sessions prepack their own weights, so the
// container holds nothing; sessions made with it run exactly as without.
struct OrtPrepackedWeightsContainer {};

namespace nxrt::capi {

using ort_plugin::AllocatorCopy;
using ort_plugin::CheckArgs;
using ort_plugin::CheckEnumArg;
using ort_plugin::CheckEnumValue;
using ort_plugin::Guarded;
using ort_plugin::InvalidArgument;
using ort_plugin::MakeOrtStatus;
using ort_plugin::RawEnumArg;

// ORT_FAIL "<function>: <detail>".
OrtStatus* Fail(const char* function, const std::string& detail);
// `status` (not ok) as an OrtStatus with code `code`, its message prefixed with `function`.
OrtStatus* StatusAs(OrtErrorCode code, const char* function, const Status& status);

// *out = a new, default T, for the Create* functions of objects without arguments. Errors:
// ORT_INVALID_ARGUMENT for a null `out`, naming `function`.
template <typename T>
OrtStatus* CreateDefault(const char* function, T** out) {
  if (OrtStatus* s = CheckArgs(function, {{"out", out}})) return s;
  return Guarded(function, [&]() -> OrtStatus* {
    *out = new T();
    return nullptr;
  });
}

// The nxrt::SessionOptions of `from` in `env` (api_session.cpp): its EPs (plugin EPs made from
// their libraries), threads, optimisation level, fallback ("session.disable_cpu_ep_fallback"),
// profiling and free dimensions. Errors: a plugin EP that cannot be made.
// The caller holds env.mutex.
Result<SessionOptions> ToNxrtOptions(const OrtSessionOptions& from, const OrtEnv& env);
// The OrtStatus of a failed session creation in `function`, with ONNX Runtime 1.30's codes
// (ORT_NO_SUCHFILE, ORT_INVALID_PROTOBUF, ORT_INVALID_GRAPH, ORT_NOT_IMPLEMENTED, ...).
OrtStatus* CreateSessionError(const char* function, const Status& status);

// The groups of application-facing functions, one per file.
void InstallEnvApi(OrtApiVersion30& api);             // api_env.cpp
void InstallSessionOptionsApi(OrtApiVersion30& api);  // api_session_options.cpp
void InstallSessionApi(OrtApiVersion30& api);         // api_session.cpp
void InstallRunApi(OrtApiVersion30& api);             // api_run.cpp
void InstallCompileApi(OrtApiVersion30& api);         // api_compile.cpp

}  // namespace nxrt::capi
