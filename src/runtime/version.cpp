// runtime/version.cpp: nxrt::GetVersionInfo (see include/nxrt/version.h).
#include "nxrt/version.h"

#include "ep/cpu/math/nn/dnnl_version.h"
#include "ep/ort_plugin/api_table.h"

namespace nxrt {

VersionInfo GetVersionInfo() {
  VersionInfo info;
  info.nxrt = NXRT_VERSION_STRING;
  info.ort_version = ort_plugin::kOrtVersionString;
  info.ort_api_version = ort_plugin::kHostApiVersion;
  info.onednn = cpu::nn::DnnlVersion();
  return info;
}

}  // namespace nxrt
