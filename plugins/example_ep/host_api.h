// plugins/example_ep/host_api.h: small helpers over the host's OrtApi for the example EP.
//
// Layer: test plugin nxrt_example_ep (ORT C headers only). Every OrtStatus the plugin returns is
// made by the host's CreateStatus; a host status is passed on with context prepended
// ("example_ep: compiling 'x': <host message>"). Nothing here throws.
#pragma once

#include <cstdio>
#include <exception>
#include <source_location>
#include <string>

#include "onnxruntime_c_api.h"

namespace nxrt_example_ep {

// The example EP's name (OrtEp::GetName, OrtEpFactory::GetName; its session options are
// "ep.<name>.<key>") and the prefix of every message. The fault fixtures run the same code under
// the EP name "fault_<fault>".
inline constexpr const char* kEpName = "example_ep";
inline constexpr const char* kVendor = "nxrt";
inline constexpr const char* kVersion = "0.1.0";

// The host's tables, as resolved in CreateEpFactories (API 29).
struct HostApi {
  const OrtApi* ort = nullptr;
  const OrtEpApi* ep = nullptr;
};

// A new status "example_ep: <message>" with `code`.
inline OrtStatus* MakeStatus(const OrtApi& ort, OrtErrorCode code, const std::string& message) {
  return ort.CreateStatus(code, (std::string(kEpName) + ": " + message).c_str());
}

// Replaces `status` (non-null) with one whose message is "example_ep: <context>: <its message>",
// keeping its code.
inline OrtStatus* WithContext(const OrtApi& ort, OrtStatus* status, const std::string& context) {
  const OrtErrorCode code = ort.GetErrorCode(status);
  const std::string message = context + ": " + ort.GetErrorMessage(status);
  ort.ReleaseStatus(status);
  return MakeStatus(ort, code, message);
}

// Logs "example_ep: <message>" through `logger` (null: nothing), with the caller's location;
// a logging failure is dropped.
inline void Log(const OrtApi& ort, const OrtLogger* logger, OrtLoggingLevel level,
                const std::string& message,
                std::source_location where = std::source_location::current()) {
  if (logger == nullptr) return;
  const std::string text = std::string(kEpName) + ": " + message;
  if (OrtStatus* status = ort.Logger_LogMessage(logger, level, text.c_str(), where.file_name(),
                                                static_cast<int>(where.line()),
                                                where.function_name())) {
    ort.ReleaseStatus(status);
  }
}

// Runs `body` (returning OrtStatus*) and turns an escaping exception (std::bad_alloc from a
// container) into an ORT_FAIL status naming `what`, so nothing is thrown across the C ABI.
template <typename Body>
OrtStatus* Guarded(const OrtApi& ort, const char* what, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    char message[256];
    std::snprintf(message, sizeof(message), "%s: %s failed: %s", kEpName, what, e.what());
    return ort.CreateStatus(ORT_FAIL, message);
  } catch (...) {
    char message[256];
    std::snprintf(message, sizeof(message), "%s: %s failed with an unknown exception", kEpName,
                  what);
    return ort.CreateStatus(ORT_FAIL, message);
  }
}

}  // namespace nxrt_example_ep

// Returns the OrtStatus* of `expr` from the enclosing function when it is an error.
#define EXAMPLE_EP_RETURN_IF_ERROR(expr)         \
  do {                                           \
    if (OrtStatus* example_ep_status_ = (expr)) { \
      return example_ep_status_;                 \
    }                                            \
  } while (0)
