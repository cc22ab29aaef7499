// nxrt/version.h: what this build of nxrt is, and the versions of what it serves and runs on.
//
// Public API (std only; implemented in src/runtime/version.cpp). `nxrt --version` prints it;
// `nxrt bench` reports `nxrt` as its runtime_version.
#pragma once

#include <cstdint>
#include <string>

namespace nxrt {

struct VersionInfo {
  std::string nxrt;  // nxrt's own version, the CMake project version, e.g. "0.1.0"
  // The ONNX Runtime version nxrt's C API reports (OrtApiBase::GetVersionString), both to
  // applications through libonnxruntime.so.1 and to ORT plugin EPs: "1.30.0".
  std::string ort_version;
  // The highest ORT_API_VERSION OrtApiBase::GetApi serves (it serves 1 up to this): 30.
  uint32_t ort_api_version = 0;
  // The oneDNN library loaded at run time (its dnnl_version()), e.g. "2.6.3 (commit 52b5f10...)".
  std::string onednn;
};

// The versions above. Cannot fail.
VersionInfo GetVersionInfo();

}  // namespace nxrt
