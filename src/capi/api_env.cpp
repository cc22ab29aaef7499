// capi/api_env.cpp: the environment: logging, global thread settings, available providers, and
// plugin EP libraries (RegisterExecutionProviderLibrary, GetEpDevices,
// SessionOptionsAppendExecutionProvider_V2).
//
// Layer: nxrt_capi (internal). There is one OrtEnv per process, as in ONNX Runtime: CreateEnv*
// while it exists returns it again (its first settings stay) and counts a reference;
// ReleaseEnv drops one, the last destroys it. Telemetry calls succeed and do nothing (nxrt sends
// no telemetry). GetEpDevices lists nxrt's CPU EP first (EP name "CPUExecutionProvider", vendor
// "nxrt", on the host CPU device), then the devices of each registered library in registration
// order. Appending a plugin's device selects that EP of the library; nxrt gives the EP every
// device its factory offers for that EP name. A relative library path is relative to the
// folder of libonnxruntime.so.1, as in ONNX Runtime.
// Source: onnxruntime_c_api.h (CreateEnv*, CreateEnvWithOptions, ReleaseEnv, EnableTelemetryEvents,
// DisableTelemetryEvents, SetLanguageProjection, UpdateEnvWithCustomLogLevel,
// CreateThreadingOptions, SetGlobal*, GetAvailableProviders, ReleaseAvailableProviders,
// RegisterExecutionProviderLibrary, UnregisterExecutionProviderLibrary, GetEpDevices,
// SessionOptionsAppendExecutionProvider_V2).
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "capi/capi_internal.h"
#include "ep/ort_plugin/host_devices.h"

namespace nxrt::capi {
namespace {

std::mutex& EnvMutex() {
  static std::mutex mutex;
  return mutex;
}
OrtEnv*& TheEnv() {
  static OrtEnv* env = nullptr;
  return env;
}

const char* SeverityLetter(OrtLoggingLevel severity) {
  switch (severity) {
    case ORT_LOGGING_LEVEL_VERBOSE: return "V";
    case ORT_LOGGING_LEVEL_INFO: return "I";
    case ORT_LOGGING_LEVEL_WARNING: return "W";
    case ORT_LOGGING_LEVEL_ERROR: return "E";
    case ORT_LOGGING_LEVEL_FATAL: return "F";
  }
  return "?";
}

// The process env, made with these settings when there is none. `raw_level` is the caller's
// OrtLoggingLevel as an int (the argument or struct field `level_name`), checked here.
OrtStatus* AcquireEnv(const char* function, const char* level_name, int32_t raw_level,
                      const char* logid, OrtLoggingFunction logger, void* logger_param,
                      const OrtThreadingOptions* threading, OrtEnv** out,
                      const OrtKeyValuePairs* config_entries = nullptr) {
  if (OrtStatus* s = CheckArgs(function, {{"out", out}})) return s;
  if (OrtStatus* s = CheckEnumValue<OrtLoggingLevel>(function, level_name, raw_level)) return s;
  const auto level = static_cast<OrtLoggingLevel>(raw_level);
  return Guarded(function, [&]() -> OrtStatus* {
    std::lock_guard<std::mutex> lock(EnvMutex());
    OrtEnv*& env = TheEnv();
    if (env == nullptr) {
      auto made = std::make_unique<OrtEnv>();
      made->log_level = level;
      made->log_id = logid != nullptr ? logid : "";
      made->logger = logger;
      made->logger_param = logger_param;
      if (threading != nullptr) {
        made->global_thread_pools = true;
        made->threading = *threading;
      }
      made->cpu_device.ep_name = "CPUExecutionProvider";
      made->cpu_device.ep_vendor = "nxrt";
      made->cpu_device.device = ort_plugin::HostHardwareDevices().front();
      made->RefreshDevices();
      if (config_entries != nullptr) ort_plugin::SetEnvConfigEntries(*config_entries);
      env = made.release();
    }
    std::lock_guard<std::mutex> env_lock(env->mutex);
    ++env->references;
    *out = env;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL CreateEnvImpl(OrtLoggingLevel level, const char* logid,
                                      OrtEnv** out) noexcept {
  return AcquireEnv("OrtApi::CreateEnv", "log_severity_level", RawEnumArg(level), logid, nullptr,
                    nullptr, nullptr, out);
}

OrtStatus* ORT_API_CALL CreateEnvWithCustomLoggerImpl(OrtLoggingFunction logging_function,
                                                      void* logger_param, OrtLoggingLevel level,
                                                      const char* logid, OrtEnv** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateEnvWithCustomLogger";
  if (OrtStatus* s = CheckArgs(kFn, {{"logging_function", reinterpret_cast<const void*>(logging_function)}})) {
    return s;
  }
  return AcquireEnv(kFn, "log_severity_level", RawEnumArg(level), logid, logging_function,
                    logger_param, nullptr, out);
}

OrtStatus* ORT_API_CALL CreateEnvWithGlobalThreadPoolsImpl(OrtLoggingLevel level, const char* logid,
                                                           const OrtThreadingOptions* tp_options,
                                                           OrtEnv** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateEnvWithGlobalThreadPools";
  if (OrtStatus* s = CheckArgs(kFn, {{"tp_options", tp_options}})) return s;
  return AcquireEnv(kFn, "log_severity_level", RawEnumArg(level), logid, nullptr, nullptr,
                    tp_options, out);
}

OrtStatus* ORT_API_CALL CreateEnvWithCustomLoggerAndGlobalThreadPoolsImpl(
    OrtLoggingFunction logging_function, void* logger_param, OrtLoggingLevel level,
    const char* logid, const OrtThreadingOptions* tp_options, OrtEnv** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateEnvWithCustomLoggerAndGlobalThreadPools";
  if (OrtStatus* s = CheckArgs(kFn, {{"logging_function", reinterpret_cast<const void*>(logging_function)},
                                     {"tp_options", tp_options}})) {
    return s;
  }
  return AcquireEnv(kFn, "log_severity_level", RawEnumArg(level), logid, logging_function,
                    logger_param, tp_options, out);
}

// OrtApi::CreateEnvWithOptions: the settings of OrtEnvCreationOptions (version >= 24, the first
// with the struct); its config_entries become the env config entries plugins read with
// OrtEpApi::GetEnvConfigEntries, until the env is released.
OrtStatus* ORT_API_CALL CreateEnvWithOptionsImpl(const OrtEnvCreationOptions* options,
                                                 OrtEnv** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateEnvWithOptions";
  if (OrtStatus* s = CheckArgs(kFn, {{"options", options}, {"out", out}})) return s;
  if (options->version < 24) {
    return InvalidArgument(kFn, "OrtEnvCreationOptions::version is " +
                                    std::to_string(options->version) +
                                    "; the struct exists since 24: set it to ORT_API_VERSION");
  }
  return AcquireEnv(kFn, "OrtEnvCreationOptions::logging_severity_level",
                    options->logging_severity_level, options->log_id,
                    options->custom_logging_function, options->custom_logging_param,
                    options->threading_options, out, options->config_entries);
}

void ORT_API_CALL ReleaseEnvImpl(OrtEnv* env) noexcept {
  if (env == nullptr) return;
  std::lock_guard<std::mutex> lock(EnvMutex());
  if (env != TheEnv()) return;
  bool last = false;
  {
    std::lock_guard<std::mutex> env_lock(env->mutex);
    last = --env->references <= 0;
  }
  if (last) {
    delete env;
    TheEnv() = nullptr;
    ort_plugin::SetEnvConfigEntries(OrtKeyValuePairs());
  }
}

// OrtApi::EnableTelemetryEvents / DisableTelemetryEvents: nxrt sends no telemetry either way.
OrtStatus* ORT_API_CALL EnableTelemetryEventsImpl(const OrtEnv* env) noexcept {
  return CheckArgs("OrtApi::EnableTelemetryEvents", {{"env", env}});
}
OrtStatus* ORT_API_CALL DisableTelemetryEventsImpl(const OrtEnv* env) noexcept {
  return CheckArgs("OrtApi::DisableTelemetryEvents", {{"env", env}});
}

// OrtApi::SetLanguageProjection: recorded by ONNX Runtime for telemetry only; checked here.
OrtStatus* ORT_API_CALL SetLanguageProjectionImpl(const OrtEnv* env,
                                                  OrtLanguageProjection projection) noexcept {
  constexpr const char* kFn = "OrtApi::SetLanguageProjection";
  if (OrtStatus* s = CheckArgs(kFn, {{"env", env}})) return s;
  return CheckEnumArg(kFn, "projection", projection);
}

OrtStatus* ORT_API_CALL UpdateEnvWithCustomLogLevelImpl(OrtEnv* env,
                                                        OrtLoggingLevel level) noexcept {
  constexpr const char* kFn = "OrtApi::UpdateEnvWithCustomLogLevel";
  if (OrtStatus* s = CheckArgs(kFn, {{"ort_env", env}})) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "log_severity_level", level)) return s;
  std::lock_guard<std::mutex> lock(env->mutex);
  env->log_level = level;
  return nullptr;
}

// ---- OrtThreadingOptions ----

OrtStatus* ORT_API_CALL CreateThreadingOptionsImpl(OrtThreadingOptions** out) noexcept {
  return CreateDefault("OrtApi::CreateThreadingOptions", out);
}

void ORT_API_CALL ReleaseThreadingOptionsImpl(OrtThreadingOptions* options) noexcept {
  delete options;
}

// Thread counts below 1 mean the host's choice, as ONNX Runtime accepts them.
OrtStatus* ORT_API_CALL SetGlobalIntraOpNumThreadsImpl(OrtThreadingOptions* options,
                                                       int threads) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::SetGlobalIntraOpNumThreads", {{"tp_options", options}})) {
    return s;
  }
  options->intra_op_threads = threads > 0 ? threads : 0;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetGlobalInterOpNumThreadsImpl(OrtThreadingOptions* options,
                                                       int /*threads*/) noexcept {
  return CheckArgs("OrtApi::SetGlobalInterOpNumThreads", {{"tp_options", options}});
}

OrtStatus* ORT_API_CALL SetGlobalSpinControlImpl(OrtThreadingOptions* options,
                                                 int allow_spinning) noexcept {
  constexpr const char* kFn = "OrtApi::SetGlobalSpinControl";
  if (OrtStatus* s = CheckArgs(kFn, {{"tp_options", options}})) return s;
  if (allow_spinning != 0 && allow_spinning != 1) {
    return InvalidArgument(kFn, "allow_spinning is " + std::to_string(allow_spinning) +
                                    "; pass 0 or 1");
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL SetGlobalDenormalAsZeroImpl(OrtThreadingOptions* options) noexcept {
  return CheckArgs("OrtApi::SetGlobalDenormalAsZero", {{"tp_options", options}});
}

// ---- providers ----

// OrtApi::GetAvailableProviders: the EP names sessions can use without a plugin library.
OrtStatus* ORT_API_CALL GetAvailableProvidersImpl(char*** out_ptr, int* provider_length) noexcept {
  constexpr const char* kFn = "OrtApi::GetAvailableProviders";
  if (OrtStatus* s = CheckArgs(kFn, {{"out_ptr", out_ptr}, {"provider_length", provider_length}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    static constexpr const char* kProviders[] = {"CPUExecutionProvider"};
    constexpr int kCount = 1;
    auto names = std::make_unique<char*[]>(kCount);
    for (int i = 0; i < kCount; ++i) {
      names[i] = new char[std::strlen(kProviders[i]) + 1];
      std::strcpy(names[i], kProviders[i]);
    }
    *out_ptr = names.release();
    *provider_length = kCount;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL ReleaseAvailableProvidersImpl(char** ptr, int providers_length) noexcept {
  if (ptr == nullptr) return nullptr;
  for (int i = 0; i < providers_length; ++i) delete[] ptr[i];
  delete[] ptr;
  return nullptr;
}

// A relative library path, as ONNX Runtime reads it: relative to the folder of the library that
// serves the API (libonnxruntime.so.1 itself), not to the working directory.
std::string ResolveLibraryPath(const char* path) {
  const std::filesystem::path given(path);
  if (given.is_absolute()) return given.string();
  Dl_info self{};
  if (dladdr(reinterpret_cast<const void*>(&ResolveLibraryPath), &self) == 0 ||
      self.dli_fname == nullptr) {
    return given.string();
  }
  return (std::filesystem::path(self.dli_fname).parent_path() / given).lexically_normal().string();
}

OrtStatus* ORT_API_CALL RegisterExecutionProviderLibraryImpl(OrtEnv* env,
                                                            const char* registration_name,
                                                            const ORTCHAR_T* path) noexcept {
  constexpr const char* kFn = "OrtApi::RegisterExecutionProviderLibrary";
  if (OrtStatus* s = CheckArgs(kFn, {{"env", env}, {"registration_name", registration_name},
                                     {"path", path}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    std::lock_guard<std::mutex> lock(env->mutex);
    for (const OrtEnv::Library& lib : env->libraries) {
      if (lib.registration_name == registration_name) {
        return Fail(kFn, std::string("a library is already registered under '") +
                             registration_name + "'; unregister it first or pick another name");
      }
    }
    Result<std::shared_ptr<ort_plugin::PluginLibrary>> library =
        ort_plugin::PluginLibrary::Load(ResolveLibraryPath(path), registration_name);
    if (!library.ok()) return StatusAs(ORT_FAIL, kFn, library.status());
    env->libraries.push_back({registration_name, std::move(*library)});
    env->RefreshDevices();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL UnregisterExecutionProviderLibraryImpl(OrtEnv* env,
                                                              const char* registration_name) noexcept {
  constexpr const char* kFn = "OrtApi::UnregisterExecutionProviderLibrary";
  if (OrtStatus* s = CheckArgs(kFn, {{"env", env}, {"registration_name", registration_name}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    std::lock_guard<std::mutex> lock(env->mutex);
    for (auto it = env->libraries.begin(); it != env->libraries.end(); ++it) {
      if (it->registration_name == registration_name) {
        // Sessions using the library keep it loaded until they end.
        env->libraries.erase(it);
        env->RefreshDevices();
        return nullptr;
      }
    }
    return Fail(kFn, std::string("no library is registered under '") + registration_name + "'");
  });
}

OrtStatus* ORT_API_CALL GetEpDevicesImpl(const OrtEnv* env, const OrtEpDevice* const** ep_devices,
                                         size_t* num_ep_devices) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::GetEpDevices", {{"env", env},
                                                        {"ep_devices", ep_devices},
                                                        {"num_ep_devices", num_ep_devices}})) {
    return s;
  }
  *ep_devices = env->devices.data();
  *num_ep_devices = env->devices.size();
  return nullptr;
}

// The library of the env that made `device`, or null for nxrt's CPU device; false when the
// device is not one of the env's.
bool FindDeviceLibrary(OrtEnv& env, const OrtEpDevice* device,
                       std::shared_ptr<ort_plugin::PluginLibrary>* library) {
  if (device == &env.cpu_device) {
    library->reset();
    return true;
  }
  for (const OrtEnv::Library& lib : env.libraries) {
    for (const auto& factory : lib.library->factories()) {
      for (const OrtEpDevice* own : factory.devices) {
        if (own == device) {
          *library = lib.library;
          return true;
        }
      }
    }
  }
  return false;
}

OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProviderV2Impl(
    OrtSessionOptions* options, OrtEnv* env, const OrtEpDevice* const* ep_devices,
    size_t num_ep_devices, const char* const* ep_option_keys, const char* const* ep_option_vals,
    size_t num_ep_options) noexcept {
  constexpr const char* kFn = "OrtApi::SessionOptionsAppendExecutionProvider_V2";
  if (OrtStatus* s = CheckArgs(kFn, {{"session_options", options}, {"env", env}})) return s;
  if (num_ep_devices == 0 || ep_devices == nullptr) {
    return InvalidArgument(kFn, "no OrtEpDevice given; pass one or more devices from GetEpDevices");
  }
  if (num_ep_options != 0 && (ep_option_keys == nullptr || ep_option_vals == nullptr)) {
    return InvalidArgument(kFn, "ep_option_keys or ep_option_vals is null but num_ep_options is " +
                                    std::to_string(num_ep_options));
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    std::lock_guard<std::mutex> lock(env->mutex);
    OrtSessionOptions::Provider provider;
    for (size_t i = 0; i < num_ep_devices; ++i) {
      const OrtEpDevice* device = ep_devices[i];
      std::shared_ptr<ort_plugin::PluginLibrary> library;
      if (device == nullptr || !FindDeviceLibrary(*env, device, &library)) {
        return InvalidArgument(kFn, "ep_devices[" + std::to_string(i) +
                                        "] is not a device GetEpDevices listed for this env");
      }
      if (i == 0) {
        provider.library = library;
        provider.ep_name = device->ep_name;
      } else if (library != provider.library || device->ep_name != provider.ep_name) {
        return InvalidArgument(kFn, "ep_devices[" + std::to_string(i) + "] belongs to EP '" +
                                        device->ep_name + "', ep_devices[0] to '" +
                                        provider.ep_name + "'; append one EP per call");
      }
    }
    for (size_t i = 0; i < num_ep_options; ++i) {
      if (ep_option_keys[i] == nullptr || ep_option_vals[i] == nullptr) {
        return InvalidArgument(kFn, "EP option " + std::to_string(i) + " has a null key or value");
      }
      provider.options.emplace_back(ep_option_keys[i], ep_option_vals[i]);
    }
    options->providers.push_back(std::move(provider));
    return nullptr;
  });
}

}  // namespace
}  // namespace nxrt::capi

void OrtEnv::Log(OrtLoggingLevel severity, std::string_view category, std::string_view message) {
  OrtLoggingFunction function = nullptr;
  void* param = nullptr;
  std::string id;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (severity < log_level) return;
    function = logger;
    param = logger_param;
    id = log_id;
  }
  const std::string category_text(category);
  const std::string text(message);
  if (function != nullptr) {
    function(param, severity, category_text.c_str(), id.c_str(), "", text.c_str());
    return;
  }
  std::fprintf(stderr, "nxrt [%s:%s] %s\n", nxrt::capi::SeverityLetter(severity), id.c_str(),
               text.c_str());
}

void OrtEnv::RefreshDevices() {
  devices.clear();
  devices.push_back(&cpu_device);
  for (const Library& lib : libraries) {
    for (const auto& factory : lib.library->factories()) {
      for (const OrtEpDevice* device : factory.devices) devices.push_back(device);
    }
  }
}

namespace nxrt::capi {

void InstallEnvApi(OrtApiVersion30& table) {
  OrtApi& api = table.v29;
  api.CreateEnv = &CreateEnvImpl;
  api.CreateEnvWithOptions = &CreateEnvWithOptionsImpl;
  api.CreateEnvWithCustomLogger = &CreateEnvWithCustomLoggerImpl;
  api.CreateEnvWithGlobalThreadPools = &CreateEnvWithGlobalThreadPoolsImpl;
  api.CreateEnvWithCustomLoggerAndGlobalThreadPools =
      &CreateEnvWithCustomLoggerAndGlobalThreadPoolsImpl;
  api.ReleaseEnv = &ReleaseEnvImpl;
  api.EnableTelemetryEvents = &EnableTelemetryEventsImpl;
  api.DisableTelemetryEvents = &DisableTelemetryEventsImpl;
  api.SetLanguageProjection = &SetLanguageProjectionImpl;
  api.UpdateEnvWithCustomLogLevel = &UpdateEnvWithCustomLogLevelImpl;
  api.CreateThreadingOptions = &CreateThreadingOptionsImpl;
  api.ReleaseThreadingOptions = &ReleaseThreadingOptionsImpl;
  api.SetGlobalIntraOpNumThreads = &SetGlobalIntraOpNumThreadsImpl;
  api.SetGlobalInterOpNumThreads = &SetGlobalInterOpNumThreadsImpl;
  api.SetGlobalSpinControl = &SetGlobalSpinControlImpl;
  api.SetGlobalDenormalAsZero = &SetGlobalDenormalAsZeroImpl;
  api.GetAvailableProviders = &GetAvailableProvidersImpl;
  api.ReleaseAvailableProviders = &ReleaseAvailableProvidersImpl;
  api.RegisterExecutionProviderLibrary = &RegisterExecutionProviderLibraryImpl;
  api.UnregisterExecutionProviderLibrary = &UnregisterExecutionProviderLibraryImpl;
  api.GetEpDevices = &GetEpDevicesImpl;
  api.SessionOptionsAppendExecutionProvider_V2 = &SessionOptionsAppendExecutionProviderV2Impl;
}

}  // namespace nxrt::capi
