// capi/api_session_options.cpp: the session options only applications set (threads, logging,
// profiling, memory flags, free dimensions, the CPU EP); the ones plugins see too are in
// ep/ort_plugin/api_config.cpp.
//
// Layer: nxrt_capi (internal). What each setting does at CreateSession (api_session.cpp):
// intra-op threads size the session's pool; inter-op threads and ORT_PARALLEL are accepted and
// change nothing (nxrt runs one step at a time, each over the intra-op pool); the memory
// pattern flag is kept for GetMemPatternEnabled and the CPU arena flags are accepted (nxrt
// always plans one arena per run from value lifetimes); deterministic compute is what nxrt's CPU
// kernels do at a fixed thread count; profiling records a Chrome trace for SessionEndProfiling;
// free-dimension overrides fix symbolic dims (nxrt::SessionOptions::free_dimension_overrides);
// the log id and severity apply to the session's warnings.
// Source: onnxruntime_c_api.h (EnableProfiling, DisableProfiling, EnableMemPattern,
// DisableMemPattern, GetMemPatternEnabled, EnableCpuMemArena, DisableCpuMemArena,
// SetSessionLogId, SetSessionLogVerbosityLevel, SetInterOpNumThreads,
// AddFreeDimensionOverrideByName, DisablePerSessionThreads, SetDeterministicCompute,
// SetUserLoggingFunction), cpu_provider_factory.h (OrtSessionOptionsAppendExecutionProvider_CPU).
#include <string>

#include "capi/capi.h"
#include "capi/capi_internal.h"

namespace nxrt::capi {
namespace {

// OrtApi::<Name>: sets one flag of the options; null options are ORT_INVALID_ARGUMENT.
#define NXRT_CAPI_FLAG_SETTER(Name, flag, value)                                       \
  OrtStatus* ORT_API_CALL Name##Impl(OrtSessionOptions* options) noexcept {            \
    if (OrtStatus* s = CheckArgs("OrtApi::" #Name, {{"options", options}})) return s; \
    options->flag = value;                                                             \
    return nullptr;                                                                    \
  }
NXRT_CAPI_FLAG_SETTER(DisableProfiling, enable_profiling, false)
NXRT_CAPI_FLAG_SETTER(EnableMemPattern, mem_pattern, true)
NXRT_CAPI_FLAG_SETTER(DisableMemPattern, mem_pattern, false)
NXRT_CAPI_FLAG_SETTER(DisablePerSessionThreads, per_session_threads, false)
#undef NXRT_CAPI_FLAG_SETTER

// OrtApi::EnableProfiling: traces go to "<profile_file_prefix>_<date>_<time>.json".
OrtStatus* ORT_API_CALL EnableProfilingImpl(OrtSessionOptions* options,
                                            const ORTCHAR_T* profile_file_prefix) noexcept {
  constexpr const char* kFn = "OrtApi::EnableProfiling";
  if (OrtStatus* s = CheckArgs(kFn, {{"options", options},
                                     {"profile_file_prefix", profile_file_prefix}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    options->enable_profiling = true;
    options->profile_file_prefix = profile_file_prefix;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetMemPatternEnabledImpl(const OrtSessionOptions* options,
                                                 int* out) noexcept {
  if (OrtStatus* s =
          CheckArgs("OrtApi::GetMemPatternEnabled", {{"options", options}, {"out", out}})) {
    return s;
  }
  *out = options->mem_pattern ? 1 : 0;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetSessionLogIdImpl(OrtSessionOptions* options,
                                            const char* logid) noexcept {
  constexpr const char* kFn = "OrtApi::SetSessionLogId";
  if (OrtStatus* s = CheckArgs(kFn, {{"options", options}, {"logid", logid}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    options->log_id = logid;
    return nullptr;
  });
}

// The settings that change nothing in nxrt: checked, then accepted as ONNX Runtime accepts them
// (any thread count, verbosity or flag). EnableCpuMemArena / DisableCpuMemArena: nxrt always
// plans its arenas; SetSessionLogVerbosityLevel: nxrt logs no verbose lines;
// SetInterOpNumThreads: nxrt runs no inter-op pool; SetDeterministicCompute: nxrt's CPU kernels
// are deterministic at a fixed thread count.
#define NXRT_CAPI_ACCEPTED(Name, ...)                                                         \
  OrtStatus* ORT_API_CALL Name##Impl(OrtSessionOptions* options, ##__VA_ARGS__) noexcept {    \
    return CheckArgs("OrtApi::" #Name, {{"options", options}});                               \
  }
NXRT_CAPI_ACCEPTED(EnableCpuMemArena)
NXRT_CAPI_ACCEPTED(DisableCpuMemArena)
NXRT_CAPI_ACCEPTED(SetSessionLogVerbosityLevel, int /*level*/)
NXRT_CAPI_ACCEPTED(SetInterOpNumThreads, int /*inter_op_num_threads*/)
NXRT_CAPI_ACCEPTED(SetDeterministicCompute, bool /*value*/)
#undef NXRT_CAPI_ACCEPTED

OrtStatus* ORT_API_CALL AddFreeDimensionOverrideByNameImpl(OrtSessionOptions* options,
                                                           const char* dim_name,
                                                           int64_t dim_value) noexcept {
  constexpr const char* kFn = "OrtApi::AddFreeDimensionOverrideByName";
  if (OrtStatus* s = CheckArgs(kFn, {{"options", options}, {"dim_name", dim_name}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    options->free_dimension_overrides.emplace_back(dim_name, dim_value);
    return nullptr;
  });
}

// OrtApi::SetUserLoggingFunction: the session's warnings go to `user_logging_function` instead
// of the env's logger.
OrtStatus* ORT_API_CALL SetUserLoggingFunctionImpl(OrtSessionOptions* options,
                                                   OrtLoggingFunction user_logging_function,
                                                   void* user_logging_param) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::SetUserLoggingFunction", {{"options", options}})) return s;
  options->logger = user_logging_function;
  options->logger_param = user_logging_param;
  return nullptr;
}

}  // namespace

OrtStatus* AppendCpuExecutionProvider(OrtSessionOptions* options) {
  constexpr const char* kFn = "OrtSessionOptionsAppendExecutionProvider_CPU";
  if (OrtStatus* s = CheckArgs(kFn, {{"options", options}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    OrtSessionOptions::Provider cpu;
    cpu.ep_name = "CPUExecutionProvider";
    options->providers.push_back(std::move(cpu));
    return nullptr;
  });
}

void InstallSessionOptionsApi(OrtApiVersion30& table) {
  OrtApi& api = table.v29;
  api.EnableProfiling = &EnableProfilingImpl;
  api.DisableProfiling = &DisableProfilingImpl;
  api.EnableMemPattern = &EnableMemPatternImpl;
  api.DisableMemPattern = &DisableMemPatternImpl;
  api.GetMemPatternEnabled = &GetMemPatternEnabledImpl;
  api.EnableCpuMemArena = &EnableCpuMemArenaImpl;
  api.DisableCpuMemArena = &DisableCpuMemArenaImpl;
  api.SetSessionLogId = &SetSessionLogIdImpl;
  api.SetSessionLogVerbosityLevel = &SetSessionLogVerbosityLevelImpl;
  api.SetInterOpNumThreads = &SetInterOpNumThreadsImpl;
  api.AddFreeDimensionOverrideByName = &AddFreeDimensionOverrideByNameImpl;
  api.DisablePerSessionThreads = &DisablePerSessionThreadsImpl;
  api.SetDeterministicCompute = &SetDeterministicComputeImpl;
  api.SetUserLoggingFunction = &SetUserLoggingFunctionImpl;
}

}  // namespace nxrt::capi
