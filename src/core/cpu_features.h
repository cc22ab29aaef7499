// core/cpu_features.h: what the CPU nxrt runs on can do, for kernels that dispatch at run time.
//
// Layer: nxrt_core. nxrt compiles for baseline x86-64; its hand-written AVX-512 loops (GEMV,
// channels-last max pool, Softmax rows) are function-attribute builds called only when this says
// the CPU runs them.
#pragma once

namespace nxrt {

// True when the CPU runs AVX-512F with FMA (cpuid, checked once).
bool CpuHasAvx512();

// True when the CPU runs AVX2 with FMA (cpuid, checked once): MatMulNBits' packed-weight loops.
bool CpuHasAvx2Fma();

}  // namespace nxrt
