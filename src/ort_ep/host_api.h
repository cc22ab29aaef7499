// ort_ep/host_api.h: the host's tables and the conversions between ORT's OrtStatus and nxrt's
// Status, for libnxrt_ort_ep.so (nxrt's CPU EP as an ONNX Runtime plugin EP, docs/ort_plugin_export.md).
//
// Layer: the plugin library (ORT's C headers, nxrt's internal libraries linked statically). The
// host is whatever loaded the library (ONNX Runtime 1.30, or nxrt's own plugin host): every
// OrtStatus the library returns is made by the host's CreateStatus, and every message starts with
// the EP's name. Nothing here throws across the C ABI: Guarded turns an escaping exception into
// an ORT_FAIL status.
#pragma once

#include <onnxruntime_c_api.h>

#include <exception>
#include <string>
#include <string_view>

#include "nxrt/status.h"

namespace nxrt::ort_ep {

// The EP's name (OrtEpFactory::GetName, OrtEp::GetName, the fused nodes' EP in ORT's profile);
// its session options are "ep.nxrtexecutionprovider.<key>" (ORT lower-cases the name).
inline constexpr const char* kEpName = "NxrtExecutionProvider";
inline constexpr const char* kVendor = "nxrt";

// The tables of the host, resolved once in CreateEpFactories (API version ORT_API_VERSION).
struct HostApi {
  const OrtApi* ort = nullptr;
  const OrtEpApi* ep = nullptr;
};

// An OrtStatus "NxrtExecutionProvider: <message>" with `code`.
inline OrtStatus* MakeOrtStatus(const OrtApi& ort, OrtErrorCode code, std::string_view message) {
  return ort.CreateStatus(code, (std::string(kEpName) + ": " + std::string(message)).c_str());
}

// The ORT error code for an nxrt status code.
inline OrtErrorCode OrtCodeOf(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return ORT_OK;
    case StatusCode::kInvalidArgument: return ORT_INVALID_ARGUMENT;
    case StatusCode::kInvalidModel: return ORT_INVALID_GRAPH;
    case StatusCode::kNotFound: return ORT_NO_SUCHFILE;
    case StatusCode::kNotImplemented:
    case StatusCode::kUnsupported: return ORT_NOT_IMPLEMENTED;
    case StatusCode::kRuntimeError: return ORT_RUNTIME_EXCEPTION;
    default: return ORT_FAIL;
  }
}

// `status` as an OrtStatus (nullptr when ok).
inline OrtStatus* ToOrtStatus(const OrtApi& ort, const Status& status) {
  if (status.ok()) return nullptr;
  return MakeOrtStatus(ort, OrtCodeOf(status.code()), status.message());
}

// The host's `status` as an nxrt Status (released here), the message prefixed with `context`.
inline Status FromOrtStatus(const OrtApi& ort, OrtStatus* status, std::string_view context) {
  if (status == nullptr) return Status::Ok();
  const std::string message = std::string(context) + ": " + ort.GetErrorMessage(status);
  const OrtErrorCode code = ort.GetErrorCode(status);
  ort.ReleaseStatus(status);
  return Status(code == ORT_INVALID_ARGUMENT ? StatusCode::kInvalidArgument
                                             : StatusCode::kRuntimeError,
                message);
}

// Runs `body` (returning OrtStatus*), turning an escaping exception into ORT_FAIL naming `what`.
template <typename Body>
OrtStatus* Guarded(const OrtApi& ort, std::string_view what, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    try {
      return MakeOrtStatus(ort, ORT_FAIL, std::string(what) + " failed: " + e.what());
    } catch (...) {
      return ort.CreateStatus(ORT_FAIL, "NxrtExecutionProvider: out of memory");
    }
  } catch (...) {
    return ort.CreateStatus(ORT_FAIL, "NxrtExecutionProvider: unknown exception");
  }
}

}  // namespace nxrt::ort_ep

// Returns `expr`'s OrtStatus from the enclosing function when it is an error.
#define NXRT_ORT_RETURN_IF_ERROR(expr)                 \
  do {                                                 \
    if (OrtStatus* nxrt_ort_status_ = (expr)) {        \
      return nxrt_ort_status_;                         \
    }                                                  \
  } while (0)
