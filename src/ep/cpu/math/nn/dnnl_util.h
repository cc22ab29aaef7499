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

// A memory object with `like`'s descriptor on `engine` over the same handle, for a copy of a plan
// (each copy binds its own buffers later); empty for an empty `like`.
dnnl::memory Rebind(const dnnl::memory& like, const dnnl::engine& engine);

// The threads a oneDNN op of `macs` multiply-adds should use given `max_threads` (>= 1 result):
// one per kDnnlMacsPerThread of work, so small products run on the calling thread alone (an
// OpenMP team's start-up and barrier cost more than they save, and stall on a busy machine).
// Call SetDnnlThreads (dnnl_threads.h) with it before creating the primitive and before each
// execution: oneDNN sizes its decomposition by the thread count at creation.
inline constexpr int64_t kDnnlMacsPerThread = int64_t{1} << 17;
int DnnlThreadsFor(int64_t macs, int max_threads);

// oneDNN 2.6's relu post-op with alpha 0 and its clip post-ops return the bound for a NaN (they
// are vmaxps/vminps, which give the second operand), and so do its binary max/min; ONNX Relu,
// Clip, HardSigmoid, Max and Min propagate NaN (ONNX Runtime 1.30 does). Plans with those
// activations leave them out of the post-ops and run this over the primitive's output instead:
// y = min(max(scale * y + shift, lo), hi) * out_scale + out_shift, a NaN staying NaN.
struct ClampKeepingNaN {
  float scale = 1.0f, shift = 0.0f;  // HardSigmoid's alpha and beta; 1 and 0 otherwise
  float lo = 0.0f, hi = 0.0f;        // Relu: 0, inf; Clip: min, max; HardSigmoid: 0, 1
  float out_scale = 1.0f, out_shift = 0.0f;  // an affine after the activation (ConvPostOps)
};

// Applies `clamp` to the `n` floats at `y` in place, on up to `threads` OpenMP threads.
void ApplyClampKeepingNaN(const ClampKeepingNaN& clamp, float* y, int64_t n, int threads);

// C [m, n] (row stride ldc) = alpha * op(A) [m, k] @ op(B) [k, n] with oneDNN's row-major sgemm:
// op(A) is A [m, k] (row stride lda), or A [k, m] transposed when `transpose_a`; op(B) likewise
// B [k, n] or B [n, k] (ldb). It runs on the calling thread's OpenMP thread count (one thread
// inside a parallel region). `what` names the product in the error (kRuntimeError with oneDNN's
// status and the dims).
Status Sgemm(std::string_view what, bool transpose_a, bool transpose_b, int64_t m, int64_t n,
             int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
             float* c, int64_t ldc);

// A Status for a caught dnnl::error: kUnsupported for an unimplemented configuration, otherwise
// kRuntimeError; the message names `what` and oneDNN's own text and status.
Status DnnlErrorStatus(std::string_view what, const dnnl::error& e);

}  // namespace nxrt::cpu::nn
