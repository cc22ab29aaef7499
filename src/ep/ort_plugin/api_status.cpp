// ep/ort_plugin/api_status.cpp: OrtStatus and OrtLogger functions of the host API, and the
// argument-check and exception-boundary helpers of api_internal.h.
//
// Layer: nxrt_ort_plugin (internal).
// Source: onnxruntime_c_api.h (CreateStatus, GetErrorCode, GetErrorMessage, ReleaseStatus,
// Logger_LogMessage, Logger_GetLoggingSeverityLevel).
#include <string>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_table.h"

namespace nxrt::ort_plugin {
namespace {

// Returned when not even an OrtStatus can be allocated; ReleaseStatus leaves it alone.
OrtStatus kOutOfMemoryStatus{ORT_FAIL,
                             "out of memory in the nxrt plugin host; free memory and retry"};

// OrtApi::CreateStatus: a copy of `msg` (null is taken as ""). A `code` that is no OrtErrorCode
// gives CheckEnumArg's ORT_INVALID_ARGUMENT status with `msg` appended (ONNX Runtime 1.30 keeps
// the number, which GetErrorCode then returns as an OrtErrorCode out of range).
OrtStatus* ORT_API_CALL CreateStatusImpl(OrtErrorCode code, const char* msg) noexcept {
  constexpr const char* kFn = "OrtApi::CreateStatus";
  const char* text = msg != nullptr ? msg : "";
  if (OrtStatus* bad = CheckEnumArg(kFn, "code", code)) {
    try {
      if (!IsStaticStatus(bad)) bad->message += std::string("; the status message was: ") + text;
    } catch (const std::bad_alloc&) {
      // The status stays without the caller's message.
    }
    return bad;
  }
  return Guarded(kFn, [&] { return MakeOrtStatus(code, text); });
}

// OrtApi::GetErrorCode / GetErrorMessage. ORT declares both arguments non-null; a null status
// reads as success ("").
OrtErrorCode ORT_API_CALL GetErrorCodeImpl(const OrtStatus* status) noexcept {
  return status != nullptr ? status->code : ORT_OK;
}
const char* ORT_API_CALL GetErrorMessageImpl(const OrtStatus* status) noexcept {
  return status != nullptr ? status->message.c_str() : "";
}

void ORT_API_CALL ReleaseStatusImpl(OrtStatus* status) noexcept {
  if (!IsStaticStatus(status)) delete status;
}

// OrtApi::Logger_LogMessage: to the logger's sink when `severity` >= the logger's minimum.
// file_path, line_number and func_name are passed through (each may be null).
OrtStatus* ORT_API_CALL LoggerLogMessageImpl(const OrtLogger* logger, OrtLoggingLevel severity,
                                             const char* message, const char* file_path,
                                             int line_number, const char* func_name) noexcept {
  constexpr const char* kFn = "OrtApi::Logger_LogMessage";
  if (OrtStatus* s = CheckArgs(kFn, {{"logger", logger}, {"message", message}})) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "log_severity_level", severity)) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    if (logger->sink != nullptr && severity >= logger->min_severity) {
      logger->sink->Log(severity, message, file_path, line_number, func_name);
    }
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL LoggerGetLoggingSeverityLevelImpl(const OrtLogger* logger,
                                                          OrtLoggingLevel* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::Logger_GetLoggingSeverityLevel",
                               {{"logger", logger}, {"out", out}})) {
    return s;
  }
  *out = logger->min_severity;
  return nullptr;
}

}  // namespace

OrtStatus* CheckArgs(const char* function, std::initializer_list<ArgRef> args) noexcept {
  for (const ArgRef& arg : args) {
    if (arg.value == nullptr) {
      return InvalidArgument(function, std::string("argument '") + arg.name +
                                           "' is null; pass a valid pointer");
    }
  }
  return nullptr;
}

OrtStatus* InvalidArgument(const char* function, const std::string& detail) noexcept {
  return Guarded(function, [&] {
    return MakeOrtStatus(ORT_INVALID_ARGUMENT, std::string(function) + ": " + detail);
  });
}

OrtStatus* BadEnumArg(const char* function, const char* param, int32_t raw, const char* type,
                      const EnumRange* ranges, size_t range_count, OrtErrorCode code) noexcept {
  return Guarded(function, [&] {
    std::string valid;
    for (size_t i = 0; i < range_count; ++i) {
      if (i != 0) valid += ", ";
      valid += std::to_string(ranges[i].first);
      if (ranges[i].last != ranges[i].first) valid += ".." + std::to_string(ranges[i].last);
    }
    return MakeOrtStatus(code, std::string(function) + ": argument '" + param + "' is " +
                                   std::to_string(raw) + ", which is not a valid " + type +
                                   "; pass one of " + valid);
  });
}

OrtStatus* OutOfMemoryStatus(const char* function) noexcept {
  try {
    return MakeOrtStatus(ORT_FAIL, std::string(function) +
                                       ": out of memory in the nxrt plugin host; free memory "
                                       "or use smaller tensors");
  } catch (...) {
    return &kOutOfMemoryStatus;
  }
}

OrtStatus* ExceptionStatus(const char* function, const char* what) noexcept {
  try {
    return MakeOrtStatus(ORT_FAIL, std::string(function) + ": unexpected exception in the nxrt "
                                                           "plugin host: " +
                                       what + "; please report this as an nxrt bug");
  } catch (...) {
    return &kOutOfMemoryStatus;
  }
}

bool IsStaticStatus(const OrtStatus* status) noexcept { return status == &kOutOfMemoryStatus; }

void InstallStatusAndLoggingApi(OrtApi& api) {
  api.CreateStatus = &CreateStatusImpl;
  api.GetErrorCode = &GetErrorCodeImpl;
  api.GetErrorMessage = &GetErrorMessageImpl;
  api.ReleaseStatus = &ReleaseStatusImpl;
  api.Logger_LogMessage = &LoggerLogMessageImpl;
  api.Logger_GetLoggingSeverityLevel = &LoggerGetLoggingSeverityLevelImpl;
}

}  // namespace nxrt::ort_plugin
