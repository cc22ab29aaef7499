// ep/cpu/math/nn/dnnl_version.h: the version of the oneDNN library nxrt_cpu_math runs on.
//
// Layer: nxrt_cpu_math. A header without oneDNN's, for callers outside the library
// (nxrt::GetVersionInfo, nxrt/version.h).
#pragma once

#include <string>

namespace nxrt::cpu::nn {

// "2.6.3 (commit 52b5f107dd9cf10910aaa19cb47f3abf9b349815)": oneDNN's dnnl_version() of the
// library loaded at run time (not the headers built against).
std::string DnnlVersion();

}  // namespace nxrt::cpu::nn
