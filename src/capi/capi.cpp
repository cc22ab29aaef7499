// capi/capi.cpp: see capi.h. Installs the application-facing groups into the one table.
#include "capi/capi.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "capi/capi_internal.h"

namespace nxrt::capi {
namespace {

void InstallApplicationApi(OrtApiVersion30& api) {
  InstallEnvApi(api);
  InstallSessionOptionsApi(api);
  InstallSessionApi(api);
  InstallRunApi(api);
  InstallCompileApi(api);
}

}  // namespace

const OrtApiBase* ApiBase() {
  static std::once_flag once;
  std::call_once(once, [] {
    Status status = ort_plugin::ExtendHostApi(&InstallApplicationApi);
    if (!status.ok()) {
      // A slot implemented twice is a build defect, found by nxrt_capi_test before release.
      std::fprintf(stderr, "nxrt: %s\n", status.message().c_str());
      std::abort();
    }
  });
  return ort_plugin::HostApiBase();
}

}  // namespace nxrt::capi
