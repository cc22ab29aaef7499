// ep/cpu/math/nn/dnnl_threads.h: the thread count of the oneDNN-backed ops (MatMul, Gemm, Conv,
// ConvTranspose) of nxrt_cpu_math.
//
// Layer: nxrt_cpu_math. Debian's oneDNN 2.6 parallelises with OpenMP, whose thread count is a
// per-thread setting: a call affects oneDNN work started later from the calling thread only.
// The CPU EP calls it from each thread that runs kernels (e.g. with `intra_op_threads`).
#pragma once

namespace nxrt::cpu::nn {

// Sets the number of threads oneDNN uses for calls made from the calling thread (values < 1
// mean 1).
void SetDnnlThreads(int num_threads);

// The number of threads oneDNN would use for a call made now from the calling thread.
int DnnlThreads();

}  // namespace nxrt::cpu::nn
