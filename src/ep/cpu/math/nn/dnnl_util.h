// ep/cpu/math/nn/dnnl_util.h: the oneDNN engine, thread count and error conversion used by the
// oneDNN-backed ops of nxrt_cpu_math (MatMul, Gemm, Conv, ConvTranspose).
//
// Layer: nxrt_cpu_math. Only this library's .cpp files include it (it pulls in dnnl.hpp); op
// headers keep oneDNN primitives behind opaque pointers. Debian's oneDNN 2.6 runs on the OpenMP
// runtime: it uses as many threads as the calling thread's OpenMP setting allows, and its
// library-mode scratchpad is per thread, so one prepared primitive may run from several threads.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>
#include <cstdint>
#include <string_view>

#include "nxrt/status.h"

namespace nxrt::cpu::nn {

// The process-wide CPU engine (created on first use; thread-safe).
Result<dnnl::engine> DnnlEngine();

// The calling thread's stream on DnnlEngine() (created on first use per thread).
Result<dnnl::stream*> DnnlStream();

// The threads a oneDNN op of `macs` multiply-adds should use given `max_threads` (>= 1 result):
// one per kDnnlMacsPerThread of work, so small products run on the calling thread alone (an
// OpenMP team's start-up and barrier cost more than they save, and stall on a busy machine).
// Call SetDnnlThreads (dnnl_threads.h) with it before creating the primitive and before each
// execution: oneDNN sizes its decomposition by the thread count at creation.
inline constexpr int64_t kDnnlMacsPerThread = int64_t{1} << 17;
int DnnlThreadsFor(int64_t macs, int max_threads);

// A Status for a caught dnnl::error: kUnsupported for an unimplemented configuration, otherwise
// kRuntimeError; the message names `what` and oneDNN's own text and status.
Status DnnlErrorStatus(std::string_view what, const dnnl::error& e);

}  // namespace nxrt::cpu::nn
