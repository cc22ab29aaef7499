// ep/ort_plugin/api_config.cpp: key-value pairs, session options, run options and the
// environment's config entries of the host API.
//
// Layer: nxrt_ort_plugin (internal). A plugin reads its EP options from the session options it
// gets in CreateEp ("ep.<lower-cased ep_name>.<key>" config entries) with GetSessionConfigEntry,
// HasSessionConfigEntry or GetSessionOptionsConfigEntries.
// Source: onnxruntime_c_api.h (CreateKeyValuePairs ... ReleaseKeyValuePairs, CreateSessionOptions,
// CloneSessionOptions, AddSessionConfigEntry, GetSessionConfigEntry, HasSessionConfigEntry,
// GetSessionOptionsConfigEntries, SetIntraOpNumThreads, SetSessionGraphOptimizationLevel,
// SetSessionExecutionMode, GetSessionExecutionMode, SetSessionLogSeverityLevel,
// CreateRunOptions, AddRunConfigEntry, GetRunConfigEntry, ReleaseRunOptions),
// onnxruntime_ep_c_api.h (GetEnvConfigEntries), onnxruntime_env_config_keys.h.
#include <onnxruntime_env_config_keys.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_table.h"

OrtKeyValuePairs::OrtKeyValuePairs(const OrtKeyValuePairs& other) : entries(other.entries) {
  RefreshPointers();
}

OrtKeyValuePairs::OrtKeyValuePairs(OrtKeyValuePairs&& other)
    : entries(std::move(other.entries)) {
  other.entries.clear();
  other.RefreshPointers();
  RefreshPointers();  // moved short strings keep their characters inline: new addresses
}

OrtKeyValuePairs& OrtKeyValuePairs::operator=(const OrtKeyValuePairs& other) {
  if (this != &other) {
    entries = other.entries;
    RefreshPointers();
  }
  return *this;
}

OrtKeyValuePairs& OrtKeyValuePairs::operator=(OrtKeyValuePairs&& other) {
  if (this != &other) {
    entries = std::move(other.entries);
    other.entries.clear();
    other.RefreshPointers();
    RefreshPointers();
  }
  return *this;
}

void OrtKeyValuePairs::Set(std::string_view key, std::string_view value) {
  for (auto& entry : entries) {
    if (entry.first == key) {
      entry.second.assign(value);
      RefreshPointers();
      return;
    }
  }
  entries.emplace_back(std::string(key), std::string(value));
  RefreshPointers();
}

void OrtKeyValuePairs::Remove(std::string_view key) {
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    if (it->first == key) {
      entries.erase(it);
      RefreshPointers();
      return;
    }
  }
}

const char* OrtKeyValuePairs::Find(std::string_view key) const {
  for (const auto& entry : entries) {
    if (entry.first == key) return entry.second.c_str();
  }
  return nullptr;
}

void OrtKeyValuePairs::RefreshPointers() {
  key_ptrs.clear();
  value_ptrs.clear();
  key_ptrs.reserve(entries.size());
  value_ptrs.reserve(entries.size());
  for (const auto& [key, value] : entries) {
    key_ptrs.push_back(key.c_str());
    value_ptrs.push_back(value.c_str());
  }
}

namespace nxrt::ort_plugin {
namespace {

// ---- OrtKeyValuePairs (all void or value-returning: failures leave outputs null/empty) ----

// OrtApi::CreateKeyValuePairs: *out = a new, empty instance (null when out of memory).
void ORT_API_CALL CreateKeyValuePairsImpl(OrtKeyValuePairs** out) noexcept {
  if (out == nullptr) return;
  *out = new (std::nothrow) OrtKeyValuePairs();
}

// OrtApi::AddKeyValuePair: copies both; replaces the value of an existing key. A null kvps, a
// null or empty key or a null value is ignored, as in ONNX Runtime.
void ORT_API_CALL AddKeyValuePairImpl(OrtKeyValuePairs* kvps, const char* key,
                                      const char* value) noexcept {
  if (kvps == nullptr || key == nullptr || value == nullptr || key[0] == '\0') return;
  try {
    kvps->Set(key, value);
  } catch (...) {
    // Out of memory: keep the pointers consistent with the entries, or empty both.
    try {
      kvps->RefreshPointers();
    } catch (...) {
      kvps->entries.clear();
      kvps->key_ptrs.clear();
      kvps->value_ptrs.clear();
    }
  }
}

// OrtApi::GetKeyValue: the value of `key`, or null (also for null arguments).
const char* ORT_API_CALL GetKeyValueImpl(const OrtKeyValuePairs* kvps, const char* key) noexcept {
  if (kvps == nullptr || key == nullptr) return nullptr;
  return kvps->Find(key);
}

// OrtApi::GetKeyValuePairs: arrays owned by `kvps`, valid until its next change.
void ORT_API_CALL GetKeyValuePairsImpl(const OrtKeyValuePairs* kvps, const char* const** keys,
                                       const char* const** values, size_t* num_entries) noexcept {
  if (keys == nullptr || values == nullptr || num_entries == nullptr) return;
  if (kvps == nullptr) {
    *keys = nullptr;
    *values = nullptr;
    *num_entries = 0;
    return;
  }
  *keys = kvps->key_ptrs.data();
  *values = kvps->value_ptrs.data();
  *num_entries = kvps->entries.size();
}

// OrtApi::RemoveKeyValuePair: no error when `key` is absent.
void ORT_API_CALL RemoveKeyValuePairImpl(OrtKeyValuePairs* kvps, const char* key) noexcept {
  if (kvps == nullptr || key == nullptr) return;
  kvps->Remove(key);
}

void ORT_API_CALL ReleaseKeyValuePairsImpl(OrtKeyValuePairs* kvps) noexcept { delete kvps; }

// ---- OrtSessionOptions ----

OrtStatus* ORT_API_CALL CreateSessionOptionsImpl(OrtSessionOptions** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateSessionOptions";
  if (OrtStatus* s = CheckArgs(kFn, {{"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *out = new OrtSessionOptions();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL CloneSessionOptionsImpl(const OrtSessionOptions* in,
                                                OrtSessionOptions** out) noexcept {
  constexpr const char* kFn = "OrtApi::CloneSessionOptions";
  if (OrtStatus* s = CheckArgs(kFn, {{"in_options", in}, {"out_options", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *out = new OrtSessionOptions(*in);
    return nullptr;
  });
}

void ORT_API_CALL ReleaseSessionOptionsImpl(OrtSessionOptions* options) noexcept { delete options; }

// Sets `key` in `config` for `function`: the key must be non-empty.
OrtStatus* SetConfigEntry(const char* function, OrtKeyValuePairs& config, const char* key,
                          const char* value) {
  if (key[0] == '\0') {
    return InvalidArgument(function, "config_key is empty; pass a key such as "
                                     "\"session.intra_op.allow_spinning\"");
  }
  config.Set(key, value);
  return nullptr;
}

// OrtApi::AddSessionConfigEntry: overwrites an existing entry.
OrtStatus* ORT_API_CALL AddSessionConfigEntryImpl(OrtSessionOptions* options,
                                                  const char* config_key,
                                                  const char* config_value) noexcept {
  constexpr const char* kFn = "OrtApi::AddSessionConfigEntry";
  if (OrtStatus* s = CheckArgs(kFn, {{"options", options},
                                     {"config_key", config_key},
                                     {"config_value", config_value}})) {
    return s;
  }
  return Guarded(kFn,
                 [&] { return SetConfigEntry(kFn, options->config, config_key, config_value); });
}

// OrtApi::GetSessionConfigEntry. `size` is in/out and counts the terminating NUL:
// config_value null → *size = needed, ok; *size >= needed → copy, *size = needed, ok;
// *size < needed → *size = needed, ORT_INVALID_ARGUMENT. An absent key is an error
// (ORT_INVALID_ARGUMENT naming the key; HasSessionConfigEntry checks without failing).
OrtStatus* ORT_API_CALL GetSessionConfigEntryImpl(const OrtSessionOptions* options,
                                                  const char* config_key, char* config_value,
                                                  size_t* size) noexcept {
  constexpr const char* kFn = "OrtApi::GetSessionConfigEntry";
  if (OrtStatus* s =
          CheckArgs(kFn, {{"options", options}, {"config_key", config_key}, {"size", size}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    const char* value = options->config.Find(config_key);
    if (value == nullptr) {
      return InvalidArgument(kFn, std::string("session config entry '") + config_key +
                                      "' does not exist; check it with HasSessionConfigEntry "
                                      "first");
    }
    const size_t needed = std::strlen(value) + 1;
    if (config_value == nullptr) {
      *size = needed;
      return nullptr;
    }
    if (*size < needed) {
      const size_t given = *size;
      *size = needed;
      return InvalidArgument(kFn, std::string("buffer for session config entry '") + config_key +
                                      "' holds " + std::to_string(given) + " bytes, the value needs " +
                                      std::to_string(needed) +
                                      " (including the terminating NUL); pass a buffer of the "
                                      "size now in *size");
    }
    std::memcpy(config_value, value, needed);
    *size = needed;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL HasSessionConfigEntryImpl(const OrtSessionOptions* options,
                                                  const char* config_key, int* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::HasSessionConfigEntry",
                               {{"options", options}, {"config_key", config_key}, {"out", out}})) {
    return s;
  }
  *out = options->config.Find(config_key) != nullptr ? 1 : 0;
  return nullptr;
}

// OrtApi::GetSessionOptionsConfigEntries: a copy the caller releases with ReleaseKeyValuePairs.
OrtStatus* ORT_API_CALL GetSessionOptionsConfigEntriesImpl(const OrtSessionOptions* options,
                                                           OrtKeyValuePairs** out) noexcept {
  constexpr const char* kFn = "OrtApi::GetSessionOptionsConfigEntries";
  if (OrtStatus* s = CheckArgs(kFn, {{"options", options}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *out = new OrtKeyValuePairs(options->config);
    return nullptr;
  });
}

// OrtApi::SetIntraOpNumThreads: 0 (and, as ONNX Runtime accepts them, negative counts) let the
// host choose.
OrtStatus* ORT_API_CALL SetIntraOpNumThreadsImpl(OrtSessionOptions* options,
                                                 int intra_op_num_threads) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::SetIntraOpNumThreads", {{"options", options}})) return s;
  options->intra_op_threads = intra_op_num_threads > 0 ? intra_op_num_threads : 0;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetSessionGraphOptimizationLevelImpl(
    OrtSessionOptions* options, GraphOptimizationLevel level) noexcept {
  constexpr const char* kFn = "OrtApi::SetSessionGraphOptimizationLevel";
  if (OrtStatus* s = CheckArgs(kFn, {{"options", options}})) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "graph_optimization_level", level)) return s;
  options->optimization_level = level;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetSessionExecutionModeImpl(OrtSessionOptions* options,
                                                    ExecutionMode mode) noexcept {
  constexpr const char* kFn = "OrtApi::SetSessionExecutionMode";
  if (OrtStatus* s = CheckArgs(kFn, {{"options", options}})) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "execution_mode", mode)) return s;
  options->execution_mode = mode;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetSessionExecutionModeImpl(const OrtSessionOptions* options,
                                                    ExecutionMode* out) noexcept {
  if (OrtStatus* s =
          CheckArgs("OrtApi::GetSessionExecutionMode", {{"options", options}, {"out", out}})) {
    return s;
  }
  *out = options->execution_mode;
  return nullptr;
}

// OrtApi::SetSessionLogSeverityLevel: levels past fatal (which ONNX Runtime accepts) log fatal
// messages only.
OrtStatus* ORT_API_CALL SetSessionLogSeverityLevelImpl(OrtSessionOptions* options,
                                                       int level) noexcept {
  constexpr const char* kFn = "OrtApi::SetSessionLogSeverityLevel";
  if (OrtStatus* s = CheckArgs(kFn, {{"options", options}})) return s;
  if (level < ORT_LOGGING_LEVEL_VERBOSE) {
    return InvalidArgument(kFn, "session_log_severity_level is " + std::to_string(level) +
                                    "; pass 0 (verbose) to 4 (fatal)");
  }
  options->log_severity = static_cast<OrtLoggingLevel>(std::min<int>(level, ORT_LOGGING_LEVEL_FATAL));
  return nullptr;
}

// ---- OrtRunOptions ----

OrtStatus* ORT_API_CALL CreateRunOptionsImpl(OrtRunOptions** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateRunOptions";
  if (OrtStatus* s = CheckArgs(kFn, {{"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *out = new OrtRunOptions();
    return nullptr;
  });
}

void ORT_API_CALL ReleaseRunOptionsImpl(OrtRunOptions* options) noexcept { delete options; }

OrtStatus* ORT_API_CALL AddRunConfigEntryImpl(OrtRunOptions* options, const char* config_key,
                                              const char* config_value) noexcept {
  constexpr const char* kFn = "OrtApi::AddRunConfigEntry";
  if (OrtStatus* s = CheckArgs(kFn, {{"options", options},
                                     {"config_key", config_key},
                                     {"config_value", config_value}})) {
    return s;
  }
  return Guarded(kFn,
                 [&] { return SetConfigEntry(kFn, options->config, config_key, config_value); });
}

// OrtApi::GetRunConfigEntry: the value (owned by `options`), or null when absent.
const char* ORT_API_CALL GetRunConfigEntryImpl(const OrtRunOptions* options,
                                               const char* config_key) noexcept {
  if (options == nullptr || config_key == nullptr) return nullptr;
  return options->config.Find(config_key);
}

// The environment's config entries (EnvConfigEntries).
struct EnvConfig {
  std::mutex mutex;
  OrtKeyValuePairs application;  // from CreateEnvWithOptions
  int virtual_libraries = 0;     // plugin libraries loaded under "<name>.virtual"
};
EnvConfig& TheEnvConfig() {
  static EnvConfig* const config = new EnvConfig();  // plugins may ask until exit
  return *config;
}

// OrtEpApi::GetEnvConfigEntries: a copy the caller releases with ReleaseKeyValuePairs.
OrtStatus* ORT_API_CALL GetEnvConfigEntriesImpl(OrtKeyValuePairs** config_entries) noexcept {
  constexpr const char* kFn = "OrtEpApi::GetEnvConfigEntries";
  if (OrtStatus* s = CheckArgs(kFn, {{"config_entries", config_entries}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *config_entries = new OrtKeyValuePairs(EnvConfigEntries());
    return nullptr;
  });
}

}  // namespace

void SetEnvConfigEntries(const OrtKeyValuePairs& entries) {
  EnvConfig& config = TheEnvConfig();
  std::lock_guard<std::mutex> lock(config.mutex);
  config.application = entries;
}

void CountVirtualDeviceLibrary(bool loaded) {
  EnvConfig& config = TheEnvConfig();
  std::lock_guard<std::mutex> lock(config.mutex);
  config.virtual_libraries += loaded ? 1 : -1;
}

OrtKeyValuePairs EnvConfigEntries() {
  EnvConfig& config = TheEnvConfig();
  std::lock_guard<std::mutex> lock(config.mutex);
  OrtKeyValuePairs entries = config.application;
  if (config.virtual_libraries > 0) entries.Set(kOrtEnvAllowVirtualDevices, "1");
  return entries;
}

void InstallConfigApi(OrtApi& api, OrtEpApi& ep_api) {
  ep_api.GetEnvConfigEntries = &GetEnvConfigEntriesImpl;
  api.CreateKeyValuePairs = &CreateKeyValuePairsImpl;
  api.AddKeyValuePair = &AddKeyValuePairImpl;
  api.GetKeyValue = &GetKeyValueImpl;
  api.GetKeyValuePairs = &GetKeyValuePairsImpl;
  api.RemoveKeyValuePair = &RemoveKeyValuePairImpl;
  api.ReleaseKeyValuePairs = &ReleaseKeyValuePairsImpl;
  api.CreateSessionOptions = &CreateSessionOptionsImpl;
  api.CloneSessionOptions = &CloneSessionOptionsImpl;
  api.ReleaseSessionOptions = &ReleaseSessionOptionsImpl;
  api.AddSessionConfigEntry = &AddSessionConfigEntryImpl;
  api.GetSessionConfigEntry = &GetSessionConfigEntryImpl;
  api.HasSessionConfigEntry = &HasSessionConfigEntryImpl;
  api.GetSessionOptionsConfigEntries = &GetSessionOptionsConfigEntriesImpl;
  api.SetIntraOpNumThreads = &SetIntraOpNumThreadsImpl;
  api.SetSessionGraphOptimizationLevel = &SetSessionGraphOptimizationLevelImpl;
  api.SetSessionExecutionMode = &SetSessionExecutionModeImpl;
  api.GetSessionExecutionMode = &GetSessionExecutionModeImpl;
  api.SetSessionLogSeverityLevel = &SetSessionLogSeverityLevelImpl;
  api.CreateRunOptions = &CreateRunOptionsImpl;
  api.ReleaseRunOptions = &ReleaseRunOptionsImpl;
  api.AddRunConfigEntry = &AddRunConfigEntryImpl;
  api.GetRunConfigEntry = &GetRunConfigEntryImpl;
}

}  // namespace nxrt::ort_plugin
