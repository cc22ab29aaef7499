// capi/api_session.cpp: sessions: creation from a file or bytes, inputs/outputs and their type
// infos, model metadata (read through ep/ort_plugin's ModelMetadata* functions), profiling,
// allocators.
//
// Layer: nxrt_capi (internal). CreateSession turns the OrtSessionOptions into
// nxrt::SessionOptions (ToNxrtOptions) and makes an nxrt::Session; its warnings (plugin EPs
// dropped, ...) go to the session's or the env's logger. Error codes are ONNX Runtime 1.30's: a
// missing model file is ORT_NO_SUCHFILE, bytes that are not a model ORT_INVALID_PROTOBUF, an
// invalid graph ORT_INVALID_GRAPH, a node no EP runs ORT_NOT_IMPLEMENTED, an index past the end
// ORT_FAIL. Names and metadata strings are copies from the caller's allocator, which the caller
// frees.
// Source: onnxruntime_c_api.h (CreateSession, CreateSessionFromArray,
// CreateSessionWithPrepackedWeightsContainer, CreateSessionFromArrayWithPrepackedWeightsContainer,
// CreatePrepackedWeightsContainer, SessionGet*, SessionEndProfiling,
// SessionGetProfilingStartTimeNs, CreateAllocator, ReleaseSession), onnxruntime_session_options_
// config_keys.h ("session.disable_cpu_ep_fallback").
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>

#include "capi/capi_internal.h"
#include "capi/value_convert.h"
#include "ep/ort_plugin/plugin_ep.h"

namespace nxrt::capi {
namespace {

// The loader's words for bytes that are not an ONNX ModelProto (ir/onnx_loader.cpp): ONNX
// Runtime reports those as ORT_INVALID_PROTOBUF.
constexpr std::string_view kNotAModel = "not an ONNX model";

}  // namespace

OrtStatus* CreateSessionError(const char* function, const Status& status) {
  OrtErrorCode code = ORT_FAIL;
  switch (status.code()) {
    case StatusCode::kNotFound:
    case StatusCode::kIoError: code = ORT_NO_SUCHFILE; break;
    case StatusCode::kInvalidModel:
      code = status.message().find(kNotAModel) != std::string::npos ? ORT_INVALID_PROTOBUF
                                                                    : ORT_INVALID_GRAPH;
      break;
    case StatusCode::kInvalidArgument: code = ORT_INVALID_ARGUMENT; break;
    case StatusCode::kNotImplemented:
    case StatusCode::kUnsupported: code = ORT_NOT_IMPLEMENTED; break;
    default: break;
  }
  return StatusAs(code, function, status);
}

static int OptimizationLevelOf(GraphOptimizationLevel level) {
  switch (level) {
    case ORT_DISABLE_ALL: return 0;
    case ORT_ENABLE_BASIC: return 1;
    default: return 2;  // extended, layout, all
  }
}

Result<SessionOptions> ToNxrtOptions(const OrtSessionOptions& from, const OrtEnv& env) {
  SessionOptions options;
  for (const OrtSessionOptions::Provider& provider : from.providers) {
    EpSpec spec;
    if (!provider.library) {
      spec.type = "cpu";
    } else {
      spec.type = "plugin:" + provider.library->path() + ":" + provider.library->registration_name();
      NXRT_ASSIGN_OR_RETURN(spec.provider,
                            ort_plugin::MakePluginExecutionProvider(provider.library, provider.ep_name));
      for (const auto& [key, value] : provider.options) spec.config.Set(key, value);
    }
    options.providers.push_back(std::move(spec));
  }
  options.intra_op_threads = from.intra_op_threads;
  if (!from.per_session_threads && env.global_thread_pools) {
    options.intra_op_threads = env.threading.intra_op_threads;
  }
  options.optimization_level = OptimizationLevelOf(from.optimization_level);
  const char* no_fallback = from.config.Find("session.disable_cpu_ep_fallback");
  options.allow_fallback = no_fallback == nullptr || std::string_view(no_fallback) != "1";
  options.enable_profiling = from.enable_profiling;
  options.free_dimension_overrides = from.free_dimension_overrides;
  return options;
}

namespace {

uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

// Makes the OrtSession from a created nxrt session; logs its warnings.
OrtStatus* FinishSession(std::unique_ptr<Session> made, OrtEnv* env,
                         const OrtSessionOptions& options, OrtSession** out) {
  auto session = std::make_unique<OrtSession>();
  session->inputs = made->inputs();
  session->outputs = made->outputs();
  session->overridable = made->OverridableInitializers();
  session->profiling = options.enable_profiling;
  session->profile_prefix =
      options.profile_file_prefix.empty() ? "onnxruntime_profile_" : options.profile_file_prefix;
  session->profiling_start_ns = NowNs();
  for (const std::string& warning : made->Warnings()) {
    if (options.logger != nullptr) {
      if (options.log_severity <= ORT_LOGGING_LEVEL_WARNING) {
        options.logger(options.logger_param, ORT_LOGGING_LEVEL_WARNING, "nxrt",
                       options.log_id.c_str(), "", warning.c_str());
      }
    } else {
      env->Log(ORT_LOGGING_LEVEL_WARNING, "nxrt", warning);
    }
  }
  session->session = std::move(made);
  *out = session.release();
  return nullptr;
}

// The defaults of CreateSessionOptions, for a null options argument (as ONNX Runtime allows).
const OrtSessionOptions& DefaultOptions() {
  static const OrtSessionOptions* const defaults = new OrtSessionOptions();
  return *defaults;
}

OrtStatus* ORT_API_CALL CreateSessionImpl(const OrtEnv* env, const ORTCHAR_T* model_path,
                                          const OrtSessionOptions* options,
                                          OrtSession** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateSession";
  if (OrtStatus* s = CheckArgs(kFn, {{"env", env}, {"model_path", model_path}, {"out", out}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    OrtEnv* mutable_env = const_cast<OrtEnv*>(env);
    const OrtSessionOptions& o = options != nullptr ? *options : DefaultOptions();
    std::error_code ec;
    if (!std::filesystem::exists(model_path, ec)) {
      return MakeOrtStatus(ORT_NO_SUCHFILE, std::string(kFn) + ": model file '" + model_path +
                                                "' does not exist; check the path");
    }
    Result<SessionOptions> nxrt_options = [&] {
      std::lock_guard<std::mutex> lock(mutable_env->mutex);
      return ToNxrtOptions(o, *mutable_env);
    }();
    if (!nxrt_options.ok()) return StatusAs(ORT_FAIL, kFn, nxrt_options.status());
    Result<std::unique_ptr<Session>> made = Session::Create(model_path, *nxrt_options);
    if (!made.ok()) return CreateSessionError(kFn, made.status());
    return FinishSession(std::move(*made), mutable_env, o, out);
  });
}

OrtStatus* ORT_API_CALL CreateSessionFromArrayImpl(const OrtEnv* env, const void* model_data,
                                                   size_t model_data_length,
                                                   const OrtSessionOptions* options,
                                                   OrtSession** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateSessionFromArray";
  if (OrtStatus* s = CheckArgs(kFn, {{"env", env}, {"model_data", model_data}, {"out", out}})) {
    return s;
  }
  if (model_data_length == 0) {
    return InvalidArgument(kFn, "model_data_length is 0; pass the bytes of an ONNX model");
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    OrtEnv* mutable_env = const_cast<OrtEnv*>(env);
    const OrtSessionOptions& o = options != nullptr ? *options : DefaultOptions();
    Result<SessionOptions> nxrt_options = [&] {
      std::lock_guard<std::mutex> lock(mutable_env->mutex);
      return ToNxrtOptions(o, *mutable_env);
    }();
    if (!nxrt_options.ok()) return StatusAs(ORT_FAIL, kFn, nxrt_options.status());
    Result<std::unique_ptr<Session>> made = Session::CreateFromBytes(
        {static_cast<const std::byte*>(model_data), model_data_length}, *nxrt_options);
    if (!made.ok()) return CreateSessionError(kFn, made.status());
    return FinishSession(std::move(*made), mutable_env, o, out);
  });
}

// ---- prepacked weights containers: accepted, nothing shared (see capi_internal.h) ----

OrtStatus* ORT_API_CALL CreatePrepackedWeightsContainerImpl(OrtPrepackedWeightsContainer** out) noexcept {
  return CreateDefault("OrtApi::CreatePrepackedWeightsContainer", out);
}

void ORT_API_CALL ReleasePrepackedWeightsContainerImpl(OrtPrepackedWeightsContainer* c) noexcept {
  delete c;
}

OrtStatus* ORT_API_CALL CreateSessionWithPrepackedWeightsContainerImpl(
    const OrtEnv* env, const ORTCHAR_T* model_path, const OrtSessionOptions* options,
    OrtPrepackedWeightsContainer* container, OrtSession** out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::CreateSessionWithPrepackedWeightsContainer",
                               {{"prepacked_weights_container", container}})) {
    return s;
  }
  return CreateSessionImpl(env, model_path, options, out);
}

OrtStatus* ORT_API_CALL CreateSessionFromArrayWithPrepackedWeightsContainerImpl(
    const OrtEnv* env, const void* model_data, size_t model_data_length,
    const OrtSessionOptions* options, OrtPrepackedWeightsContainer* container,
    OrtSession** out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::CreateSessionFromArrayWithPrepackedWeightsContainer",
                               {{"prepacked_weights_container", container}})) {
    return s;
  }
  return CreateSessionFromArrayImpl(env, model_data, model_data_length, options, out);
}

void ORT_API_CALL ReleaseSessionImpl(OrtSession* session) noexcept { delete session; }

// ---- inputs, outputs, overridable initializers ----

enum class Io { kInput, kOutput, kOverridable };

const std::vector<ValueInfo>& InfosOf(const OrtSession& session, Io io) {
  switch (io) {
    case Io::kInput: return session.inputs;
    case Io::kOutput: return session.outputs;
    case Io::kOverridable: return session.overridable;
  }
  return session.inputs;
}

const char* IoName(Io io) {
  switch (io) {
    case Io::kInput: return "input";
    case Io::kOutput: return "output";
    case Io::kOverridable: return "overridable initializer";
  }
  return "value";
}

template <Io kIo>
OrtStatus* CountImpl(const char* function, const OrtSession* session, size_t* out) {
  if (OrtStatus* s = CheckArgs(function, {{"session", session}, {"out", out}})) return s;
  *out = InfosOf(*session, kIo).size();
  return nullptr;
}

OrtStatus* IndexError(const char* function, Io io, size_t index, size_t count) {
  return Fail(function, std::string(IoName(io)) + " index " + std::to_string(index) +
                            " is out of range; the session has " + std::to_string(count) + " " +
                            IoName(io) + "s");
}

OrtStatus* TypeInfoImpl(const char* function, Io io, const OrtSession* session, size_t index,
                        OrtTypeInfo** out) {
  if (OrtStatus* s = CheckArgs(function, {{"session", session}, {"type_info", out}})) return s;
  return Guarded(function, [&]() -> OrtStatus* {
    const std::vector<ValueInfo>& infos = InfosOf(*session, io);
    if (index >= infos.size()) return IndexError(function, io, index, infos.size());
    *out = TypeInfoOf(infos[index]).release();
    return nullptr;
  });
}

OrtStatus* NameImpl(const char* function, Io io, const OrtSession* session, size_t index,
                    OrtAllocator* allocator, char** out) {
  if (OrtStatus* s =
          CheckArgs(function, {{"session", session}, {"allocator", allocator}, {"value", out}})) {
    return s;
  }
  return Guarded(function, [&]() -> OrtStatus* {
    const std::vector<ValueInfo>& infos = InfosOf(*session, io);
    if (index >= infos.size()) return IndexError(function, io, index, infos.size());
    *out = AllocatorCopy(allocator, infos[index].name);
    if (*out == nullptr) return Fail(function, "the allocator returned null");
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SessionGetInputCountImpl(const OrtSession* session, size_t* out) noexcept {
  return CountImpl<Io::kInput>("OrtApi::SessionGetInputCount", session, out);
}
OrtStatus* ORT_API_CALL SessionGetOutputCountImpl(const OrtSession* session, size_t* out) noexcept {
  return CountImpl<Io::kOutput>("OrtApi::SessionGetOutputCount", session, out);
}
OrtStatus* ORT_API_CALL SessionGetOverridableInitializerCountImpl(const OrtSession* session,
                                                                  size_t* out) noexcept {
  return CountImpl<Io::kOverridable>("OrtApi::SessionGetOverridableInitializerCount", session, out);
}
OrtStatus* ORT_API_CALL SessionGetInputTypeInfoImpl(const OrtSession* session, size_t index,
                                                    OrtTypeInfo** out) noexcept {
  return TypeInfoImpl("OrtApi::SessionGetInputTypeInfo", Io::kInput, session, index, out);
}
OrtStatus* ORT_API_CALL SessionGetOutputTypeInfoImpl(const OrtSession* session, size_t index,
                                                     OrtTypeInfo** out) noexcept {
  return TypeInfoImpl("OrtApi::SessionGetOutputTypeInfo", Io::kOutput, session, index, out);
}
OrtStatus* ORT_API_CALL SessionGetOverridableInitializerTypeInfoImpl(const OrtSession* session,
                                                                     size_t index,
                                                                     OrtTypeInfo** out) noexcept {
  return TypeInfoImpl("OrtApi::SessionGetOverridableInitializerTypeInfo", Io::kOverridable,
                      session, index, out);
}
OrtStatus* ORT_API_CALL SessionGetInputNameImpl(const OrtSession* session, size_t index,
                                                OrtAllocator* allocator, char** out) noexcept {
  return NameImpl("OrtApi::SessionGetInputName", Io::kInput, session, index, allocator, out);
}
OrtStatus* ORT_API_CALL SessionGetOutputNameImpl(const OrtSession* session, size_t index,
                                                 OrtAllocator* allocator, char** out) noexcept {
  return NameImpl("OrtApi::SessionGetOutputName", Io::kOutput, session, index, allocator, out);
}
OrtStatus* ORT_API_CALL SessionGetOverridableInitializerNameImpl(const OrtSession* session,
                                                                 size_t index,
                                                                 OrtAllocator* allocator,
                                                                 char** out) noexcept {
  return NameImpl("OrtApi::SessionGetOverridableInitializerName", Io::kOverridable, session, index,
                  allocator, out);
}

// Fills `array[0..n)` with `value`, one per input (or output) of the session; `n` must be the
// count.
template <typename T>
OrtStatus* FillPerValue(const char* function, Io io, const OrtSession* session, const char* name,
                        T* array, size_t n, T value) {
  if (OrtStatus* s = CheckArgs(function, {{"session", session}, {name, array}})) return s;
  const size_t count = InfosOf(*session, io).size();
  if (n != count) {
    return InvalidArgument(function, "the array holds " + std::to_string(n) +
                                         " entries, the session has " + std::to_string(count) +
                                         " " + IoName(io) + "s");
  }
  for (size_t i = 0; i < n; ++i) array[i] = value;
  return nullptr;
}

// OrtApi::SessionGetMemoryInfoForInputs / ForOutputs: host memory for each (nxrt binds every
// input and output in host memory).
OrtStatus* ORT_API_CALL SessionGetMemoryInfoForInputsImpl(const OrtSession* session,
                                                          const OrtMemoryInfo** infos,
                                                          size_t n) noexcept {
  return FillPerValue<const OrtMemoryInfo*>("OrtApi::SessionGetMemoryInfoForInputs", Io::kInput,
                                            session, "inputs_memory_info", infos, n,
                                            &ort_plugin::DefaultCpuAllocator().info);
}
OrtStatus* ORT_API_CALL SessionGetMemoryInfoForOutputsImpl(const OrtSession* session,
                                                           const OrtMemoryInfo** infos,
                                                           size_t n) noexcept {
  return FillPerValue<const OrtMemoryInfo*>("OrtApi::SessionGetMemoryInfoForOutputs", Io::kOutput,
                                            session, "outputs_memory_info", infos, n,
                                            &ort_plugin::DefaultCpuAllocator().info);
}

// OrtApi::SessionGetEpDeviceForInputs / ForOutputs: NULL for each, which ONNX Runtime documents
// as "no OrtEpDevice for this input": nxrt binds them in host memory.
OrtStatus* ORT_API_CALL SessionGetEpDeviceForInputsImpl(const OrtSession* session,
                                                        const OrtEpDevice** devices,
                                                        size_t n) noexcept {
  return FillPerValue<const OrtEpDevice*>("OrtApi::SessionGetEpDeviceForInputs", Io::kInput,
                                          session, "inputs_ep_devices", devices, n, nullptr);
}
OrtStatus* ORT_API_CALL SessionGetEpDeviceForOutputsImpl(const OrtSession* session,
                                                         const OrtEpDevice** devices,
                                                         size_t n) noexcept {
  return FillPerValue<const OrtEpDevice*>("OrtApi::SessionGetEpDeviceForOutputs", Io::kOutput,
                                          session, "outputs_ep_devices", devices, n, nullptr);
}

// ---- model metadata ----

OrtStatus* ORT_API_CALL SessionGetModelMetadataImpl(const OrtSession* session,
                                                    OrtModelMetadata** out) noexcept {
  constexpr const char* kFn = "OrtApi::SessionGetModelMetadata";
  if (OrtStatus* s = CheckArgs(kFn, {{"session", session}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *out = new OrtModelMetadata{session->session->Metadata()};
    return nullptr;
  });
}


// ---- profiling ----

// "2026-12-01_20-52-15", local time, as ONNX Runtime names its profiles.
std::string TimeStamp() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d_%H-%M-%S", &local);
  return text;
}

// OrtApi::SessionEndProfiling: writes the trace since creation (or the previous call) to
// "<prefix>_<date>_<time>.json" and returns that path; "" when profiling is off.
OrtStatus* ORT_API_CALL SessionEndProfilingImpl(OrtSession* session, OrtAllocator* allocator,
                                                char** out) noexcept {
  constexpr const char* kFn = "OrtApi::SessionEndProfiling";
  if (OrtStatus* s = CheckArgs(kFn, {{"session", session}, {"allocator", allocator}, {"out", out}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    std::string path;
    if (session->profiling) {
      Result<std::string> trace = session->session->EndProfiling();
      if (!trace.ok()) return StatusAs(ORT_FAIL, kFn, trace.status());
      path = session->profile_prefix + "_" + TimeStamp() + ".json";
      std::ofstream file(path, std::ios::binary);
      file << *trace;
      if (!file) return Fail(kFn, "cannot write the profile to '" + path + "'");
    }
    *out = AllocatorCopy(allocator, path);
    if (*out == nullptr) return Fail(kFn, "the allocator returned null");
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SessionGetProfilingStartTimeNsImpl(const OrtSession* session,
                                                           uint64_t* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::SessionGetProfilingStartTimeNs",
                               {{"session", session}, {"out", out}})) {
    return s;
  }
  *out = session->profiling_start_ns;
  return nullptr;
}

// OrtApi::CreateAllocator: for host memory, the process-wide CPU allocator (ReleaseAllocator
// leaves it alone); nxrt has no other memory.
OrtStatus* ORT_API_CALL CreateAllocatorImpl(const OrtSession* session, const OrtMemoryInfo* info,
                                            OrtAllocator** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateAllocator";
  if (OrtStatus* s = CheckArgs(kFn, {{"session", session}, {"mem_info", info}, {"out", out}})) {
    return s;
  }
  if (info->device.type != OrtMemoryInfoDeviceType_CPU) {
    return InvalidArgument(kFn, "memory info '" + info->name + "' is not host memory; nxrt's "
                                "sessions allocate host memory only");
  }
  *out = &ort_plugin::DefaultCpuAllocator();
  return nullptr;
}

}  // namespace

OrtStatus* Fail(const char* function, const std::string& detail) {
  return MakeOrtStatus(ORT_FAIL, std::string(function) + ": " + detail);
}

OrtStatus* StatusAs(OrtErrorCode code, const char* function, const Status& status) {
  return MakeOrtStatus(code, std::string(function) + ": " + status.message());
}


void InstallSessionApi(OrtApiVersion30& table) {
  OrtApi& api = table.v29;
  api.CreateSession = &CreateSessionImpl;
  api.CreateSessionFromArray = &CreateSessionFromArrayImpl;
  api.CreatePrepackedWeightsContainer = &CreatePrepackedWeightsContainerImpl;
  api.ReleasePrepackedWeightsContainer = &ReleasePrepackedWeightsContainerImpl;
  api.CreateSessionWithPrepackedWeightsContainer = &CreateSessionWithPrepackedWeightsContainerImpl;
  api.CreateSessionFromArrayWithPrepackedWeightsContainer =
      &CreateSessionFromArrayWithPrepackedWeightsContainerImpl;
  api.ReleaseSession = &ReleaseSessionImpl;
  api.SessionGetInputCount = &SessionGetInputCountImpl;
  api.SessionGetOutputCount = &SessionGetOutputCountImpl;
  api.SessionGetOverridableInitializerCount = &SessionGetOverridableInitializerCountImpl;
  api.SessionGetInputTypeInfo = &SessionGetInputTypeInfoImpl;
  api.SessionGetOutputTypeInfo = &SessionGetOutputTypeInfoImpl;
  api.SessionGetOverridableInitializerTypeInfo = &SessionGetOverridableInitializerTypeInfoImpl;
  api.SessionGetInputName = &SessionGetInputNameImpl;
  api.SessionGetOutputName = &SessionGetOutputNameImpl;
  api.SessionGetOverridableInitializerName = &SessionGetOverridableInitializerNameImpl;
  api.SessionGetMemoryInfoForInputs = &SessionGetMemoryInfoForInputsImpl;
  api.SessionGetMemoryInfoForOutputs = &SessionGetMemoryInfoForOutputsImpl;
  api.SessionGetEpDeviceForInputs = &SessionGetEpDeviceForInputsImpl;
  api.SessionGetEpDeviceForOutputs = &SessionGetEpDeviceForOutputsImpl;
  api.SessionGetModelMetadata = &SessionGetModelMetadataImpl;
  api.SessionEndProfiling = &SessionEndProfilingImpl;
  api.SessionGetProfilingStartTimeNs = &SessionGetProfilingStartTimeNsImpl;
  api.CreateAllocator = &CreateAllocatorImpl;
}

}  // namespace nxrt::capi
