// capi/api_run.cpp: runs: Run, RunAsync, RunWithBinding and IoBinding, and the run options.
//
// Layer: nxrt_capi (internal). A run checks the names first, with ONNX Runtime 1.30's codes
// (no output asked for, an unknown input or output name: ORT_INVALID_ARGUMENT; an input given
// twice or a required input missing: ORT_FAIL), converts the inputs (value_convert.h, sharing
// their buffers), runs the nxrt session with the run options' terminate flag, and converts the
// outputs: a caller's preallocated output is written into, the others are new OrtValues holding
// nxrt's tensors. Errors from the run keep nxrt's message: a wrong dtype, rank or dim is
// ORT_INVALID_ARGUMENT, a kernel's failure and a terminated run ORT_FAIL. The session stays
// usable after any error.
// Source: onnxruntime_c_api.h (Run, RunAsync, RunWithBinding, CreateIoBinding, BindInput,
// BindOutput, BindOutputToDevice, GetBoundOutputNames, GetBoundOutputValues, ClearBound*,
// SynchronizeBound*, ReleaseIoBinding, RunOptions*).
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "capi/capi_internal.h"
#include "capi/value_convert.h"

namespace nxrt::capi {
namespace {

const ValueInfo* FindInfo(const std::vector<ValueInfo>& infos, std::string_view name) {
  for (const ValueInfo& info : infos) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string ListNames(const std::vector<ValueInfo>& infos) {
  std::string names;
  for (const ValueInfo& info : infos) names += (names.empty() ? "'" : ", '") + info.name + "'";
  return names.empty() ? "(none)" : names;
}

// One run's inputs and outputs by name; outputs[i] may hold a caller's preallocated value.
struct RunRequest {
  std::vector<std::string> input_names;
  std::vector<const OrtValue*> inputs;
  std::vector<std::string> output_names;
  std::vector<OrtValue*> preallocated;  // null where nxrt makes the output
};

OrtStatus* CheckNames(const char* function, const OrtSession& session, const RunRequest& request) {
  if (request.output_names.empty()) {
    return InvalidArgument(function, "no output is asked for; pass at least one output name "
                                     "(the model's outputs are: " +
                                         ListNames(session.outputs) + ")");
  }
  std::vector<bool> given(session.inputs.size(), false);
  for (size_t i = 0; i < request.input_names.size(); ++i) {
    const std::string& name = request.input_names[i];
    const ValueInfo* info = FindInfo(session.inputs, name);
    if (info == nullptr && FindInfo(session.overridable, name) == nullptr) {
      return InvalidArgument(function, "unknown input name '" + name +
                                           "'; the model's inputs are: " +
                                           ListNames(session.inputs));
    }
    if (request.inputs[i] == nullptr) {
      return InvalidArgument(function, "the value of input '" + name + "' is null");
    }
    for (size_t j = 0; j < i; ++j) {
      if (request.input_names[j] == name) {
        return Fail(function, "input '" + name + "' is given twice; give each input once");
      }
    }
    if (info != nullptr) given[static_cast<size_t>(info - session.inputs.data())] = true;
  }
  for (size_t k = 0; k < given.size(); ++k) {
    if (!given[k]) {
      return Fail(function, "missing input '" + session.inputs[k].name + "' (" +
                                session.inputs[k].ToString() + "); feed every model input");
    }
  }
  for (const std::string& name : request.output_names) {
    if (FindInfo(session.outputs, name) == nullptr) {
      return InvalidArgument(function, "unknown output name '" + name +
                                           "'; the model's outputs are: " +
                                           ListNames(session.outputs));
    }
  }
  return nullptr;
}

OrtStatus* RunError(const char* function, const Status& status, const OrtRunOptions* options) {
  if (options != nullptr && options->terminate.load()) {
    return Fail(function, "the run was terminated: RunOptionsSetTerminate was called on its run "
                          "options (" + status.message() + ")");
  }
  switch (status.code()) {
    case StatusCode::kInvalidArgument: return StatusAs(ORT_INVALID_ARGUMENT, function, status);
    case StatusCode::kNotImplemented:
    case StatusCode::kUnsupported: return StatusAs(ORT_NOT_IMPLEMENTED, function, status);
    default: return StatusAs(ORT_FAIL, function, status);
  }
}

// Runs `request` on `session`; on success the results are in `results` (one per output, null
// where a preallocated value was written into).
OrtStatus* RunRequestOn(const char* function, OrtSession& session, const OrtRunOptions* options,
                        const RunRequest& request, std::vector<std::unique_ptr<OrtValue>>& results) {
  if (OrtStatus* s = CheckNames(function, session, request)) return s;
  std::vector<NamedValue> feeds;
  feeds.reserve(request.inputs.size());
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    Result<Value> value = ToNxrtValue(*request.inputs[i], request.input_names[i]);
    if (!value.ok()) return RunError(function, value.status(), nullptr);
    feeds.push_back({request.input_names[i], std::move(*value)});
  }
  RunOptions run_options;
  if (options != nullptr) run_options.terminate = &options->terminate;
  Result<std::vector<NamedValue>> outputs =
      session.session->RunValues(feeds, request.output_names, run_options);
  if (!outputs.ok()) return RunError(function, outputs.status(), options);
  results.clear();
  for (size_t i = 0; i < outputs->size(); ++i) {
    const NamedValue& out = (*outputs)[i];
    if (request.preallocated[i] != nullptr) {
      Status copied = CopyIntoOrtValue(out.value, *request.preallocated[i], out.name);
      if (!copied.ok()) return StatusAs(ORT_INVALID_ARGUMENT, function, copied);
      results.emplace_back();
      continue;
    }
    Result<std::unique_ptr<OrtValue>> converted = ToOrtValue(out.value);
    if (!converted.ok()) return StatusAs(ORT_FAIL, function, converted.status());
    results.push_back(std::move(*converted));
  }
  return nullptr;
}

// The request of a Run call, checking the argument arrays.
OrtStatus* MakeRequest(const char* function, const char* const* input_names,
                       const OrtValue* const* inputs, size_t input_len,
                       const char* const* output_names, size_t output_len, OrtValue** outputs,
                       RunRequest& request) {
  if (input_len != 0) {
    if (OrtStatus* s = CheckArgs(function, {{"input_names", input_names}, {"inputs", inputs}})) {
      return s;
    }
  }
  if (output_len != 0) {
    if (OrtStatus* s = CheckArgs(function, {{"output_names", output_names}, {"outputs", outputs}})) {
      return s;
    }
  }
  for (size_t i = 0; i < input_len; ++i) {
    if (input_names[i] == nullptr) {
      return InvalidArgument(function, "input_names[" + std::to_string(i) + "] is null");
    }
    request.input_names.emplace_back(input_names[i]);
    request.inputs.push_back(inputs[i]);
  }
  for (size_t i = 0; i < output_len; ++i) {
    if (output_names[i] == nullptr) {
      return InvalidArgument(function, "output_names[" + std::to_string(i) + "] is null");
    }
    request.output_names.emplace_back(output_names[i]);
    request.preallocated.push_back(outputs[i]);
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL RunImpl(OrtSession* session, const OrtRunOptions* run_options,
                                const char* const* input_names, const OrtValue* const* inputs,
                                size_t input_len, const char* const* output_names,
                                size_t output_len, OrtValue** outputs) noexcept {
  constexpr const char* kFn = "OrtApi::Run";
  if (OrtStatus* s = CheckArgs(kFn, {{"session", session}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    RunRequest request;
    if (OrtStatus* s = MakeRequest(kFn, input_names, inputs, input_len, output_names, output_len,
                                   outputs, request)) {
      return s;
    }
    std::vector<std::unique_ptr<OrtValue>> results;
    if (OrtStatus* s = RunRequestOn(kFn, *session, run_options, request, results)) return s;
    for (size_t i = 0; i < results.size(); ++i) {
      if (results[i] != nullptr) outputs[i] = results[i].release();
    }
    return nullptr;
  });
}

// OrtApi::RunAsync: the run on a thread of its own; `callback` receives the outputs (the
// caller's `output` array, filled) and the status, which it must release.
OrtStatus* ORT_API_CALL RunAsyncImpl(OrtSession* session, const OrtRunOptions* run_options,
                                     const char* const* input_names, const OrtValue* const* inputs,
                                     size_t input_len, const char* const* output_names,
                                     size_t output_len, OrtValue** outputs,
                                     RunAsyncCallbackFn callback, void* user_data) noexcept {
  static constexpr const char* kFn = "OrtApi::RunAsync";
  if (OrtStatus* s = CheckArgs(kFn, {{"session", session},
                                     {"run_async_callback", reinterpret_cast<const void*>(callback)}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    RunRequest request;
    if (OrtStatus* s = MakeRequest(kFn, input_names, inputs, input_len, output_names, output_len,
                                   outputs, request)) {
      return s;
    }
    std::thread([session, run_options, request = std::move(request), outputs, output_len, callback,
                 user_data]() {
      std::vector<std::unique_ptr<OrtValue>> results;
      OrtStatus* status = Guarded(kFn, [&] {
        return RunRequestOn(kFn, *session, run_options, request, results);
      });
      if (status == nullptr) {
        for (size_t i = 0; i < results.size(); ++i) {
          if (results[i] != nullptr) outputs[i] = results[i].release();
        }
      }
      callback(user_data, outputs, output_len, status);
    }).detach();
    return nullptr;
  });
}

// ---- run options ----

OrtStatus* ORT_API_CALL RunOptionsSetRunLogVerbosityLevelImpl(OrtRunOptions* options,
                                                              int level) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::RunOptionsSetRunLogVerbosityLevel", {{"options", options}})) {
    return s;
  }
  options->log_verbosity = level;
  return nullptr;
}
OrtStatus* ORT_API_CALL RunOptionsSetRunLogSeverityLevelImpl(OrtRunOptions* options,
                                                             int level) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::RunOptionsSetRunLogSeverityLevel", {{"options", options}})) {
    return s;
  }
  options->log_severity = level;
  return nullptr;
}
OrtStatus* ORT_API_CALL RunOptionsSetRunTagImpl(OrtRunOptions* options, const char* tag) noexcept {
  constexpr const char* kFn = "OrtApi::RunOptionsSetRunTag";
  if (OrtStatus* s = CheckArgs(kFn, {{"options", options}, {"run_tag", tag}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    options->tag = tag;
    return nullptr;
  });
}
OrtStatus* ORT_API_CALL RunOptionsGetRunLogVerbosityLevelImpl(const OrtRunOptions* options,
                                                              int* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::RunOptionsGetRunLogVerbosityLevel",
                               {{"options", options}, {"log_verbosity_level", out}})) {
    return s;
  }
  *out = options->log_verbosity;
  return nullptr;
}
OrtStatus* ORT_API_CALL RunOptionsGetRunLogSeverityLevelImpl(const OrtRunOptions* options,
                                                             int* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::RunOptionsGetRunLogSeverityLevel",
                               {{"options", options}, {"log_severity_level", out}})) {
    return s;
  }
  *out = options->log_severity;
  return nullptr;
}
// OrtApi::RunOptionsGetRunTag: owned by `options`.
OrtStatus* ORT_API_CALL RunOptionsGetRunTagImpl(const OrtRunOptions* options,
                                                const char** out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::RunOptionsGetRunTag", {{"options", options}, {"run_tag", out}})) {
    return s;
  }
  *out = options->tag.c_str();
  return nullptr;
}
// OrtApi::RunOptionsSetTerminate: every run using `options` stops before its next step; runs
// started while it is set fail at once, until RunOptionsUnsetTerminate.
OrtStatus* ORT_API_CALL RunOptionsSetTerminateImpl(OrtRunOptions* options) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::RunOptionsSetTerminate", {{"options", options}})) return s;
  options->terminate.store(true);
  return nullptr;
}
OrtStatus* ORT_API_CALL RunOptionsUnsetTerminateImpl(OrtRunOptions* options) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::RunOptionsUnsetTerminate", {{"options", options}})) return s;
  options->terminate.store(false);
  return nullptr;
}

// ---- IoBinding ----

OrtStatus* ORT_API_CALL CreateIoBindingImpl(OrtSession* session, OrtIoBinding** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateIoBinding";
  if (OrtStatus* s = CheckArgs(kFn, {{"session", session}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    auto binding = std::make_unique<OrtIoBinding>();
    binding->session = session;
    *out = binding.release();
    return nullptr;
  });
}

void ORT_API_CALL ReleaseIoBindingImpl(OrtIoBinding* binding) noexcept { delete binding; }

// OrtApi::BindInput: replaces an earlier binding of `name`. Errors: ORT_FAIL for a name that is
// not an input of the session (as ONNX Runtime).
OrtStatus* ORT_API_CALL BindInputImpl(OrtIoBinding* binding, const char* name,
                                      const OrtValue* value) noexcept {
  constexpr const char* kFn = "OrtApi::BindInput";
  if (OrtStatus* s = CheckArgs(kFn, {{"binding_ptr", binding}, {"name", name}, {"val_ptr", value}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    const OrtSession& session = *binding->session;
    if (FindInfo(session.inputs, name) == nullptr && FindInfo(session.overridable, name) == nullptr) {
      return Fail(kFn, std::string("'") + name + "' is not an input of the session; its inputs "
                       "are: " + ListNames(session.inputs));
    }
    auto copy = std::make_shared<const OrtValue>(*value);
    for (auto& [bound, held] : binding->inputs) {
      if (bound == name) {
        held = std::move(copy);
        return nullptr;
      }
    }
    binding->inputs.emplace_back(name, std::move(copy));
    return nullptr;
  });
}

// Binds output `name` to `value` (a caller's value to write into) or, when null, to host memory
// nxrt allocates. Names are checked by the run, as in ONNX Runtime.
OrtStatus* BindOutputTo(OrtIoBinding& binding, const char* name, const OrtValue* value) {
  OrtIoBinding::Output output{name, value != nullptr ? std::make_shared<OrtValue>(*value) : nullptr,
                              value != nullptr};
  for (OrtIoBinding::Output& bound : binding.outputs) {
    if (bound.name == name) {
      bound = std::move(output);
      return nullptr;
    }
  }
  binding.outputs.push_back(std::move(output));
  return nullptr;
}

OrtStatus* ORT_API_CALL BindOutputImpl(OrtIoBinding* binding, const char* name,
                                       const OrtValue* value) noexcept {
  constexpr const char* kFn = "OrtApi::BindOutput";
  if (OrtStatus* s = CheckArgs(kFn, {{"binding_ptr", binding}, {"name", name}, {"val_ptr", value}})) {
    return s;
  }
  return Guarded(kFn, [&] { return BindOutputTo(*binding, name, value); });
}

OrtStatus* ORT_API_CALL BindOutputToDeviceImpl(OrtIoBinding* binding, const char* name,
                                               const OrtMemoryInfo* info) noexcept {
  constexpr const char* kFn = "OrtApi::BindOutputToDevice";
  if (OrtStatus* s = CheckArgs(kFn, {{"binding_ptr", binding}, {"name", name}, {"mem_info_ptr", info}})) {
    return s;
  }
  if (info->device.type != OrtMemoryInfoDeviceType_CPU) {
    return InvalidArgument(kFn, "memory info '" + info->name + "' is not host memory; nxrt "
                                "returns outputs in host memory only");
  }
  return Guarded(kFn, [&] { return BindOutputTo(*binding, name, nullptr); });
}

OrtStatus* ORT_API_CALL RunWithBindingImpl(OrtSession* session, const OrtRunOptions* run_options,
                                           const OrtIoBinding* binding_ptr) noexcept {
  constexpr const char* kFn = "OrtApi::RunWithBinding";
  if (OrtStatus* s = CheckArgs(kFn, {{"session", session}, {"binding_ptr", binding_ptr}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    auto* binding = const_cast<OrtIoBinding*>(binding_ptr);
    RunRequest request;
    for (const auto& [name, value] : binding->inputs) {
      request.input_names.push_back(name);
      request.inputs.push_back(value.get());
    }
    for (OrtIoBinding::Output& output : binding->outputs) {
      request.output_names.push_back(output.name);
      request.preallocated.push_back(output.preallocated ? output.value.get() : nullptr);
    }
    std::vector<std::unique_ptr<OrtValue>> results;
    if (OrtStatus* s = RunRequestOn(kFn, *session, run_options, request, results)) return s;
    for (size_t i = 0; i < results.size(); ++i) {
      if (results[i] != nullptr) binding->outputs[i].value = std::move(results[i]);
    }
    return nullptr;
  });
}

// OrtApi::GetBoundOutputNames: the names back to back (no terminators) and their lengths, both
// from `allocator`; NULL and 0 when nothing is bound.
OrtStatus* ORT_API_CALL GetBoundOutputNamesImpl(const OrtIoBinding* binding,
                                                OrtAllocator* allocator, char** buffer,
                                                size_t** lengths, size_t* count) noexcept {
  constexpr const char* kFn = "OrtApi::GetBoundOutputNames";
  if (OrtStatus* s = CheckArgs(kFn, {{"binding_ptr", binding}, {"allocator", allocator},
                                     {"buffer", buffer}, {"lengths", lengths}, {"count", count}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    *buffer = nullptr;
    *lengths = nullptr;
    *count = binding->outputs.size();
    if (binding->outputs.empty()) return nullptr;
    size_t total = 0;
    for (const auto& output : binding->outputs) total += output.name.size();
    auto* names = static_cast<char*>(allocator->Alloc(allocator, std::max<size_t>(total, 1)));
    auto* sizes = static_cast<size_t*>(allocator->Alloc(allocator, *count * sizeof(size_t)));
    if (names == nullptr || sizes == nullptr) {
      if (names != nullptr) allocator->Free(allocator, names);
      if (sizes != nullptr) allocator->Free(allocator, sizes);
      return Fail(kFn, "the allocator returned null");
    }
    size_t at = 0;
    for (size_t i = 0; i < binding->outputs.size(); ++i) {
      const std::string& name = binding->outputs[i].name;
      if (!name.empty()) std::memcpy(names + at, name.data(), name.size());
      sizes[i] = name.size();
      at += name.size();
    }
    *buffer = names;
    *lengths = sizes;
    return nullptr;
  });
}

// OrtApi::GetBoundOutputValues: a new OrtValue per bound output (sharing its data; one without
// a type before the first run), in an array from `allocator`; NULL and 0 when nothing is bound.
OrtStatus* ORT_API_CALL GetBoundOutputValuesImpl(const OrtIoBinding* binding,
                                                 OrtAllocator* allocator, OrtValue*** output,
                                                 size_t* output_count) noexcept {
  constexpr const char* kFn = "OrtApi::GetBoundOutputValues";
  if (OrtStatus* s = CheckArgs(kFn, {{"binding_ptr", binding}, {"allocator", allocator},
                                     {"output", output}, {"output_count", output_count}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    *output = nullptr;
    *output_count = binding->outputs.size();
    if (binding->outputs.empty()) return nullptr;
    auto* values =
        static_cast<OrtValue**>(allocator->Alloc(allocator, *output_count * sizeof(OrtValue*)));
    if (values == nullptr) return Fail(kFn, "the allocator returned null");
    for (size_t i = 0; i < binding->outputs.size(); ++i) {
      const auto& held = binding->outputs[i].value;
      values[i] = held != nullptr ? new OrtValue(*held) : new OrtValue();
    }
    *output = values;
    return nullptr;
  });
}

void ORT_API_CALL ClearBoundInputsImpl(OrtIoBinding* binding) noexcept {
  if (binding != nullptr) binding->inputs.clear();
}
void ORT_API_CALL ClearBoundOutputsImpl(OrtIoBinding* binding) noexcept {
  if (binding != nullptr) binding->outputs.clear();
}

// OrtApi::SynchronizeBoundInputs / Outputs: host memory needs no synchronisation.
OrtStatus* ORT_API_CALL SynchronizeBoundInputsImpl(OrtIoBinding* binding) noexcept {
  return CheckArgs("OrtApi::SynchronizeBoundInputs", {{"binding_ptr", binding}});
}
OrtStatus* ORT_API_CALL SynchronizeBoundOutputsImpl(OrtIoBinding* binding) noexcept {
  return CheckArgs("OrtApi::SynchronizeBoundOutputs", {{"binding_ptr", binding}});
}

}  // namespace

void InstallRunApi(OrtApiVersion30& table) {
  OrtApi& api = table.v29;
  api.Run = &RunImpl;
  api.RunAsync = &RunAsyncImpl;
  api.RunOptionsSetRunLogVerbosityLevel = &RunOptionsSetRunLogVerbosityLevelImpl;
  api.RunOptionsSetRunLogSeverityLevel = &RunOptionsSetRunLogSeverityLevelImpl;
  api.RunOptionsSetRunTag = &RunOptionsSetRunTagImpl;
  api.RunOptionsGetRunLogVerbosityLevel = &RunOptionsGetRunLogVerbosityLevelImpl;
  api.RunOptionsGetRunLogSeverityLevel = &RunOptionsGetRunLogSeverityLevelImpl;
  api.RunOptionsGetRunTag = &RunOptionsGetRunTagImpl;
  api.RunOptionsSetTerminate = &RunOptionsSetTerminateImpl;
  api.RunOptionsUnsetTerminate = &RunOptionsUnsetTerminateImpl;
  api.CreateIoBinding = &CreateIoBindingImpl;
  api.ReleaseIoBinding = &ReleaseIoBindingImpl;
  api.BindInput = &BindInputImpl;
  api.BindOutput = &BindOutputImpl;
  api.BindOutputToDevice = &BindOutputToDeviceImpl;
  api.RunWithBinding = &RunWithBindingImpl;
  api.GetBoundOutputNames = &GetBoundOutputNamesImpl;
  api.GetBoundOutputValues = &GetBoundOutputValuesImpl;
  api.ClearBoundInputs = &ClearBoundInputsImpl;
  api.ClearBoundOutputs = &ClearBoundOutputsImpl;
  api.SynchronizeBoundInputs = &SynchronizeBoundInputsImpl;
  api.SynchronizeBoundOutputs = &SynchronizeBoundOutputsImpl;
}

}  // namespace nxrt::capi
